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


def test_progress_is_reported_at_the_start_and_before_each_rule_run_only():
    """A rule not applicable to the class, or left to the reviewer, takes no time: no report (nor Cancel asked) before it (#39)."""
    calls: list[float] = []
    pack = load_pack("lgpc")
    inputs = SiteInputs(layers={"wells": layer("wells", [Point(0, 0)])}, dem=None, unit_to_ft=1.0, class_override="minor")
    result = run_check(inputs, pack, progress=lambda fraction: calls.append(fraction) is None)
    n = len(pack.rules)
    skipped = {r["rule_id"] for r in result.rules_not_applicable} | {r.id for r in pack.rules if r.kind == "reviewer"}
    assert skipped and calls[0] == 0.0 and calls == sorted(calls)
    reported = [pack.rules[round(f * n)] for f in calls[1:]]
    assert reported and not any(r.id in skipped for r in reported)
    assert len(calls) == 1 + sum(1 for k, r in enumerate(pack.rules) if k and r.id not in skipped)


def test_findings_are_ordered_worst_first():
    result = run("lgpc", {"devices": layer("devices", [Point(0, 0)], ["D1"], [{"high_traffic": 1}]), "wells": layer("wells", [Point(10, 0)])})
    ranks = [f.status.rank for f in result.findings]
    assert ranks == sorted(ranks)


def test_rules_for_another_class_are_listed_as_not_applicable():
    result = run("lgpc", {}, project_class="minor")
    ids = {r["rule_id"] for r in result.rules_not_applicable}
    assert "lgpc.major.septic-recharge-100" in ids and "lgpc.minor.septic-upgradient-20" not in ids


def test_the_accuracy_tables_are_each_pack_objects_own():
    """Kept by pack object (a pack is frozen): another pack, or the same pack with other rules, reads its own tables (#39)."""
    import dataclasses

    from stormwater_plugin.core.engine import _accuracy_tables

    lgpc, lake_george = load_pack("lgpc"), load_pack("lake-george")
    for pack in (lgpc, lake_george, lgpc):
        thresholds, words, notes = _accuracy_tables(pack)
        assert set(words) <= {r.id for r in pack.rules} and set(thresholds) <= set(words) | {r.id for r in pack.rules}
        assert _accuracy_tables(pack) == (thresholds, words, notes)
    fewer = dataclasses.replace(lake_george, rules=[r for r in lake_george.rules if r.id not in _accuracy_tables(lake_george)[1]][:1])
    assert _accuracy_tables(fewer)[1] == {}
