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
