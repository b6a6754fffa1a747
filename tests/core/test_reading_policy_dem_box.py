"""The DEM box a read takes and a misplaced source's listing (services.reading_policy, services.role_merge)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from shapely.geometry import Point, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.services.placement_layers import all_features_entry
from stormwater_plugin.services.reading_policy import dem_read_box, plan_box, whole_dem
from stormwater_plugin.services.role_merge import ReadSource, merge_role


@dataclass
class _Dem:
    name: str = "dem.tif"
    cell_ft: float = 3.0


def _layers() -> dict[str, FeatureLayer]:
    return {
        "parcels": FeatureLayer.from_sequences("parcels", [box(-1000, -1000, 1000, 1000)], ["P-1"], [{"is_site": 1}]),
        "devices": FeatureLayer.from_sequences("devices", [Point(10, 20), None], ["DW-1", "DW-2"], [{}, {}]),
        "wells": FeatureLayer.from_sequences("wells", [Point(110, 20)], ["W-1"], [{}]),
    }


def test_plan_box_is_the_first_roles_box_grown_by_the_margin_and_every_layer_without_them():
    layers = _layers()
    assert plan_box(layers, ("devices", "wells"), 150.0) == (10.0 - 150, 20.0 - 150, 110.0 + 150, 20.0 + 150)
    assert plan_box(layers, ("streams",), 0.0) == (-1000.0, -1000.0, 1000.0, 1000.0)  # none of the first roles drawn: every layer
    assert plan_box({"devices": FeatureLayer.from_sequences("devices", [None], ["DW-1"], [{}])}, ("devices",), 10.0) is None


def test_without_a_pack_the_dem_box_is_each_readers_own_margin_around_the_plan():
    layers = _layers()
    cli = dem_read_box(layers, None, 1.0, _Dem(), None, [r for r in layers if r != "parcels"], 150.0)
    plugin = dem_read_box(layers, None, 1.0, _Dem(), None, ("devices", "wells"), 1000.0)
    assert cli == (-140.0, -130.0, 260.0, 170.0)
    assert plugin == (-990.0, -980.0, 1110.0, 1020.0)
    assert not whole_dem(cli)


def test_whole_dem_is_a_box_with_a_bound_not_finite():
    assert whole_dem((-math.inf, -math.inf, math.inf, math.inf))
    assert whole_dem((0.0, 0.0, math.inf, 1.0))
    assert not whole_dem((0.0, 0.0, 1.0, 1.0))


def test_a_misplaced_layer_lists_its_located_features_and_keeps_those_without_geometry():
    src = ReadSource("devices.shp", "devices", "UTM", 2, ["DW-1", "DW-2"], [Point(10, 20), None], [{}, {}], misplaced="lies 9 miles from the site")
    layer, warnings = merge_role("devices", [src])
    assert list(layer.ids) == ["DW-2"] and list(layer.geoms) == [None]
    assert layer.no_geometry == {"DW-1": "lies 9 miles from the site"}
    assert [(w.code, w.ids) for w in warnings] == [("layer_misplaced", ("DW-1",))]


def test_a_misplaced_layer_not_read_is_one_entry_for_all_its_features():
    entry = all_features_entry(5000, "streams.shp")
    layer, warnings = merge_role("streams", [ReadSource("streams.shp", "streams.shp", "UTM", 5000, [entry], misplaced="does not fit its CRS")])
    assert len(layer) == 0 and layer.no_geometry == {entry: "does not fit its CRS"}
    assert [w.code for w in warnings] == ["layer_misplaced"]

