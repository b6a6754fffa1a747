"""Reviewer overrides: stable keys, the sidecar format, decisions kept beside the computed status, stale ones reported."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from stormwater_plugin.core.model import FeatureRef
from stormwater_plugin.core.overrides import (
    OverrideError,
    annotate_document,
    dumps_overrides,
    finding_dict_keys,
    finding_key,
    finding_keys,
    loads_overrides,
    make_override,
    override_template,
    remove_override,
    set_override,
    unresolved_violations,
)
from stormwater_plugin.core.serialize import result_to_dict
from stormwater_plugin.services.review import review_of
from tests.sitebuilder import device, layer, plane_dem, run, septic_square


def _site():
    """A dry well 15 ft upgradient of a septic field (violation) and one 60 ft away (pass)."""
    (g1, a1), (g2, a2) = device(-25.0, 0.0, id="D1"), device(-70.0, 0.0, id="D2")
    layers = {
        "devices": layer("devices", [g1, g2], ["D1", "D2"], [a1, a2]),
        "septic": layer("septic", [septic_square()], ["S1"]),
        "parcels": layer("parcels", [box(-200, -200, 200, 200)], ["P1"], [{"is_site": 1}]),
    }
    # ground falls 10 ft per 100 ft toward +x: the devices (west) are upgradient of the septic field
    return run("lgpc", layers, dem=plane_dem(-300, -300, 600, 5, -0.1, 0.0))


def _doc(overrides=None):
    # decisions are applied by the review only (services.review.Review.decided)
    return review_of(_site(), overrides=overrides or ()).doc


def test_key_is_rule_subject_and_other():
    assert finding_key("r.x", FeatureRef("devices", "D1"), FeatureRef("septic", "S1")) == "r.x|devices:D1|septic:S1"
    assert finding_key("r.x", {"layer": "devices", "id": "D1"}, None) == "r.x|devices:D1|-"
    assert finding_key("r.y", None, None) == "r.y|-|-"


def test_every_finding_of_a_run_has_a_unique_key_equal_for_objects_and_dicts():
    result = _site()
    doc = result_to_dict(result)
    keys = [f["key"] for f in doc["findings"]]
    assert len(set(keys)) == len(keys)
    assert keys == finding_keys(result.findings) == finding_dict_keys(doc["findings"])
    assert all(f["override"] is None and f["effective_status"] == f["status"] for f in doc["findings"])
    assert doc["stale_overrides"] == []


def test_repeated_keys_are_told_apart_by_a_detail_else_numbered():
    a = {"rule_id": "r", "subject": {"layer": "devices", "id": "D1"}, "other": None, "details": {"limit": "shgw_elev_ft"}}
    b = {"rule_id": "r", "subject": {"layer": "devices", "id": "D1"}, "other": None, "details": {"limit": "bedrock_elev_ft"}}
    assert finding_dict_keys([a, b]) == ["r|devices:D1|-|limit=shgw_elev_ft", "r|devices:D1|-|limit=bedrock_elev_ft"]
    # order does not matter: the key follows the finding, not its position
    assert finding_dict_keys([b, a]) == ["r|devices:D1|-|limit=bedrock_elev_ft", "r|devices:D1|-|limit=shgw_elev_ft"]
    c = {"rule_id": "r", "subject": None, "other": None, "details": {}}
    assert finding_dict_keys([c, dict(c), dict(c)]) == ["r|-|-", "r|-|-#2", "r|-|-#3"]


def test_override_follows_a_finding_whose_sibling_disappeared():
    o = make_override("r|devices:D1|-|limit=bedrock_elev_ft", "waived", "variance V-1", "J. Smith")
    doc = {
        "findings": [
            {
                "rule_id": "r",
                "status": "violation",
                "subject": {"layer": "devices", "id": "D1"},
                "other": None,
                "details": {"limit": "bedrock_elev_ft"},
            }
        ]
    }
    annotate_document(doc, [o])
    f = doc["findings"][0]
    assert f["key"] == "r|devices:D1|-"
    assert f["override"]["decision"] == "waived" and f["override"]["key"] == o.key
    assert doc["stale_overrides"] == []


def test_round_trip_through_the_sidecar_file_keeps_the_computed_status():
    doc = _doc()
    violation = next(f for f in doc["findings"] if f["status"] == "violation")
    o = make_override(violation["key"], "Waived", "Variance ZBA-2026-14 granted", "Zoë Ménard", "2026-03-05", "violation")
    text = dumps_overrides([o])
    assert "Zoë Ménard" in text  # kept as written, not \u-escaped
    back = loads_overrides(text)
    assert back == [o] and back[0].decision == "waived"

    doc2 = _doc(back)
    f = next(x for x in doc2["findings"] if x["key"] == violation["key"])
    assert f["status"] == "violation"  # never replaced
    assert f["effective_status"] == "waived"
    assert f["override"] == {
        "decision": "waived",
        "reason": "Variance ZBA-2026-14 granted",
        "reviewer": "Zoë Ménard",
        "date": "2026-03-05",
        "status_when_made": "violation",
    }
    assert doc2["counts"]["violation"] == doc["counts"]["violation"]
    n_viol = doc["counts"]["violation"]
    assert doc2["override_counts"]["violations_overridden"] == 1
    assert doc2["override_counts"]["violations_unresolved"] == n_viol - 1 == unresolved_violations(doc2)
    json.dumps(doc2)  # still JSON


def test_stale_override_is_reported_and_not_applied():
    o = make_override("lgpc.minor.septic-upgradient-20|devices:GONE|septic:S1", "accepted", "device removed from the plan", "J. Smith")
    doc = _doc([o])
    assert doc["stale_overrides"] == [o.as_dict()]
    assert doc["override_counts"]["stale"] == 1
    assert all(f["override"] is None for f in doc["findings"])


def test_changed_status_is_flagged():
    doc = _doc()
    passing = next(f for f in doc["findings"] if f["status"] == "pass")
    o = make_override(passing["key"], "accepted", "checked in the field", "J. Smith", status_when_made="undetermined")
    f = next(x for x in _doc([o])["findings"] if x["key"] == passing["key"])
    assert f["override"]["status_changed"] is True


@pytest.mark.parametrize(
    "entry,needle",
    [
        ({"key": "k", "decision": "ignored", "reason": "r", "reviewer": "x"}, "decision"),
        ({"key": "k", "decision": "waived", "reason": " ", "reviewer": "x"}, "reason"),
        ({"key": "k", "decision": "waived", "reason": "r", "reviewer": ""}, "reviewer"),
        ({"key": "", "decision": "waived", "reason": "r", "reviewer": "x"}, "key"),
        ({"key": "k", "decision": "waived", "reason": "r", "reviewer": "x", "date": "05/03/2026"}, "ISO date"),
    ],
)
def test_unusable_entries_are_refused_with_the_entry_number(entry, needle):
    with pytest.raises(OverrideError, match=needle) as exc:
        loads_overrides(json.dumps({"overrides": [entry]}), "ov.json")
    assert "ov.json: override #1" in str(exc.value)


def test_file_level_errors():
    with pytest.raises(OverrideError, match="not valid JSON"):
        loads_overrides("{nope", "ov.json")
    with pytest.raises(OverrideError, match="twice"):
        e = {"key": "k", "decision": "waived", "reason": "r", "reviewer": "x"}
        loads_overrides(json.dumps([e, e]))
    with pytest.raises(OverrideError, match="format"):
        loads_overrides(json.dumps({"format": "something-else", "overrides": []}))
    with pytest.raises(OverrideError, match="version"):
        loads_overrides(json.dumps({"format": "stormwater-check-overrides", "version": 99, "overrides": []}))


def test_a_bare_list_and_extra_fields_are_read():
    got = loads_overrides(json.dumps([{"key": "k", "decision": "accepted", "reason": "r", "reviewer": "x", "finding": "a note"}]))
    assert [o.key for o in got] == ["k"]


def test_set_and_remove_keep_one_decision_per_key():
    a = make_override("k", "accepted", "r1", "x")
    b = make_override("k", "waived", "r2", "y")
    c = make_override("j", "accepted", "r3", "x")
    assert set_override([a, c], b) == [c, b]
    assert remove_override([a, c], "k") == [c]


def test_template_lists_violations_and_undetermined_for_the_reviewer_to_fill():
    doc = _doc()
    t = json.loads(override_template(doc, reviewer="J. Smith"))
    assert {e["key"] for e in t["overrides"]} == {f["key"] for f in doc["findings"] if f["status"] in ("violation", "undetermined")}
    with pytest.raises(OverrideError):  # not loadable until decided
        loads_overrides(json.dumps(t))


# --- the keys told apart and the decisions applied, by the shortcuts against the former readings (issue 39) ----------


def _unique_as_it_was(items):
    from stormwater_plugin.core.overrides import _qualifier

    groups: dict[str, list[int]] = {}
    for i, (b, _d) in enumerate(items):
        groups.setdefault(b, []).append(i)
    out = [b for b, _d in items]
    for b, idx in groups.items():
        if len(idx) < 2:
            continue
        q = _qualifier([items[i][1] or {} for i in idx])
        for n, i in enumerate(idx, start=1):
            if q is not None:
                out[i] = f"{b}|{q}={items[i][1][q]}"
            elif n > 1:
                out[i] = f"{b}#{n}"
    return out


_BASES = st.sampled_from(["r|devices:DW-1|-", "r|devices:DW-2|-", "s|-|-", "r|devices:DW-1|septic:S-1"])
_DETAILS = st.dictionaries(st.sampled_from(["limit", "target", "ft"]), st.one_of(st.sampled_from(["bedrock", "groundwater", "a|b", ""]),
                                                                               st.integers(0, 2), st.none()), max_size=3)
_STATUSES = st.sampled_from(["violation", "undetermined", "advisory", "pass"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_BASES, _DETAILS, _STATUSES), max_size=12))
def test_the_keys_told_apart_and_the_undecided_findings_are_those_of_the_former_reading(items):
    """Property: the repeated bases counted at once give the former keys; without a decision, :func:`decide` gives what its loop
    gave (each undecided, its status effective, the violations unresolved counted)."""
    from stormwater_plugin.core.overrides import _unique, decide

    pairs = [(b, d) for b, d, _s in items]
    assert _unique(pairs) == _unique_as_it_was(pairs)
    statuses = [s for _b, _d, s in items]
    for none in (None, []):
        out = decide([b for b, _d in pairs], [d for _b, d in pairs], statuses, none)
        assert out.keys == _unique_as_it_was(pairs) and out.overrides == [None] * len(items) and out.effective == statuses
        assert out.stale == [] and out.counts == {"overridden": 0, "violations_overridden": 0, "violations_unresolved": statuses.count("violation"),
                                                 "stale": 0, "status_changed": 0}
    # an override that matches nothing takes the loop: the same keys and statuses, the override stale
    stale = decide([b for b, _d in pairs], [d for _b, d in pairs], statuses, [make_override("gone|-|-", "waived", "a reason", "A. Reviewer")])
    assert stale.keys == out.keys and stale.effective == out.effective and stale.counts["stale"] == 1
