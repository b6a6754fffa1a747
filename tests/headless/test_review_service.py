"""services.review: the findings.json document built once, decisions applied in memory, typed moves and rules not checked."""

from __future__ import annotations

import copy
import json

import pytest

from stormwater_plugin.core.engine import REVIEWER_REASON
from stormwater_plugin.core.overrides import make_override
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services.review import (
    FOR_REVIEWER,
    MISSING_INPUT,
    ComparisonError,
    Move,
    Notification,
    not_checked,
    review_of,
)
from stormwater_plugin.services.session import CLEARED, MOVES, REVIEW, ReviewSession

MOVE = {
    "device": {"layer": "devices", "id": "DW-1"},
    "device_type": "dry_well",
    "high_traffic": False,
    "rules": ["lake-george.minor.septic-upgradient-20"],
    "geometry_type": "Point",
    "possible": True,
    "from": [608281.733, 4817195.0],
    "to": [608279.899, 4817195.0],
    "distance_ft": 6.02,
    "bearing_deg": 270.0,
    "method": "nearest point of the siting envelope for this device type and traffic class",
    "verified": True,
    "envelope_cell_ft": 1.0,
    "message": "Move device DW-1 6.0 ft toward 270° (W) to clear lake-george.minor.septic-upgradient-20.",
}


def test_a_move_is_typed_and_keeps_its_findings_json_form_key_for_key():
    m = Move.from_dict(MOVE)
    assert (m.device_id, m.possible, m.start, m.end, m.distance_ft, m.bearing_deg) == ("DW-1", True, (608281.733, 4817195.0), (608279.899, 4817195.0), 6.02, 270.0)
    assert m.rules == ("lake-george.minor.septic-upgradient-20",) and m.drawable
    assert json.dumps(m.as_dict()) == json.dumps(MOVE)  # same keys, same order
    assert m["device"]["id"] == "DW-1" and m.get("verified") is True


def test_a_failed_move_suggestion_without_a_device_is_an_impossible_move():
    m = Move.from_dict({"possible": False, "reason": "move suggestions failed: RuntimeError: x"})
    assert (m.device_id, m.possible, m.drawable, m.reason) == ("?", False, False, "move suggestions failed: RuntimeError: x")


def test_rules_not_checked_are_the_reviewers_by_the_rule_kind_not_by_the_message():
    pack = load_pack("lake-george")
    reviewer = next(r for r in pack.rules if r.kind == "reviewer")
    other = next(r for r in pack.rules if r.kind == "device_setback")
    entries = [
        {"rule_id": reviewer.id, "citation": "c", "title": "t", "reason": "any words at all"},
        {"rule_id": other.id, "citation": "c", "title": "t", "reason": "for the reviewer: words that look like it"},
        {"rule_id": "lake-george.retired-rule", "citation": "c", "title": "t", "reason": REVIEWER_REASON},
        {"rule_id": "lake-george.retired-rule-2", "citation": "c", "title": "t", "reason": "no devices layer"},
    ]
    kinds = [n.kind for n in not_checked(entries, "lake-george")]
    assert kinds == [FOR_REVIEWER, MISSING_INPUT, FOR_REVIEWER, MISSING_INPUT]


def test_notification_is_typed():
    n = Notification.from_dict({"adjacent": [{"id": "P-2"}], "within_500ft": [{"id": "P-2"}, {"id": "P-3"}],
                                "owners": [{"parcels": ["P-2"]}], "radius_ft": 500})
    assert n.adjacent_ids == {"P-2"} and n.listed_parcels == {"P-2"} and len(n.within_radius) == 2 and n.radius_ft == 500.0


def _result():
    pytest.importorskip("fiona")
    from pathlib import Path

    from stormwater_plugin.headless.reader import read_site

    repo = Path(__file__).resolve().parents[2]
    pack = load_pack("lake-george")
    loaded = read_site(repo / "resources/demo/site.gpkg", [], repo / "resources/demo/dem.tif", None, None, None, pack=pack)
    from stormwater_plugin.core.engine import run_check

    return loaded, run_check(loaded.inputs, pack)


def test_decisions_are_applied_in_memory_and_the_comparison_added_once():
    _loaded, result = _result()
    plain = review_of(result, crs_name="X", moves=[MOVE])
    key = next(f["key"] for f in plain.doc["findings"] if f["status"] == "violation")
    waived = review_of(result, crs_name="X", moves=[MOVE], overrides=[make_override(key, "waived", "variance", "J. Smith")])
    row = next(f for f in waived.doc["findings"] if f["key"] == key)
    assert (row["status"], row["effective_status"]) == ("violation", "waived")
    assert waived.violations_unresolved == plain.violations_unresolved - 1
    assert waived.doc["moves"] == [MOVE] and list(waived.doc)[-1] == "moves"
    assert "moves" not in review_of(result).doc  # moves not looked for: no key (Processing's document)
    cmp = review_of(result, previous=plain.doc, previous_label="earlier").doc["comparison"]
    assert cmp["previous"] == "earlier" and cmp["counts"]["still_open"] >= 1
    with pytest.raises(ComparisonError):
        review_of(result, previous={**plain.doc, "jurisdiction": "lgpc"})


def test_the_session_drops_a_late_result_and_moves_of_an_earlier_result():
    _loaded, result = _result()

    class Snap:
        class inputs:  # noqa: N801 - a stand-in
            crs_name = "X"

    s = ReviewSession()
    seen: list[str] = []
    s.subscribe(seen.append)
    before = s.ticket()
    s.set_result(result, Snap(), [])
    for_moves = s.ticket(for_result=True)
    assert s.is_current(before) and s.is_current(for_moves)
    s.set_moves([MOVE], [])
    assert s.doc is not None and s.doc["moves"] == [MOVE] and seen[-1] == MOVES
    s.rebuild([])
    assert seen[-1] == REVIEW
    s.set_result(copy.copy(result), Snap(), [])  # a new run: moves computed for the earlier result are dropped
    assert s.is_current(before) and not s.is_current(for_moves)
    s.clear()
    assert seen[-1] == CLEARED and not s.is_current(before) and s.doc is None


def test_the_session_applies_a_decision_to_the_review_without_serialising_the_result_again(monkeypatch):
    """Issue 23: one path applies decisions (Review.decided); the dock's session never rebuilds the document from the result."""
    from stormwater_plugin.services import findings_doc as review_module

    _loaded, result = _result()

    class Snap:
        class inputs:  # noqa: N801 - a stand-in
            crs_name = "X"

    first = review_of(result, crs_name="X").with_section("completeness", {"complete": False, "missing": ["a"]})
    key = next(f["key"] for f in first.doc["findings"] if f["status"] == "violation")
    decision = make_override(key, "waived", "variance", "J. Smith")
    calls: list[int] = []
    real = review_module.result_sections
    monkeypatch.setattr(review_module, "result_sections", lambda *a, **k: calls.append(1) or real(*a, **k))
    s = ReviewSession()
    s.set_result(result, Snap(), [], review=first)
    s.set_moves([MOVE], [])
    s.rebuild([decision])
    export = s.for_report([decision], {"site": "demo.gpkg"})
    assert calls == []  # the task's review was reused: decisions, moves and inputs only
    monkeypatch.setattr(review_module, "result_sections", real)
    expected = review_of(result, crs_name="X", moves=[MOVE], overrides=[decision])
    assert s.doc is not None and s.doc["findings"] == expected.doc["findings"] and s.doc["override_counts"] == expected.doc["override_counts"]
    assert s.doc["completeness"] == {"complete": False, "missing": ["a"]}  # kept through decisions
    assert export.doc["inputs"] == {"site": "demo.gpkg"} and s.doc["inputs"] == {}  # the export's review leaves the session's as it is
    s.rebuild([])
    assert next(f for f in s.doc["findings"] if f["key"] == key)["effective_status"] == "violation"
