"""What the read finds of a pack once per pack object (issue 39): its rules' parts of the DEM window, its roles' reaches.

A pack is frozen and loaded once; the live re-check reads at every edit, so each DEM rule's part of the window as its kind and
parameters declare it (``services.dem_window._pack_needs``) and the roles' reaches (``services.reading_policy._role_reaches``) are
found once per pack object (held) and DEM cell size. Another pack object or cell size finds them anew; the property holds the
window so found to the window of every rule of the pack found from its parameters at each window, as it was."""

from __future__ import annotations

import dataclasses

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings
from shapely.geometry import Point, box

from stormwater_plugin.core.geometry_arrays import total_box
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.siting.gradient import READ_BEYOND_CELLS
from stormwater_plugin.core.siting.grid import grid_cell
from stormwater_plugin.core.siting.model import DEFAULT_CELL_FT
from stormwater_plugin.services import dem_window as dw
from stormwater_plugin.services.intake import role_reaches_ft
from stormwater_plugin.services.reach import ENVELOPE_KINDS, envelope_reach_ft
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
def test_the_dem_windows_needs_are_found_once_per_pack_object_and_cell_size_and_anew_for_another(name):
    pack = load_pack(name)
    needs = dw._pack_needs(pack, 3.28)
    assert needs.needs and needs is dw._pack_needs(pack, 3.28)
    assert [n.need for n in needs.needs] == [r.id for r in pack.rules if _former_rule_part(r, _reads(_layers(0.0), pack), 1.0, 3.28, 20.0) is not None]
    other = dw._pack_needs(pack, 6.56)  # another cell size: the flow trace's first window grows with the cells
    assert other is not needs and other is dw._pack_needs(pack, 6.56)
    assert [n.reach_ft for n in other.needs] == [dw.rule_dem_reach_ft(r, 6.56) for r in pack.rules if r.id in {n.need for n in other.needs}]
    if any(n.part == "flow_trace" for n in needs.needs):
        assert [n.reach_ft for n in other.needs] != [n.reach_ft for n in needs.needs]
    fewer = dataclasses.replace(pack, rules=tuple(r for r in pack.rules if r.id != needs.needs[0].need))  # another pack object
    assert [n.need for n in dw._pack_needs(fewer, 3.28).needs] == [n.need for n in needs.needs[1:]]


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


def _former_lines_box(reads: dw._LayerReads, rule) -> dw.Bounds | None:
    """The box of a rule's lines as it was found: its target specs read at each window, duplicates and all."""
    lines = reads.spec_lines()
    return dw._union([b for spec in rule.params.get("targets", []) if isinstance(spec, dict)
                      and (b := lines.get((str(spec.get("role")), str(spec.get("name_matches", "")).lower()))) is not None])


def _former_rule_part(rule, reads: dw._LayerReads, u: float, cell_ft: float, margin: float) -> dw.Bounds | None:
    """A rule's part of the window as it was found: from the rule's kind and parameters at each window."""
    spec = dw.KINDS.get(rule.kind)
    part = spec.dem if spec is not None else None
    if part is None:
        return None
    reach = dw.rule_dem_reach_ft(rule, cell_ft) / u
    if part == "gradient_setback":
        if str(rule.params.get("gradient", "any")) == "any":
            return None
        parts = [b for b in (dw._grown_box(reads.box(("devices",)), reach + margin), dw._grown_box(_former_lines_box(reads, rule), margin)) if b is not None]
        return dw._union(parts)
    if part in ("building_sites", "devices"):
        return dw._grown_box(reads.box((part,)), reach + margin)
    if part == "clearing":
        roles = [str(r) for r in rule.params.get("roles", ["clearing"])]
        role = next((r for r in roles if r in reads.layers), None)
        return dw._grown_box(reads.box((role,)), margin) if role else None
    if part == "flow_trace":
        activity = tuple(str(r) for r in rule.params.get("activity_roles", ["disturbance"]))
        return dw._grown_box(reads.box(activity), reach + margin) if activity else None
    return None


def _reads(layers: dict[str, FeatureLayer], pack) -> dw._LayerReads:
    """The layers as every gradient rule of the pack reads them, its target specs found from each rule's parameters as they were."""
    return dw._LayerReads(layers, list(dict.fromkeys(
        (str(spec.get("role")), str(spec.get("name_matches", "")).lower())
        for rule in pack.rules if (kind := dw.KINDS.get(rule.kind)) is not None and kind.dem == "gradient_setback"
        and str(rule.params.get("gradient", "any")) != "any"
        for spec in rule.params.get("targets", []) if isinstance(spec, dict))))


def _former_siting(geoms: list, reach_ft: float) -> tuple[float, float, float, float] | None:
    """The site parcels grown by the envelope's reach, SITING_PAD_FT and READ_BEYOND_CELLS of the envelope grid's default cells
    over their box (session 18: how far past the reach its reading tiles read), written out from the box of the geometries."""
    if not geoms:
        return None
    b = tuple(float(v) for v in total_box(geoms))
    beyond = READ_BEYOND_CELLS * grid_cell(b, DEFAULT_CELL_FT, 1.0) * (1 + 1e-9)
    return dw._grown(geoms, (reach_ft + dw.SITING_PAD_FT) / 1.0 + beyond)


def _every_rules_window(layers: dict[str, FeatureLayer], pack, cell_ft: float) -> dw.DemWindow:
    """:func:`~stormwater_plugin.services.dem_window.dem_window` as it was: every rule of the pack asked for its part from its kind and
    parameters, the envelope's presence and reach from the pack's rules."""
    margin = dw.MARGIN_FT / 1.0
    reads = _reads(layers, pack)
    parts = [dw.WindowPart(r.id, b) for r in pack.rules if (b := _former_rule_part(r, reads, 1.0, cell_ft, margin)) is not None]
    siting = (_former_siting(dw._site_parcel_geoms(layers, None), envelope_reach_ft(pack))
              if any(r.kind in ENVELOPE_KINDS for r in pack.rules) else None)
    return dw.DemWindow(tuple(parts + ([dw.WindowPart("siting envelope", siting)] if siting is not None else [])))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PACKS), st.data(), st.floats(-150, 150), st.sampled_from([0.0, 3.28, 10.0]))
def test_the_window_of_the_rules_reading_the_dem_equals_the_window_of_every_rule(name, data, dx, cell_ft):
    pack = load_pack(name)
    keep = data.draw(st.lists(st.booleans(), min_size=len(pack.rules), max_size=len(pack.rules)))
    pack = dataclasses.replace(pack, rules=tuple(r for r, k in zip(pack.rules, keep) if k))
    layers = _layers(dx)
    assert dw.dem_window(layers, pack, unit_to_ft=1.0, cell_ft=cell_ft) == _every_rules_window(layers, pack, cell_ft)
