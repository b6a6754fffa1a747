"""Reviewer rows and Park-wide advisories of issue #21 item 13, each with its exact citation."""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, box

from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import layer, run


@pytest.mark.parametrize(
    "jurisdiction,rule_id,citation,classes",
    [
        ("lgpc", "lgpc.reviewer.maximum-attainable-separation", "6 NYCRR 646-4.14(a)(4)", ["minor"]),
        ("lgpc", "lgpc.reviewer.runoff-to-infiltration-device", "6 NYCRR 646-4.14(a)(1)", ["minor"]),
        ("lgpc", "lgpc.reviewer.inlet-protection", "6 NYCRR 646-4.14(a)(2)", ["minor"]),
        ("lake-george", "lake-george.reviewer.runoff-to-infiltration-device", "Town of Lake George Code §148-11I(2)(a)", ["minor"]),
        ("lake-george", "lake-george.reviewer.inlet-protection", "Town of Lake George Code §148-11I(2)(b)", ["minor"]),
        ("lake-george", "lake-george.reviewer.clear-cutting-approval", "Town of Lake George Code §148-11C(5)", ["exempt", "minor", "major"]),
    ],
)
def test_reviewer_row_with_its_citation(jurisdiction, rule_id, citation, classes):
    rule = load_pack(jurisdiction).rule(rule_id)
    assert rule.kind == "reviewer" and rule.citation.text == citation
    assert list(rule.applies["classes"]) == classes


def test_town_minor_project_clearing_near_the_lake_gets_the_park_wide_24_hour_cover_as_an_advisory_646_4_15_b():
    pack = load_pack("lake-george")
    park = pack.rule("lake-george.clearing-500ft-cover-park-advisory")
    shown = pack.rule("lake-george.minor.vehicle-area-advisory-100")
    # Shown as 646-4.14(a)(3) is on Town projects: the LGPC text, cited as such, advisory only.
    assert park.citation.source_file == shown.citation.source_file == "lgpc-6nycrr-646-4.txt"
    assert park.params["advisory_only"] is True and shown.params["advisory_only"] is True
    assert park.params["distance_ft"] == load_pack("lgpc").rule("lgpc.clearing-500ft-cover").params["distance_ft"]
    site = {
        "parcels": layer("parcels", [box(-300, 0, 0, 200)], ["SITE"], [{"is_site": 1}]),
        "shoreline": layer("shoreline", [LineString([(0, -500), (0, 700)])], ["MHW"], [{"waterbody": "Lake George"}]),
        "disturbance": layer("disturbance", [box(-200, 50, -100, 100)], ["D1"]),
    }
    for cls in ("exempt", "minor"):
        found = [f for f in run("lake-george", site, project_class=cls).findings if f.rule_id == park.id]
        assert found and all(f.status is Status.ADVISORY and "Park-wide" in f.message for f in found), cls
    assert not [f for f in run("lake-george", site, project_class="major").findings if f.rule_id == park.id]
