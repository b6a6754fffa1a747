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


class _PassThrough:
    """A transformation QGIS shares with a thread whose PROJ cannot instantiate it: valid, and every point back unchanged."""

    def __init__(self, source: QgsCoordinateReferenceSystem, target: QgsCoordinateReferenceSystem, *_args: object) -> None:
        self.source, self.target = source, target

    def isValid(self) -> bool:  # noqa: N802 - QGIS's name
        return True

    def isShortCircuited(self) -> bool:  # noqa: N802 - QGIS's name
        return False

    def sourceCrs(self) -> QgsCoordinateReferenceSystem:  # noqa: N802 - QGIS's name
        return self.source

    def destinationCrs(self) -> QgsCoordinateReferenceSystem:  # noqa: N802 - QGIS's name
        return self.target

    def transform(self, point):
        return point


def test_a_point_given_back_unchanged_between_a_projected_and_a_geographic_crs_is_refused() -> None:
    xform = _PassThrough(QgsCoordinateReferenceSystem("EPSG:26918"), QgsCoordinateReferenceSystem("EPSG:4269"))
    with pytest.raises(TransformUnavailable):
        qcrs.transform_points(xform, [608270.4], [4817210.0])


def test_the_scale_factor_in_a_thread_that_cannot_transform_is_refused_not_one(monkeypatch) -> None:
    """The dock's read runs in a task thread; there QGIS gave the grid point back as its longitude and latitude, and the
    factor fell back to 1 (20.0 ft where the command line measured 20.01 ft)."""
    monkeypatch.setattr(qcrs, "QgsCoordinateTransform", _PassThrough)
    with pytest.raises(TransformUnavailable):
        qcrs.scale_at_point(QgsCoordinateReferenceSystem("EPSG:26918"), 608270.4, 4817210.0, QgsCoordinateTransformContext())


def test_a_thread_that_can_transform_passes_the_probe() -> None:
    context = QgsCoordinateTransformContext()
    qcrs.thread_can_transform(QgsCoordinateReferenceSystem("EPSG:26918"), QgsCoordinateReferenceSystem("EPSG:2260"), context, 608270.4, 4817210.0)
    qcrs.thread_can_transform(QgsCoordinateReferenceSystem("EPSG:4269"), QgsCoordinateReferenceSystem("EPSG:26918"), context, -73.7, 43.5)


def test_a_thread_that_gives_points_back_fails_the_probe_between_two_projected_crss(monkeypatch) -> None:
    monkeypatch.setattr(qcrs, "QgsCoordinateTransform", _PassThrough)
    with pytest.raises(TransformUnavailable):
        qcrs.thread_can_transform(QgsCoordinateReferenceSystem("EPSG:26918"), QgsCoordinateReferenceSystem("EPSG:2260"), QgsCoordinateTransformContext(),
                                  608270.4, 4817210.0)
