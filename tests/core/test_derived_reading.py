"""The read's and the site parcel's values kept by content for the next check (``core.derived``; issue 39): each is
computed again when one of its inputs changed, and gives what a check computing it afresh gives."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.derived import Derived, derive, derive_each, using
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.site_parcel import find_site_parcels, pick_site_parcel, work_parcels
from stormwater_plugin.services import dem_window as dem_window_module
from stormwater_plugin.services.backend import CrsInfo, GridProjection
from stormwater_plugin.services.dem_window import dem_window
from stormwater_plugin.services.grid_scale import Ellipsoid
from stormwater_plugin.services.packs import load_pack
from stormwater_plugin.services.placement_layers import SourcePlace, stray_plan_features
from stormwater_plugin.services.site_crs import site_measure


def _parcels(flag: int = 1) -> FeatureLayer:
    return FeatureLayer.from_sequences("parcels", [shapely.box(0, 0, 100, 100), shapely.box(100, 0, 200, 100)], ["P-1", "P-2"],
                                       [{"is_site": flag}, {"is_site": 1 - flag}])


def _devices(x: float = 50.0) -> FeatureLayer:
    return FeatureLayer.from_sequences("devices", [shapely.Point(x, 50), shapely.Point(20, 20)], ["DW-1", "DW-2"],
                                       [{"device_type": "dry_well"}, {"device_type": "dry_well"}])


def _first(fn: Callable[[], Any]) -> Derived:
    """``fn`` run in a first check, to be run again in a second (``Derived(first)``)."""
    first = Derived()
    with using(first):
        fn()
    return first


def _again(first: Derived, fn: Callable[[], Any]) -> tuple[Any, Derived]:
    second = Derived(first)
    with using(second):
        got = fn()
    return got, second


def test_each_computes_only_the_items_not_kept():
    asked: list[list[int]] = []

    def squares(items: list[int]) -> list[int]:
        asked.append(list(items))
        return [i * i for i in items]

    first = Derived()
    with using(first):
        assert derive_each("square", squares, [1, 2, 3], "shared") == [1, 4, 9]
    second = Derived(first)
    with using(second):
        assert derive_each("square", squares, [1, 5, 3], "shared") == [1, 25, 9]
        assert derive_each("square", squares, [1], "other shared input") == [1]
    assert asked == [[1, 2, 3], [5], [1]]
    assert second.reused == 2 and second.made == 2
    assert derive_each("square", squares, [4], "shared") == [16]  # none in use: computed directly


def test_the_site_flag_is_read_in_any_case_the_last_such_field_deciding():
    def pick(*attrs: dict[str, object]) -> tuple[int, ...]:
        layer = FeatureLayer.from_sequences("parcels", [shapely.box(k, 0, k + 1, 1) for k in range(len(attrs))], [f"P-{k}" for k in range(len(attrs))],
                                            list(attrs))
        return pick_site_parcel(layer, None, {}).indices

    assert pick({"IS_SITE": "yes"}, {"is_site": 0}) == (0,)
    assert pick({"Is_Site": 1, "is_site": 0}, {"is_site": 1}) == (1,)  # as a case-folded mapping: the last field wins
    assert pick({"is_site": 0, "IS_SITE": 1}, {"other": 1}) == (0,)
    # the field found once per sequence of field names: features of other fields, or the same in another order, read their own
    assert pick({"is_site": 0, "IS_SITE": 1}, {"IS_SITE": 1, "is_site": 0}, {"is_site": 0, "IS_SITE": 1}) == (0, 2)
    assert pick({"is_site": 0}, {"x": 1, "is_site": 1}, {"is_site": 0, "x": 1}) == (1,)


def test_the_parcels_holding_a_moved_device_are_found_again():
    first = _first(lambda: work_parcels(_parcels(), {"devices": _devices(50.0)}))
    got, second = _again(first, lambda: work_parcels(_parcels(), {"devices": _devices(150.0)}))
    assert got == work_parcels(_parcels(), {"devices": _devices(150.0)}) == [0, 1]
    # DW-2's parcels and the parcels' search tree kept; the parcels holding the devices' work (a new layer) and DW-1's made again
    assert second.reused == 2 and second.made == 2
    warnings: list[Any] = []
    assert _again(first, lambda: find_site_parcels(_parcels(), None, {"devices": _devices(150.0)}, warnings))[0] == [0, 1]


def test_each_roles_proposed_work_kept_by_content_follows_a_change_of_each_input():
    """The work of each plan role is kept by the role and its layer (#39): a moved feature, an impervious area or a building
    site marked existing (or no more), and a layer given another role each give the parcels a search made afresh finds."""
    def site(imp_status: str = "proposed", site_status: str = "new", x: float = 150.0, role: str = "impervious") -> dict[str, FeatureLayer]:
        return {"devices": _devices(20.0),
                role: FeatureLayer.from_sequences(role, [shapely.box(x, 10, x + 10, 20)], ["I-1"], [{"status": imp_status}]),
                "building_sites": FeatureLayer.from_sequences("building_sites", [shapely.Point(x, 60)], ["B-1"], [{"status": site_status}])}

    cases = [("same", {}), ("impervious existing", {"imp_status": "existing"}), ("proposed again", {}), ("building existing", {"site_status": "existing"}),
             ("both existing", {"imp_status": "existing", "site_status": "existing"}), ("moved onto P-1", {"x": 50.0}),
             ("as clearing", {"role": "clearing", "imp_status": "existing", "site_status": "existing"}), ("back", {})]
    last = _first(lambda: work_parcels(_parcels(), site()))
    for name, kw in cases:  # each check from the one before, as the live re-check runs
        got, last = _again(last, lambda kw=kw: work_parcels(_parcels(), site(**kw)))
        assert got == work_parcels(_parcels(), site(**kw)), name  # no derived values in use: found afresh
    assert work_parcels(_parcels(), site(imp_status="existing", site_status="existing")) == [0]
    assert work_parcels(_parcels(), site(role="clearing", imp_status="existing", site_status="existing")) == [0, 1]


def test_the_dem_window_follows_a_moved_device_and_a_moved_target():
    pack = load_pack("lake-george")

    def layers(x: float, septic_x: float) -> dict[str, FeatureLayer]:
        return {"parcels": _parcels(), "devices": _devices(x),
                "septic": FeatureLayer.from_sequences("septic", [shapely.box(septic_x, 60, septic_x + 10, 70)], ["S-1"], [{}])}

    def window(x: float, septic_x: float) -> Any:
        return dem_window(layers(x, septic_x), pack, unit_to_ft=1.0, cell_ft=3.0).bounds

    first = _first(lambda: window(50.0, 300.0))
    for x, septic_x in ((50.0, 300.0), (45.0, 300.0), (50.0, 500.0), (-400.0, 300.0)):
        got, _second = _again(first, lambda x=x, septic_x=septic_x: window(x, septic_x))
        assert got == window(x, septic_x)
    assert window(50.0, 500.0) != window(50.0, 300.0)  # the far septic field's line widens the window


def test_a_stray_follows_its_anchor_moving_away():
    def places(x: float) -> list[SourcePlace]:
        sites = FeatureLayer.from_sequences("building_sites", [shapely.Point(x, 10)], ["B-1"], [{}])
        return [SourcePlace("devices", "d", "", layer=_devices(50.0)), SourcePlace("building_sites", "b", "", layer=sites)]

    def strays(x: float) -> list[list[int]]:
        return stray_plan_features(places(x), [None, None], {"devices": 1000.0, "building_sites": 1000.0}, 1.0)

    first = _first(lambda: strays(60.0))
    assert strays(60.0) == [[], []]
    got, _second = _again(first, lambda: strays(5000.0))
    assert got == strays(5000.0) == [[0, 1], [0]]


def test_a_geometrys_wkb_is_written_once_per_object_and_a_new_one_is_read_again():
    kept = shapely.Point(1.0, 2.0)
    first = Derived()
    assert first.wkb([kept]) == [shapely.to_wkb(kept)]
    second = Derived(first)
    assert second.wkb([kept])[0] is first.wkb([kept])[0]  # the same immutable object: its WKB carried on
    moved = shapely.Point(1.0, 2.001)
    assert second.wkb([moved, kept]) == [shapely.to_wkb(moved), shapely.to_wkb(kept)]
    calls: list[int] = []
    first.value("n", lambda: calls.append(1), kept)
    second.settle()
    Derived(first).value("n", lambda: calls.append(1), moved)  # a geometry moved: its value computed again
    assert calls == [1, 1]



def test_a_layer_kept_as_a_value_keeps_its_key_and_a_changed_layer_is_computed_again():
    def cleaned(x: float) -> FeatureLayer:
        return derive("cleaned", lambda: _devices(x), _devices(x))

    first = Derived()
    with using(first):
        kept = cleaned(50.0)
        derive("count", lambda: len(kept), kept)  # keyed in the first check
    second = Derived(first)
    with using(second):
        again = cleaned(50.0)
        assert again is kept and derive("count", lambda: -1, again) == 2  # the kept layer's key carried on: its value reused
        moved = cleaned(60.0)
        assert moved is not kept and derive("count", lambda: -1, moved) == -1  # another content: computed again


_coord = st.integers(-4, 8).map(float)  # a coarse grid: many devices lie equally far from two targets (ties)
_shape = st.one_of(
    st.builds(shapely.Point, _coord, _coord),
    st.builds(lambda x, y, dx, dy: shapely.LineString([(x, y), (x + dx, y + dy + 0.5)]), _coord, _coord, _coord, _coord),
    st.builds(lambda x, y, w, h: shapely.box(x, y, x + w + 1, y + h + 1), _coord, _coord, st.integers(0, 3), st.integers(0, 3)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_shape, max_size=6), min_size=1, max_size=4), st.lists(_shape, min_size=1, max_size=4))
def test_the_nearest_lines_from_every_distance_box_as_the_trees_do(groups: list[list[Any]], devices: list[Any]):
    """Each device's lines to its nearest targets of each spec, every tie among them: the dense path's boxes are the tree's."""
    targets = [np.array(g, dtype=object) for g in groups]
    tree = list(zip(*(dem_window_module._device_line_boxes(t, devices) for t in targets)))
    dense = dem_window_module._dense_line_boxes(targets, devices)
    assert dense is not None
    assert [[tuple(map(repr, b)) for b in mine] for mine in dense] == [[tuple(map(repr, b)) for b in mine] for mine in tree]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_shape, max_size=6), min_size=1, max_size=4), _shape)
def test_one_devices_nearest_lines_box_as_the_tree_and_every_distance_do(groups: list[list[Any]], device: Any):
    """The moved device's lines to its nearest targets of each spec (its own path): the same boxes as the tree's and the dense path's."""
    targets = [np.array(g, dtype=object) for g in groups]
    one = dem_window_module._one_device_line_boxes(targets, device)
    tree = tuple(dem_window_module._device_line_boxes(t, [device])[0] for t in targets)
    dense = dem_window_module._dense_line_boxes(targets, [device])
    assert one is not None and dense is not None
    assert [tuple(map(repr, b)) for b in one] == [tuple(map(repr, b)) for b in tree] == [tuple(map(repr, b)) for b in dense[0]]
    assert dem_window_module._device_lines_boxes([], [device]) == [()]


_bound = st.one_of(st.just(math.nan), st.floats(-1e6, 1e6))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_bound, _bound, _bound, _bound), max_size=6))
def test_a_union_of_boxes_is_numpys_nan_skipping_one(boxes: list[tuple[float, float, float, float]]):
    got = dem_window_module._union(boxes)
    if not boxes:
        assert got is None
        return
    b = np.array(boxes, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = (np.nanmin(b[:, 0]), np.nanmin(b[:, 1]), np.nanmax(b[:, 2]), np.nanmax(b[:, 3]))
    assert got is not None
    # the same numbers, NaN where every bound is NaN; a tie of 0.0 and -0.0 may keep either (equal as numbers, as the window is)
    assert all(float(v) == float(w) or (v != v and w != w) for v, w in zip(got, want))


class _CountedCrs:
    """A CRS backend whose every CRS measures a scale factor of 1 + x/1e6 at (x, y); it counts what it is asked."""

    def __init__(self) -> None:
        self.asked = 0
        self.ops = "none"

    def identity(self, crs: str) -> str:
        return f"{crs} {self.ops}"

    def describe(self, crs: str) -> CrsInfo:
        self.asked += 1
        return CrsInfo(f"name of {crs}", f"X:{crs}", True, True, 1.0)

    def projection(self, crs: str) -> GridProjection | None:
        def to_grid(lons: Any, lats: Any) -> tuple[list[float], list[float]]:
            return [float(v) * 1.0 for v in lons], [float(v) for v in lats]

        return GridProjection(lambda x, y: (x, y), to_grid, 1.0, Ellipsoid(6378137.0, 298.257222101))


def test_the_site_measure_is_kept_by_the_crs_its_reason_and_the_sites_centre():
    """Measured again when the CRS's identity (its definition, the transformations), the reason or the site's centre changes;
    kept when a device moves on a site its flagged parcel locates."""
    crs_ops = _CountedCrs()

    def layers(x: float = 50.0, flag: int = 1) -> dict[str, FeatureLayer]:
        return {"parcels": _parcels(flag), "devices": _devices(x)}

    def measure(lay: dict[str, FeatureLayer], crs: str = "A", why: str = "the DEM's CRS") -> Any:
        return site_measure(crs_ops, crs, why, lay, None)

    first = _first(lambda: measure(layers()))
    asked = crs_ops.asked
    got, first = _again(first, lambda: measure(layers(x=45.0)))  # the device moved on the flagged parcel: the centre stays
    assert crs_ops.asked == asked
    assert got == measure(layers(x=45.0))
    for change in (lambda: measure(layers(), crs="B"), lambda: measure(layers(), why="local UTM zone 18N"),
                   lambda: measure(layers(flag=0))):  # another CRS, another reason, another site parcel (another centre)
        asked = crs_ops.asked
        got, _second = _again(first, change)
        assert crs_ops.asked == asked + 1
        assert got == change()
    crs_ops.ops = "a datum transformation"
    asked = crs_ops.asked
    _again(first, lambda: measure(layers()))
    assert crs_ops.asked == asked + 1
