"""What the read finds of a pack once per pack object (issue 39): its rules reading the DEM, its roles' reaches.

A pack is frozen and loaded once; the live re-check reads at every edit, so the DEM window's rules
(``services.dem_window._dem_rules``) and the roles' reaches (``services.reading_policy._role_reaches``) are found once per pack
object (held) and, for the reaches, per DEM cell size. Another pack object or cell size finds them anew; the property holds the
window so found to the window of every rule of the pack.
"""

from __future__ import annotations

import dataclasses

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings
from shapely.geometry import Point, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services import dem_window as dw
from stormwater_plugin.services.intake import role_reaches_ft
from stormwater_plugin.services.reading_policy import _role_reaches

PACKS = ("lake-george", "mamakating", "lgpc")


@pytest.mark.parametrize("name", PACKS)
def test_the_reaches_are_found_once_per_pack_object_and_cell_size_and_anew_for_another(name, monkeypatch):
    from stormwater_plugin.services import reading_policy

    pack = load_pack(name)
    asked: list[float] = []
    monkeypatch.setattr(reading_policy, "role_reaches_ft", lambda p, c: asked.append(c) or role_reaches_ft(p, c))
    first = _role_reaches(pack, 3.28)
    assert first == role_reaches_ft(pack, 3.28) and asked == [3.28]
    first["devices"] = -1.0  # the caller's own copy
    assert _role_reaches(pack, 3.28) == role_reaches_ft(pack, 3.28) and asked == [3.28]
    assert _role_reaches(pack, 6.56) == role_reaches_ft(pack, 6.56) and asked == [3.28, 6.56]  # another cell size
    fewer = dataclasses.replace(pack, rules=pack.rules[: len(pack.rules) // 2])  # another pack object
    assert _role_reaches(fewer, 3.28) == role_reaches_ft(fewer, 3.28) and asked == [3.28, 6.56, 3.28]


@pytest.mark.parametrize("name", PACKS)
def test_the_dem_windows_rules_are_found_once_per_pack_object_and_anew_for_another(name):
    pack = load_pack(name)
    rules = dw._dem_rules(pack)
    assert rules and rules is dw._dem_rules(pack)
    assert rules == tuple(r for r in pack.rules if (k := dw.KINDS.get(r.kind)) is not None and k.dem is not None)
    fewer = dataclasses.replace(pack, rules=tuple(r for r in pack.rules if r is not rules[0]))
    assert dw._dem_rules(fewer) == rules[1:]


def _layers(dx: float) -> dict[str, FeatureLayer]:
    return {
        "parcels": FeatureLayer.from_sequences("parcels", [box(0, 0, 400, 400)], ["P-1"], [{"is_site": "yes"}]),
        "devices": FeatureLayer.from_sequences("devices", [Point(100 + dx, 100), box(200, 200, 210, 210)], ["DW-1", "T-1"],
                                               [{"device_type": "dry_well"}, {"device_type": "infiltration_trench"}]),
        "wells": FeatureLayer.from_sequences("wells", [Point(300, 50)], ["W-1"], [{}]),
        "septic": FeatureLayer.from_sequences("septic", [box(50, 300, 80, 330)], ["S-1"], [{}]),
        "building_sites": FeatureLayer.from_sequences("building_sites", [box(150, 150, 190, 190)], ["B-1"], [{}]),
        "disturbance": FeatureLayer.from_sequences("disturbance", [box(90, 90, 220, 220)], ["D-1"], [{}]),
    }


def _every_rules_window(layers: dict[str, FeatureLayer], pack, cell_ft: float) -> dw.DemWindow:
    """:func:`~stormwater_plugin.services.dem_window.dem_window` as it was: every rule of the pack asked for its part."""
    margin = dw.MARGIN_FT / 1.0
    reads = dw._LayerReads(layers, pack.rules)
    parts = [dw.WindowPart(r.id, b) for r in pack.rules if (b := dw._rule_part(r, reads, 1.0, cell_ft, margin)) is not None]
    siting = dw.siting_part(layers, pack, 1.0, None)
    return dw.DemWindow(tuple(parts + ([dw.WindowPart("siting envelope", siting)] if siting is not None else [])))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PACKS), st.data(), st.floats(-150, 150), st.sampled_from([0.0, 3.28, 10.0]))
def test_the_window_of_the_rules_reading_the_dem_equals_the_window_of_every_rule(name, data, dx, cell_ft):
    pack = load_pack(name)
    keep = data.draw(st.lists(st.booleans(), min_size=len(pack.rules), max_size=len(pack.rules)))
    pack = dataclasses.replace(pack, rules=tuple(r for r, k in zip(pack.rules, keep) if k))
    layers = _layers(dx)
    assert dw.dem_window(layers, pack, unit_to_ft=1.0, cell_ft=cell_ft) == _every_rules_window(layers, pack, cell_ft)
