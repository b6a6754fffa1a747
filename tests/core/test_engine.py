"""Engine-level behaviour: cancellation, ordering, rules not applicable."""

from __future__ import annotations

import pytest
from shapely.geometry import Point

from stormwater_plugin.core.engine import CheckCancelled, run_check
from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import layer, run


def test_progress_callback_can_cancel_between_rules():
    calls = []

    def progress(fraction):
        calls.append(fraction)
        return len(calls) < 3

    inputs = SiteInputs(layers={"wells": layer("wells", [Point(0, 0)])}, dem=None, unit_to_ft=1.0, class_override="minor")
    with pytest.raises(CheckCancelled):
        run_check(inputs, load_pack("lgpc"), progress=progress)
    assert calls == sorted(calls) and calls[0] == 0.0


def test_findings_are_ordered_worst_first():
    result = run("lgpc", {"devices": layer("devices", [Point(0, 0)], ["D1"], [{"high_traffic": 1}]), "wells": layer("wells", [Point(10, 0)])})
    ranks = [f.status.rank for f in result.findings]
    assert ranks == sorted(ranks)


def test_rules_for_another_class_are_listed_as_not_applicable():
    result = run("lgpc", {}, project_class="minor")
    ids = {r["rule_id"] for r in result.rules_not_applicable}
    assert "lgpc.major.septic-recharge-100" in ids and "lgpc.minor.septic-upgradient-20" not in ids
