"""Issue 23 item 4: the report's inventory radius comes from the pack's plot-plan rule (646-4.13(a)(7)), never from the code."""

from __future__ import annotations

import pytest

from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.report.model import inventory_radius_ft


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_inventory_radius_is_the_distance_of_the_packs_plot_plan_rule_646_4_13_a_7(jurisdiction):
    pack = load_pack(jurisdiction)
    rule = next(r for r in pack.rules if r.kind == "plot_plan_inventory")
    assert inventory_radius_ft(jurisdiction) == float(rule.params["distance_ft"])


def test_a_pack_without_a_plot_plan_rule_gets_no_inventory_radius_mamakating():
    assert not any(r.kind == "plot_plan_inventory" for r in load_pack("mamakating").rules)
    assert inventory_radius_ft("mamakating") is None


def test_an_unknown_pack_gets_no_inventory_radius():
    assert inventory_radius_ft("no-such-town") is None


# --- the notification radius and the slope distance: the pack's, read through the findings document ---------------

from stormwater_plugin.report.model import _building_sites, _figures, _notification, review_document  # noqa: E402


def test_notification_radius_is_the_packs_and_absent_without_a_notification_rule_mamakating():
    """No notification rule (Mamakating): no radius, no ring figure; never a radius the code supplies."""
    none = _notification(review_document({"notification": {}}), {})
    assert none["radius_ft"] is None and not none["computed"]
    assert [f["id"] for f in _figures(none, [])] == ["site_map"]
    block = {"rule_id": "x.notification", "citation": "§1", "radius_ft": 640.0, "radius_required": True}
    some = _notification(review_document({"notification": block}), {})
    assert some["radius_ft"] == 640.0 and "640 ft" in some["scope"]
    ring = next(f for f in _figures(some, []) if f["id"] == "notification_map")
    assert "640 ft" in ring["title"]


def test_building_site_slope_caption_states_the_distance_of_its_rule_never_a_fixed_one():
    doc = {"building_sites": [{"id": "B1", "slope_100ft_pct": 9.0, "profile": [[0.0, 9.0], [90.0, 4.0]]}],
           "findings": [{"kind": "building_site_slope", "subject": {"layer": "building_sites", "id": "B1"},
                         "details": {"threshold_pct": 15.0, "distance_ft": 75.0}}]}
    rows = _building_sites(review_document(doc), {})
    cap = next(f for f in _figures({"radius_ft": None}, rows) if f["id"] == rows[0]["figure"])["caption"]
    assert cap.startswith("Slope over 75 ft ")
    rows[0]["distance_ft"] = None
    assert next(f for f in _figures({"radius_ft": None}, rows) if f["id"] == rows[0]["figure"])["caption"].startswith("Slope by direction")
