"""One reading per term per pack (issue #21 item 8) and "cleared" read the same in both halves of §148-11I(3)(e)[3][b] (item 4)."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
from shapely.geometry import LineString, box

from stormwater_plugin.core.model import Status
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.roles import ROLES
from stormwater_plugin.core.rulepack import JURISDICTIONS, PACK_DIR, ROLE_PARAMS, load_pack, validate_pack_dict
from tests.sitebuilder import layer, run


def _roles_read(rule, key):
    items = rule.params.get(key) or []
    return [i["role"] if isinstance(i, dict) else i for i in items]


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_every_rule_naming_a_glossary_term_reads_the_terms_roles_the_same_way(jurisdiction):
    pack = load_pack(jurisdiction)
    raw = {r["id"]: r for r in pack.raw["rules"]}
    for term in pack.glossary:
        assert term.roles and set(term.roles) <= set(ROLES)
        assert term.reading and term.why and term.citation
        readers = [r for r in pack.rules if term.term in r.terms]
        assert readers, f"no rule reads {term.term!r}"
        for rule in pack.rules:
            reads_roles = any(rule.params.get(k) for k in ROLE_PARAMS)
            if not (reads_roles and term.named_in(rule.citation.excerpt)):
                continue
            if term.term in rule.terms:
                read = [r for k in ROLE_PARAMS for r in _roles_read(rule, k)]
                assert set(term.roles) <= set(read), (rule.id, term.term)
            else:
                # A rule split by target names the rule that reads the term for it.
                other = raw[rule.id].get("term_read_by", {}).get(term.term)
                assert other and term.term in pack.rule(other).terms, (rule.id, term.term)


def test_lake_george_water_body_includes_wetlands_in_every_rule_that_names_it():
    pack = load_pack("lake-george")
    wb = pack.term("water body")
    assert "wetlands" in wb.roles
    for rid in ("lake-george.fertilizer-50ft", "lake-george.major.downgradient-water-35", "lake-george.major.high-traffic-downgradient-100", "lake-george.minor.vehicle-area-advisory-100"):
        rule = pack.rule(rid)
        assert "water body" in rule.terms
        read = [r for k in ROLE_PARAMS for r in _roles_read(rule, k)]
        assert set(wb.roles) <= set(read), rid


def test_new_lawn_20_ft_from_a_wetland_is_within_the_50_ft_fertilizer_rule_148_11C_6():
    site = {
        "parcels": layer("parcels", [box(-300, 0, 0, 200)], ["SITE"], [{"is_site": 1}]),
        "shoreline": layer("shoreline", [LineString([(400, -500), (400, 700)])], ["MHW"], [{"waterbody": "Lake George"}]),
        "waterbodies": layer("waterbodies", []),
        "streams": layer("streams", []),
        "wetlands": layer("wetlands", [box(-150, 120, -100, 180)], ["WL1"]),
        "clearing": layer("clearing", [box(-150, 50, -100, 100)], ["LAWN1"], [{"use": "lawn"}]),
    }
    found = [f for f in run("lake-george", site).findings if f.rule_id == "lake-george.fertilizer-50ft"]
    (f,) = found
    # The same finding a lawn 20 ft from the shoreline gets: never a pass.
    assert f.status is Status.ADVISORY
    assert f.other is not None and f.other.id == "WL1"
    assert f.measured_ft == pytest.approx(20.0, abs=1e-6)


def test_a_rule_naming_a_term_without_reading_it_is_rejected_by_the_validator():
    data = json.loads((PACK_DIR / "lake-george.json").read_text(encoding="utf-8"))
    bad = copy.deepcopy(data)
    for r in bad["rules"]:
        if r["id"] == "lake-george.fertilizer-50ft":
            r["params"]["water_roles"] = ["shoreline", "waterbodies", "streams"]
    assert any("names 'water body'" in e for e in validate_pack_dict(bad))
    unknown = copy.deepcopy(data)
    unknown["rules"][0]["params"]["targets"] = [{"term": "no such term"}]
    assert any("does not define" in e for e in validate_pack_dict(unknown))
    odd = copy.deepcopy(data)
    odd["glossary"][0]["roles"] = ["lakes"]
    assert any("not contract roles" in e for e in validate_pack_dict(odd))
    assert validate_pack_dict(data) == []


def _plane(g_pct: float) -> ElevationGrid:
    n, cell, x0, y0 = 400, 1.0, -200.0, -200.0
    xs = x0 + (np.arange(n) + 0.5) * cell
    ys = y0 + n * cell - (np.arange(n) + 0.5) * cell
    xx, yy = np.meshgrid(xs, ys)
    t = math.radians(30.0)
    return ElevationGrid(400.0 + g_pct / 100 * (math.sin(t) * xx + math.cos(t) * yy), (x0, cell, 0.0, y0 + n * cell, 0.0, -cell), z_to_ft=1.0)


def test_20000_sq_ft_graded_on_a_20_pct_slope_without_a_clearing_layer_needs_cover_148_11I_3_e_3_b():
    site = {"disturbance": layer("disturbance", [box(-100, -50, 100, 50)], ["GRADE1"])}
    found = [f for f in run("lake-george", site, dem=_plane(20.0), project_class="major").findings if f.rule_id == "lake-george.major.clearing-slope-15-cover"]
    (f,) = found
    assert f.status is Status.ADVISORY and "24 hours" in f.message
    assert f.subject is not None and f.subject.layer == "disturbance"
    assert f.extra["steep_area_sqft"] == pytest.approx(20_000, rel=0.02)


def test_both_halves_of_148_11I_3_e_3_b_read_the_same_cleared_land():
    pack = load_pack("lake-george")
    slope = pack.rule("lake-george.major.clearing-slope-15-cover")
    near = pack.rule("lake-george.major.clearing-500ft-cover")
    assert slope.params["roles"] == near.params["removal_roles"] == list(pack.term("cleared land").roles)
    assert "disturbance" in slope.params["roles"]


def test_graded_and_cleared_areas_on_a_steep_slope_are_each_reported():
    site = {"clearing": layer("clearing", [box(-100, -50, 0, 50)], ["C1"]), "disturbance": layer("disturbance", [box(0, -50, 100, 50)], ["D1"])}
    found = [f for f in run("lake-george", site, dem=_plane(20.0), project_class="major").findings if f.rule_id == "lake-george.major.clearing-slope-15-cover"]
    assert sorted((f.subject.layer, f.status.value) for f in found) == [("clearing", "advisory"), ("disturbance", "advisory")]
