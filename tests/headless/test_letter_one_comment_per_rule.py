"""The letter gives one comment per feature and rule: a device too close to several features under one rule is one change.

6 NYCRR 646-4.14(a)(3): "Infiltration devices for roadways, parking lots, and other areas subject to vehicle traffic
shall not be installed within 100 feet of any water well, wetland or water body." A paved device 80 ft from the
shoreline and 80 ft from the water body behind it breaks the rule twice, and moving it settles both: the letter says it
once, led by the governing finding (the largest shortfall, then the nearest), naming the other feature and its distance.
The findings stay one per pair.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.services.letter import new_comments

RULE = "lgpc.minor.vehicle-area-100"
CITATION = "6 NYCRR 646-4.14(a)(3)"
NOUN = {"shoreline": "shoreline", "waterbodies": "water body", "wells": "well"}


def _finding(layer: str, fid: str, measured: float, required: float = 100.0) -> dict:
    other = f"{NOUN[layer]} {fid}"
    short = round(required - measured, 2)
    return {
        "key": f"{RULE}|devices:PP-1|{layer}:{fid}", "rule_id": RULE, "kind": "device_setback", "status": "violation",
        "citation": CITATION, "subject": {"layer": "devices", "id": "PP-1"}, "other": {"layer": layer, "id": fid},
        "measured_ft": measured, "required_ft": required, "details": {"shortfall_ft": short},
        "message": f"device PP-1 is {measured:.1f} ft from {other} (required {required:g} ft): {short:.1f} ft short.",
    }


def _comments(findings: list[dict]) -> list:
    moves = [{"device": {"layer": "devices", "id": "PP-1"}, "possible": True, "distance_ft": 20.1, "bearing_deg": 270.0}]
    return [c for c in new_comments({"findings": findings, "moves": moves}, first_number=1, round_no=1) if c.status == "violation"]


@pytest.mark.parametrize("wb_ft,governs", [(79.9, "WB-1"), (80.0, "SH-1"), (80.1, "SH-1")])
def test_within_100_ft_of_a_shoreline_and_a_water_body_is_one_comment_led_by_the_nearest_646_4_14_a_3(wb_ft, governs):
    """Shoreline SH-1 at 80.0 ft, water body WB-1 at 79.9 / 80.0 / 80.1 ft: one comment; the nearer governs (a tie by key)."""
    findings = [_finding("shoreline", "SH-1", 80.0), _finding("waterbodies", "WB-1", wb_ft)]
    (c,) = _comments(findings)
    assert c.keys == tuple(sorted(f["key"] for f in findings))
    assert "SH-1" in c.text and "WB-1" in c.text
    lead = "shoreline SH-1" if governs == "SH-1" else "water body WB-1"
    assert c.text.startswith(f"Device PP-1 is {(80.0 if governs == 'SH-1' else wb_ft):.1f} ft from {lead} (required 100 ft)")
    assert c.measured_ft == (80.0 if governs == "SH-1" else wb_ft)
    assert c.ref.endswith(governs)
    assert c.fix is not None and c.fix.startswith("Move PP-1")
    assert "inside the same 100 ft" in c.text


def test_two_rules_or_two_devices_stay_two_comments_646_4_14_a_3():
    other_device = dict(_finding("wells", "W-1", 90.0), key=f"{RULE}|devices:DW-2|wells:W-1", subject={"layer": "devices", "id": "DW-2"})
    other_rule = dict(_finding("wells", "W-1", 90.0), key="lgpc.major.x|devices:PP-1|wells:W-1", rule_id="lgpc.major.x")
    assert len(_comments([_finding("shoreline", "SH-1", 80.0), other_device])) == 2
    assert len(_comments([_finding("shoreline", "SH-1", 80.0), other_rule])) == 2


@settings(max_examples=30, deadline=None)
@given(st.permutations([("shoreline", "SH-1", 80.0), ("waterbodies", "WB-1", 85.5), ("wells", "W-1", 99.9)]))
def test_the_comment_does_not_depend_on_the_order_of_the_features(order):
    (c,) = _comments([_finding(*x) for x in order])
    (c0,) = _comments([_finding("shoreline", "SH-1", 80.0), _finding("waterbodies", "WB-1", 85.5), _finding("wells", "W-1", 99.9)])
    assert (c.text, c.keys, c.ref, c.measured_ft) == (c0.text, c0.keys, c0.ref, c0.measured_ft)
    assert c.text.endswith("It is also 85.5 ft from water body WB-1 and 99.9 ft from well W-1, inside the same 100 ft.")
