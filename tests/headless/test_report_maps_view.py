"""Issue 24: the report's maps draw only what lies in their view, and the pictures are the same as drawing everything.

A site parcel among a grid of 3,000 neighbour lots (a county-sized layer in miniature) and far wetlands: the site
map and the notification map are drawn once with the view filter and once with it switched off (every geometry
drawn, as before); the PNGs are identical pixel for pixel and the filtered maps draw a small fraction.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from shapely.geometry import LineString, Point, box

pytest.importorskip("matplotlib")

from stormwater_plugin.core.model import CheckResult, FeatureLayer  # noqa: E402
from stormwater_plugin.report import maps  # noqa: E402

FT = 1 / 0.3048  # feet per metre: the working CRS is in metres


def _layers() -> dict[str, FeatureLayer]:
    lots, ids = [], []
    for k in range(3000):
        c, r = k % 60, k // 60
        lots.append(box(c * 30.0, r * 45.0, c * 30.0 + 30.0, r * 45.0 + 45.0))
        ids.append(f"L-{k}")
    site = 30 * 60 + 30  # a lot in the middle of the grid
    ids[site] = "SITE"
    far_wet = [box(-20000.0 - 10 * k, 0.0, -19995.0 - 10 * k, 5.0) for k in range(500)]
    sx, sy = lots[site].centroid.x, lots[site].centroid.y
    return {
        "parcels": FeatureLayer.from_sequences("parcels", lots, ids),
        "wetlands": FeatureLayer.from_sequences("wetlands", far_wet + [box(sx + 20, sy - 5, sx + 40, sy + 5)]),
        "streams": FeatureLayer.from_sequences("streams", [LineString([(sx - 100, sy + 30), (sx + 100, sy + 30)]),
                                                           LineString([(-30000.0, 0.0), (-29000.0, 0.0)])]),
        "devices": FeatureLayer.from_sequences("devices", [Point(sx, sy)], ["DW-1"], [{"device_type": "dry_well"}]),
    }


def _result() -> CheckResult:
    return CheckResult(jurisdiction="t", pack_title="T", pack_version="1", project_class="minor", class_source="test", classification=None,
                       findings=[], building_sites=[], notification={}, warnings=[], rules_not_checked=[], zones=[], site_parcel_ids=("SITE",))


def _draw_counting(monkeypatch, filtered: bool, fn):
    drawn = {"n": 0}
    real = maps.draw

    def counting(ax, g, **kw):
        drawn["n"] += 0 if g is None or g.is_empty else 1
        real(ax, g, **kw)

    monkeypatch.setattr(maps, "draw", counting)
    if not filtered:  # every geometry, as the maps drew before the view filter
        monkeypatch.setattr(maps, "in_view", lambda geoms, box: np.arange(len(geoms)))
    png = fn()
    monkeypatch.undo()
    return png, drawn["n"]


def _pixels(png: bytes) -> np.ndarray:
    from matplotlib.image import imread

    return imread(io.BytesIO(png), format="png")


@pytest.mark.parametrize("figure", ["site_map", "notification_map"])
def test_report_maps_draw_only_the_view_and_the_picture_is_the_same(monkeypatch, figure):
    layers, result = _layers(), _result()
    listed = [f"L-{30 * 60 + 29}", f"L-{30 * 60 + 31}"]

    def make():
        if figure == "site_map":
            return maps.site_map(result, [], layers, FT)
        return maps.notification_map(result, layers, FT, listed, 200.0)

    every, n_every = _draw_counting(monkeypatch, False, make)
    clipped, n_clipped = _draw_counting(monkeypatch, True, make)
    a, b = _pixels(every), _pixels(clipped)
    assert a.shape == b.shape and np.array_equal(a, b), f"{int((a != b).any(axis=-1).sum())} pixels differ"
    assert n_every >= 3000  # every lot (and, on the site map, every far wetland) drawn without the filter
    assert n_clipped < n_every / 20, (n_clipped, n_every)


def test_in_view_keeps_order_and_never_takes_missing_geometries():
    geoms = [box(0, 0, 1, 1), None, box(50, 50, 60, 60), Point(5, 5), box(9, 9, 12, 12), Point()]
    assert maps.in_view(geoms, (0.0, 0.0, 10.0, 10.0)).tolist() == [0, 3, 4]
    assert maps.in_view([], (0.0, 0.0, 1.0, 1.0)).tolist() == []


def test_object_array_holds_the_same_objects_as_a_slice_assignment() -> None:
    """``maps._object_array`` (np.fromiter, issue 24 item 5) gives the array the slow slice assignment gave."""
    import numpy as np
    from shapely.geometry import MultiPolygon, Point, box

    from stormwater_plugin.report import maps as report_maps

    geoms = [box(i, 0, i + 1, 1) for i in range(100)] + [None, MultiPolygon([box(0, 0, 1, 1)]), Point()]
    old = np.empty(len(geoms), dtype=object)
    old[:] = list(geoms)
    new = report_maps._object_array(geoms)
    assert new.shape == old.shape and new.dtype == object
    assert all(a is b for a, b in zip(old, new))
    assert report_maps._object_array([]).shape == (0,)
