"""Points transformed in one QGIS call are the points transformed one by one, bit for bit (issue 39: the live read's CRS fit).

:func:`~stormwater_plugin.qgis_bridge.crs.transform_points` hands all points to QGIS at once where that gives what
each point alone gives (its definition, the one-call path switched off here); a point that fails, the fallback
operation or a point unchanged sends it one by one.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext

from stormwater_plugin.qgis_bridge import crs as qcrs
from stormwater_plugin.qgis_bridge.layer_place import box_in
from stormwater_plugin.services.placement_layers import box_edge_points

#: A custom transverse Mercator with no authority (a ``.prj`` QGIS does not recognise), on Clarke 1866 with a datum shift.
_CUSTOM = "+proj=tmerc +lat_0=40 +lon_0=-76.5833333 +k=0.9999375 +x_0=250000 +y_0=0 +ellps=clrk66 +towgs84=-8,160,176,0,0,0,0 +units=us-ft +no_defs"

#: (source, target): projected to degrees (the CRS fit), degrees to projected, a geographic datum shift, projected to
#: projected across datums, US survey feet, a CRS without authority; a wrong ``.prj`` is a box of one CRS's magnitudes
#: drawn under another (the boxes below span metres, feet and degrees under every CRS).
_PAIRS = [("EPSG:26918", "EPSG:4326"), ("EPSG:2262", "EPSG:4326"), ("EPSG:4269", "EPSG:4326"), ("EPSG:4326", "EPSG:26918"),
          ("EPSG:32618", "EPSG:2261"), ("EPSG:4267", "EPSG:26918"), ("EPSG:3857", "EPSG:4269"), (_CUSTOM, "EPSG:4326")]


def _crs(text: str) -> QgsCoordinateReferenceSystem:
    return QgsCoordinateReferenceSystem.fromProj(text) if text.startswith("+proj") else QgsCoordinateReferenceSystem(text)


def _xform(pair: int):
    source, target = _PAIRS[pair]
    return qcrs.checked_transform(_crs(source), _crs(target), QgsCoordinateTransformContext())


def _one_by_one(xform, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~stormwater_plugin.qgis_bridge.crs.transform_points` as it was: each point alone."""
    with mock.patch.object(qcrs, "_transform_at_once", lambda *_args: None):
        return qcrs.transform_points(xform, xs, ys)


def _same(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    return all(u.shape == v.shape and np.array_equal(u, v, equal_nan=True) for u, v in zip(a, b))


#: A box's lower corner near a place (degrees, metres, feet, or far beyond any), its size from centimetres to continents.
_centre = st.sampled_from([(-78.0, 42.5), (608270.4, 4817210.0), (1000000.0, 900000.0), (-8.7e6, 5.2e6), (0.0, 0.0), (5e7, -3e7), (179.9, 89.9)])
_offset = st.floats(-1e4, 1e4, allow_nan=False)
_size = st.floats(1e-3, 5e6, allow_nan=False)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=st.integers(0, len(_PAIRS) - 1), centre=_centre, dx=_offset, dy=_offset, w=_size, h=_size)
def test_a_boxs_edge_points_at_once_are_each_point_alone(pair: int, centre: tuple[float, float], dx: float, dy: float, w: float, h: float) -> None:
    xform = _xform(pair)
    x0, y0 = centre[0] + dx, centre[1] + dy
    xs, ys = box_edge_points((x0, y0, x0 + w, y0 + h))
    assert _same(qcrs.transform_points(xform, xs, ys), _one_by_one(xform, xs, ys))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=st.integers(0, len(_PAIRS) - 1), centre=_centre,
       pts=st.lists(st.tuples(st.floats(-1e6, 1e6, allow_nan=False), st.floats(-1e6, 1e6, allow_nan=False)), min_size=1, max_size=30),
       wild=st.sampled_from([None, (np.nan, 0.0), (np.inf, 1.0), (1e12, 1e12)]))
def test_scattered_points_at_once_are_each_point_alone(pair: int, centre: tuple[float, float], pts: list[tuple[float, float]],
                                                       wild: tuple[float, float] | None) -> None:
    """Any points (a feature's corners), one of them perhaps not a number, infinite or beyond any CRS (it fails alone)."""
    xform = _xform(pair)
    coords = [(centre[0] + a, centre[1] + b) for a, b in pts] + ([wild] if wild is not None else [])
    xs, ys = np.array([c[0] for c in coords]), np.array([c[1] for c in coords])
    assert _same(qcrs.transform_points(xform, xs, ys), _one_by_one(xform, xs, ys))


def test_a_site_box_is_carried_in_one_call() -> None:
    """The live read's CRS fit of the demo's layers (UTM 18N to degrees) takes the one-call path (else nothing is saved)."""
    xs, ys = box_edge_points((608000.0, 4817000.0, 608500.0, 4817400.0))
    assert qcrs._transform_at_once(_xform(0), xs.tolist(), ys.tolist()) is not None


def test_a_point_that_fails_alone_is_not_a_number_and_the_others_are_kept() -> None:
    xform = _xform(0)
    xs, ys = np.array([608270.4, 1e12, 608000.0]), np.array([4817210.0, 4817210.0, 4.8e6])
    assert qcrs._transform_at_once(xform, xs.tolist(), ys.tolist()) is None
    x, y = qcrs.transform_points(xform, xs, ys)
    assert np.isnan(x[1]) and np.isnan(y[1]) and np.isfinite(x[[0, 2]]).all() and np.isfinite(y[[0, 2]]).all()


def test_the_arrays_shapes_are_kept() -> None:
    xs, ys = np.array([[608000.0, 608100.0], [608200.0, 608300.0]]), np.full((2, 2), 4817000.0)
    x, y = qcrs.transform_points(_xform(0), xs, ys)
    assert x.shape == (2, 2) and y.shape == (2, 2) and np.isfinite(x).all()


def test_a_wrong_prj_box_is_carried_as_one_by_one() -> None:
    """UTM metres under NAD83 degrees (a wrong ``.prj``): the box in degrees is what one by one gives, its fit judged alike."""
    geo, wgs84, context = QgsCoordinateReferenceSystem("EPSG:4269"), QgsCoordinateReferenceSystem("EPSG:4326"), QgsCoordinateTransformContext()
    box = (608000.0, 4817000.0, 608500.0, 4817400.0)
    xs, ys = box_edge_points(box)
    each = _one_by_one(qcrs.checked_transform(geo, wgs84, context), xs, ys)
    assert box_in(box, geo, wgs84, context) == (each[0].min(), each[1].min(), each[0].max(), each[1].max())


def test_a_point_unchanged_between_degrees_and_metres_is_answered_one_by_one() -> None:
    """The origin maps to itself from WGS 84 to Web Mercator: one call cannot tell that from a thread that cannot transform."""
    xform = qcrs.checked_transform(QgsCoordinateReferenceSystem("EPSG:4326"), QgsCoordinateReferenceSystem("EPSG:3857"), QgsCoordinateTransformContext())
    xs, ys = np.array([0.0, 1.0]), np.array([0.0, 1.0])
    assert qcrs._transform_at_once(xform, xs.tolist(), ys.tolist()) is None
    assert _same(qcrs.transform_points(xform, xs, ys), _one_by_one(xform, xs, ys))
