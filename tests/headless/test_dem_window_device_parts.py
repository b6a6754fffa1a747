"""The DEM window's devices' box and nearest-target lines found from each device's part, kept by the device's content (issue 39).

The devices' box and each spec's box of their lines to the nearest targets are made of each device's own part
(``dem_window._device_parts``: its located, repaired geometry's bounds and its lines' boxes), so a move finds only the moved
device's again. The properties hold both to what they replace, kept here as it was: ``total_box`` of the layer's located
geometries (``_box_of``) and the lines' boxes of the located geometries found together (``_device_lines_boxes``), over sittings
of edits carrying the last check's values and with none kept.
"""

from __future__ import annotations

import math
from functools import partial

import shapely
import shapely.affinity
import shapely.errors
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, Polygon, box

from stormwater_plugin.core.derived import Derived, derive_each, using
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.services import dem_window as dw

_BOWTIE = Polygon([(0, 0), (4, 4), (4, 0), (0, 4)])  # invalid: repaired (make_valid) before it is boxed and measured
_xy = st.integers(-200, 200).map(float)
_KINDS = ["point", "point", "point", "box", "bowtie", "empty", "missing", "nan"]


def _geom(x: float, y: float, kind: str) -> object:
    return (None if kind == "missing" else Point() if kind == "empty" else Point(x, math.nan) if kind == "nan" else Point(x, y) if kind == "point"
            else shapely.affinity.translate(_BOWTIE, x, y) if kind == "bowtie" else box(x, y, x + 6, y + 3))


def _former_box(layer: FeatureLayer | None) -> dw.Bounds | None:
    """The devices' box as it was found: ``total_box`` of the layer's located geometries, repaired (``_located_box``)."""
    return None if layer is None or len(layer) == 0 else dw._box_of(layer)


def _former_spec_lines(reads: dw._LayerReads) -> dict[tuple[str, str], dw.Bounds | None]:
    """Each spec's lines' box as it was found: each located device's lines kept by content, the box their union."""
    groups = [(reads.layers[role], match) for role, match in reads._specs]
    each = derive_each("nearest target lines' boxes (former)", partial(dw._device_lines_boxes, groups), list(reads.geoms("devices")),
                       *(x for group in groups for x in group))
    return {spec: dw._union([mine[j] for mine in each]) for j, spec in enumerate(reads._specs)}


def _same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN (a box of NaN: no bounds)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _former(layers: dict[str, FeatureLayer], specs: list) -> tuple[object, object]:
    return _former_box(layers.get("devices")), _former_spec_lines(dw._LayerReads(layers, specs))


def _found(layers: dict[str, FeatureLayer], specs: list) -> tuple[object, object]:
    reads = dw._LayerReads(layers, specs)
    return reads.box(("devices",)), reads.spec_lines()


def _outcome(find: object) -> object:
    """What ``find()`` gives, or the error it raises (GEOS refuses to repair a point with a NaN coordinate: both ways alike)."""
    try:
        return find()  # type: ignore[operator]
    except shapely.errors.GEOSException as e:
        return ("refused", str(e))


def _layers(devices: list, wells: list, septic: list) -> dict[str, FeatureLayer]:
    out = {"devices": FeatureLayer.from_sequences("devices", [_geom(*d) for d in devices], [f"D{k}" for k in range(len(devices))],
                                                  [{} for _ in devices]),
           "wells": FeatureLayer.from_sequences("wells", [Point(x, y) for x, y in wells], [f"W{k}" for k in range(len(wells))],
                                                [{"name": "dug well" if k % 2 else "drilled"} for k in range(len(wells))]),
           "septic": FeatureLayer.from_sequences("septic", [box(x, y, x + 20, y + 10) for x, y in septic], [f"S{k}" for k in range(len(septic))],
                                                 [{} for _ in septic])}
    return {r: layer for r, layer in out.items() if len(layer)}


_device = st.tuples(_xy, _xy, st.sampled_from(_KINDS))


@settings(max_examples=300, deadline=None)
@given(st.lists(_device, max_size=5), st.lists(st.tuples(_xy, _xy), max_size=3), st.lists(st.tuples(_xy, _xy), max_size=2),
       st.lists(st.tuples(st.integers(0, 4), _device), min_size=1, max_size=6), st.sampled_from(["", "dug"]))
def test_the_dem_windows_devices_box_and_lines_from_each_devices_kept_part_are_those_of_the_layer_found_whole(
        devices, wells, septic, moves, match):
    """A sitting of device moves (points, boxes, invalid bowties, empty, missing and NaN geometries; a device replaced by another
    kind): at each check, carrying the last one's values, the devices' box and each spec's lines' box from the devices' parts are
    those the layer's located geometries give whole, and those found with nothing kept."""
    specs = [("septic", ""), ("wells", match)]
    earlier = None
    devices = list(devices)
    for at, device in moves:
        if devices:
            devices[at % len(devices)] = device
        layers = _layers(devices, wells, septic)
        with using(Derived()):
            want = _outcome(partial(_former, layers, specs))
        with using(Derived(earlier)) as now:
            assert _same(_outcome(partial(_found, layers, specs)), want)
        assert _same(_outcome(partial(_found, layers, specs)), want)  # no Derived in use: computed directly
        earlier = now


def test_a_moved_device_alone_is_measured_again_and_the_window_follows_it():
    """DW-2 moved 0.1 ft east: the next check finds one device's part anew (DW-1's is kept), and the devices' box and the wells'
    lines' box move with it."""
    def layers(x: float) -> dict[str, FeatureLayer]:
        return {"devices": FeatureLayer.from_sequences("devices", [Point(0, 0), Point(x, 0)], ["DW-1", "DW-2"], [{}, {}]),
                "wells": FeatureLayer.from_sequences("wells", [Point(100, 0)], ["W1"], [{}])}

    first = Derived()
    with using(first):
        reads = dw._LayerReads(layers(50.0), [("wells", "")])
        assert reads.box(("devices",)) == (0.0, 0.0, 50.0, 0.0)
        assert reads.spec_lines() == {("wells", ""): (0.0, 0.0, 100.0, 0.0)}
    with using(Derived(first)) as second:
        reads = dw._LayerReads(layers(50.1), [("wells", "")])
        assert reads.box(("devices",)) == (0.0, 0.0, 50.1, 0.0)
        assert reads.spec_lines() == {("wells", ""): (0.0, 0.0, 100.0, 0.0)}
        assert second is not None and second.made == 1 and second.reused >= 1
