"""A transformation QGIS cannot create stops the read: never coordinates passed through unchanged and measured as feet."""

from __future__ import annotations

import pytest
from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext

from stormwater_plugin.core.errors import StormwaterError
from stormwater_plugin.qgis_bridge import crs as qcrs
from stormwater_plugin.qgis_bridge.crs import QgisCrs, TransformUnavailable, checked_transform


class _BrokenTransform:
    """What QGIS returns when PROJ cannot build the operation: invalid, and short-circuited (input returned unchanged)."""

    def __init__(self, *_args: object) -> None:
        pass

    def isValid(self) -> bool:  # noqa: N802 - QGIS's name
        return False

    def isShortCircuited(self) -> bool:  # noqa: N802 - QGIS's name
        return True


def test_a_transform_qgis_creates_is_given_back() -> None:
    xform = checked_transform(QgsCoordinateReferenceSystem("EPSG:4269"), QgsCoordinateReferenceSystem("EPSG:26918"), QgsCoordinateTransformContext())
    assert xform.isValid() and not xform.isShortCircuited()


def test_the_same_crs_both_ways_is_no_transformation_and_is_accepted() -> None:
    utm = QgsCoordinateReferenceSystem("EPSG:26918")
    assert checked_transform(utm, utm, QgsCoordinateTransformContext()).isShortCircuited()


def test_a_transform_from_a_crs_qgis_does_not_know_is_refused() -> None:
    with pytest.raises(TransformUnavailable) as err:
        checked_transform(QgsCoordinateReferenceSystem(), QgsCoordinateReferenceSystem("EPSG:26918"), QgsCoordinateTransformContext())
    assert isinstance(err.value, StormwaterError) and "EPSG:26918" in str(err.value) and "nothing was measured" in str(err.value)


def test_the_grid_scale_factor_is_never_a_silent_one_when_qgis_cannot_transform(monkeypatch) -> None:
    """Debian 13's QGIS 3.40 once lost its PROJ database in a long process: every new transformation came back invalid and
    passed coordinates through, and the scale factor fell back to 1 without a word. Now the read stops and says why."""
    monkeypatch.setattr(qcrs, "QgsCoordinateTransform", _BrokenTransform)
    backend = QgisCrs(QgsCoordinateTransformContext())
    with pytest.raises(TransformUnavailable):
        backend.projection(QgsCoordinateReferenceSystem("EPSG:2261"))
    with pytest.raises(TransformUnavailable):
        qcrs.scale_at_point(QgsCoordinateReferenceSystem("EPSG:2261"), 648751.8, 1080431.6, QgsCoordinateTransformContext())
