"""Comparing two reviews of a resubmitted plan (issue 18): resolved, new, still open, changed, decisions."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from stormwater_plugin.core.compare import compare_reviews, since_last_review
from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.core.overrides import make_override
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services.review import review_of
from tests.sitebuilder import layer, plane_dem, septic_square

# Devices, wells and streams are drawn as points and lines for brevity, read as their edges: what they plausibly stand for
# is tested in tests/core/test_extents*.py (issue 33).
pytestmark = pytest.mark.usefixtures("drawn_edges")

RULE = "lgpc.minor.septic-upgradient-20"
DEM = plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)  # rising east: a device east of the septic field is upgradient


def _doc(devices: dict[str, float], project_class: str = "minor", overrides=None, wells=None):
    """findings.json of a site with devices ``id -> distance east of the 20 ft septic square``."""
    ids = list(devices)
    geoms = [Point(10.0 + d, 0.0) for d in devices.values()]
    attrs = [{"device_type": "dry_well", "high_traffic": 0, "vehicle_traffic": 0} for _ in ids]
    layers = {"septic": layer("septic", [septic_square()], ["S1"]), "devices": layer("devices", geoms, ids, attrs)}
    if wells is not None:
        layers["wells"] = layer("wells", [Point(x, y) for x, y in wells], [f"W{i + 1}" for i in range(len(wells))])
    result = run_check(SiteInputs(layers=layers, dem=DEM, unit_to_ft=1.0, class_override=project_class, crs_name="test grid"), load_pack("lgpc"))
    return review_of(result, crs_name="test grid", overrides=overrides or ()).doc  # decisions: the review's


def _key(device_id: str) -> str:
    return f"{RULE}|devices:{device_id}|septic:S1"


def _cat(cmp, cat):
    return {e["key"] for e in cmp[cat]}


def test_moving_a_violating_device_beyond_20_ft_resolves_its_finding():
    cmp = compare_reviews(_doc({"D1": 14.0}), _doc({"D1": 25.0}))
    assert _key("D1") in _cat(cmp, "resolved")
    (e,) = [e for e in cmp["resolved"] if e["key"] == _key("D1")]
    assert e["old"]["status"] == "violation" and e["new"]["status"] == "pass"
    assert e["old"]["measured_ft"] == 14.0 and e["new"]["measured_ft"] == 25.0
    assert cmp["counts"]["resolved"] >= 1 and _key("D1") not in _cat(cmp, "still_open")


def test_removing_a_violating_device_resolves_it_as_removed():
    cmp = compare_reviews(_doc({"D1": 14.0, "D2": 40.0}), _doc({"D2": 40.0}))
    (e,) = [e for e in cmp["resolved"] if e["key"] == _key("D1")]
    assert e["why"] == "the feature was removed from the plan"


def test_a_new_device_short_of_the_setback_is_new_and_an_unchanged_one_still_open():
    cmp = compare_reviews(_doc({"D1": 14.0}), _doc({"D1": 14.0, "D2": 5.0}))
    assert _key("D2") in _cat(cmp, "new")
    assert _key("D1") in _cat(cmp, "still_open")
    assert _key("D1") not in _cat(cmp, "changed")
    assert since_last_review(cmp)[_key("D2")] == "new"


def test_a_still_open_violation_whose_distance_changed_is_listed_as_changed_too():
    cmp = compare_reviews(_doc({"D1": 14.0}), _doc({"D1": 16.0}))
    assert _key("D1") in _cat(cmp, "still_open") and _key("D1") in _cat(cmp, "changed")
    (e,) = [e for e in cmp["changed"] if e["key"] == _key("D1")]
    assert (e["old"]["measured_ft"], e["new"]["measured_ft"]) == (14.0, 16.0)


def test_a_renamed_device_within_1_ft_is_matched_and_said_so():
    cmp = compare_reviews(_doc({"D1": 14.0}), _doc({"DW-1": 14.5}))
    assert cmp["renamed_features"] == [{"layer": "devices", "old_id": "D1", "new_id": "DW-1", "distance_ft": 0.5}]
    assert _key("DW-1") in _cat(cmp, "still_open")
    assert not cmp["new"] and not cmp["resolved"]


def test_a_renamed_device_moved_more_than_1_ft_is_not_matched():
    cmp = compare_reviews(_doc({"D1": 14.0}), _doc({"DW-1": 15.5}))
    assert cmp["renamed_features"] == []
    assert _key("DW-1") in _cat(cmp, "new") and _key("D1") in _cat(cmp, "resolved")


def test_a_change_of_class_is_reported():
    cmp = compare_reviews(_doc({"D1": 14.0}, "minor"), _doc({"D1": 14.0}, "major"))
    assert cmp["project_class"] == {"old": "minor", "new": "major"}
    assert _key("D1") in _cat(cmp, "resolved")  # the minor rule no longer applies


def test_decisions_are_carried_over_to_review_again_or_stale():
    waive = make_override(_key("D1"), "waived", "variance V-12", "R. Reviewer", status_when_made="violation")
    accept = make_override(_key("D2"), "accepted", "tax-map sliver", "R. Reviewer", status_when_made="violation")
    gone = make_override(_key("D3"), "accepted", "checked in the field", "R. Reviewer", status_when_made="violation")
    old = _doc({"D1": 14.0, "D2": 12.0, "D3": 10.0}, overrides=[waive, accept, gone])
    new = _doc({"D1": 14.0, "D2": 11.0})
    cmp = compare_reviews(old, new)
    states = {d["key"]: d["state"] for d in cmp["decisions"]}
    assert states == {_key("D1"): "carried_over", _key("D2"): "review_again", _key("D3"): "stale"}
    assert cmp["counts"]["decisions_carried_over"] == 1 and cmp["counts"]["decisions_stale"] == 1


def test_a_rule_the_pack_records_as_replaced_maps_to_its_successor():
    old = _doc({"D1": 14.0})
    for f in old["findings"]:
        f["key"] = f["key"].replace(RULE, "lgpc.minor.old-septic-rule")
    cmp = compare_reviews(old, _doc({"D1": 14.0}), successor=lambda r: RULE if r == "lgpc.minor.old-septic-rule" else r)
    assert _key("D1") in _cat(cmp, "still_open")
    assert cmp["renamed_rules"] == [{"old": "lgpc.minor.old-septic-rule", "new": RULE}]


@given(st.text(alphabet="ab|#-:+=", max_size=14))
def test_a_key_read_as_well_formed_is_itself_once_split_and_joined(key):
    from stormwater_plugin.core.compare import _join_key, _split_key, _well_formed

    if _well_formed(key):
        assert _join_key(*_split_key(key)) == key
    for well in ("r|devices:DW-1|septic:S-1", "r|devices:DW-1|-|limit=bedrock", "r|a|b|c|d", "r||", "r|a|b||x"):
        assert _well_formed(well) and _join_key(*_split_key(well)) == well
    for odd in ("r", "r|a", "r|a|b|", "r|a|b#2"):
        assert not _well_formed(odd)


# --------------------------------------------------------------------------- an earlier review read once (the live marks)

_RULES = ["r1", "r2", "old-r"]
_RENAMES = {"identity": lambda r: r, "old-r is r1": lambda r: "r1" if r == "old-r" else r, "r2 is r9": lambda r: "r9" if r == "r2" else r}


def _synthetic(draws, keyless=False, renamed=False):
    """A findings.json of (rule, device, status, measured, decided) draws; ``renamed``: its device D3 drawn as D4, half a foot off."""
    from stormwater_plugin.core.overrides import finding_key

    findings = []
    for n, (rule, dev, status, measured, decided) in enumerate(draws):
        dev = "D4" if renamed and dev == "D3" else dev
        f = {"rule_id": _RULES[rule], "subject": {"layer": "devices", "id": dev}, "other": {"layer": "septic", "id": "S1"},
             "status": status, "measured_ft": measured, "required_ft": 20.0, "message": f"finding {n}"}
        if not keyless:
            f["key"] = finding_key(f["rule_id"], f["subject"], f["other"]) + (f"#{n}" if n % 3 == 2 else "")
        if decided:
            f["override"] = {"decision": "accepted", "reason": "a reason", "reviewer": "A. Reviewer"}
        findings.append(f)
    wkt = {f"devices:{d}": f"POINT ({x} 0)" for d, x in (("D1", 0), ("D2", 50), ("D4" if renamed else "D3", 100.5 if renamed else 100))}
    return {"tool": {"version": "x"}, "project_class": "minor", "counts": {}, "working_crs": "test grid", "findings": findings,
            "features": {"unit_to_ft": 1.0, "wkt": wkt}}


_DRAW = st.tuples(st.integers(0, 2), st.sampled_from(["D1", "D2", "D3"]), st.sampled_from(["violation", "undetermined", "advisory", "pass"]),
                  st.sampled_from([10.0, 10.04, 20.0, None]), st.booleans())


@given(st.lists(_DRAW, max_size=6), st.booleans(),
       st.lists(st.tuples(st.lists(_DRAW, max_size=6), st.booleans(), st.sampled_from(sorted(_RENAMES))), min_size=1, max_size=4))
def test_an_earlier_review_read_once_compares_as_the_document_it_was_read_from(old_draws, keyless, news):
    """Property: whatever current reviews it was compared with before (features renamed or not, rules renamed or not), an
    earlier review read once gives the comparison its document gives."""
    from stormwater_plugin.core.compare import EarlierReview

    old = _synthetic(old_draws, keyless=keyless)
    earlier = EarlierReview(old)
    for draws, renamed, rename in news:
        new = _synthetic(draws, renamed=renamed)
        assert compare_reviews(earlier, new, _RENAMES[rename]) == compare_reviews(old, new, _RENAMES[rename])


class _Fixed(dict):
    """A current review whose entries are never changed (as the live marks' comparable documents)."""

    fixed_entries = True


def _pack_successor(renames):
    """A successor as :func:`stormwater_plugin.core.compare._successor` makes one for a pack: marked as the same answers while the same."""
    def successor(rule):
        return renames(rule)
    successor.pack_successor = successor
    return successor


_PACK_SUCCESSORS = {name: _pack_successor(f) for name, f in _RENAMES.items()}


@settings(max_examples=200, deadline=None)
@given(st.lists(_DRAW, max_size=6), st.lists(_DRAW, min_size=1, max_size=8),
       st.lists(st.tuples(st.lists(st.integers(0, 27), max_size=10), st.sampled_from(sorted(_RENAMES)), st.booleans()), min_size=1, max_size=6))
def test_an_earlier_review_compared_with_reviews_sharing_fixed_entries_compares_as_the_documents_do(old_draws, pool_draws, news):
    """Property: an earlier review read once and compared in turn with current reviews whose entries are never changed and shared
    from review to review (a finding unchanged keeps its entry object, the live marks), under a pack's successor or another function,
    gives each time the comparison of the two documents read afresh (the pairs found listed nowhere kept by their objects)."""
    from stormwater_plugin.core.compare import EarlierReview

    old = _synthetic(old_draws)
    earlier = EarlierReview(old)
    drawn = [dict(f) for f in old["findings"]] + _synthetic(pool_draws)["findings"]  # most findings of an edit are as at the full check
    # the entry objects the current reviews share, each with another of the same key (its finding changed by an edit)
    pool = [e for f in drawn for e in (f, dict(f, status="violation" if f["status"] == "pass" else "pass", measured_ft=15.0))]
    for picks, rename, pack in news:
        findings = list({id(pool[n % len(pool)]): pool[n % len(pool)] for n in picks}.values())
        new = _Fixed(_synthetic([]), findings=findings)
        successor = _PACK_SUCCESSORS[rename] if pack else _RENAMES[rename]
        assert compare_reviews(earlier, new, successor) == compare_reviews(copy.deepcopy(old), dict(new), _RENAMES[rename])
    old["findings"][:1] = [dict(f, status="pass", measured_ft=1.0) for f in old["findings"][:1]]  # the document read once is its copy
    assert compare_reviews(earlier, new, successor) == compare_reviews(_synthetic(old_draws), dict(new), _RENAMES[rename])


def test_an_earlier_review_reads_its_findings_again_when_a_rule_it_names_has_another_successor():
    from stormwater_plugin.core.compare import EarlierReview

    old = _synthetic([(2, "D1", "violation", 10.0, False), (0, "D2", "pass", 20.0, False)])
    new = _synthetic([(0, "D1", "violation", 10.0, False), (0, "D2", "pass", 20.0, False)])
    earlier = EarlierReview(old)
    for rename in ("identity", "old-r is r1", "identity", "r2 is r9"):  # old-r read as itself, then as r1, then as itself again
        assert compare_reviews(earlier, new, _RENAMES[rename]) == compare_reviews(old, new, _RENAMES[rename])
    assert compare_reviews(earlier, new, _RENAMES["old-r is r1"])["renamed_rules"] == [{"old": "old-r", "new": "r1"}]


def test_the_last_full_check_read_once_gives_the_marks_its_document_gives_and_refuses_what_it_refuses():
    from stormwater_plugin.services.compare import CompareError
    from stormwater_plugin.services.compare import compare_reviews as compare_service
    from stormwater_plugin.services.live import changes_since, last_full_check

    full, live = _doc({"D1": 14.0, "D2": 40.0}), _doc({"D1": 25.0, "D2": 40.0})
    assert changes_since(last_full_check(full), live) == changes_since(full, live) is not None
    assert changes_since(last_full_check(full), full) is None and last_full_check(None) is None
    for bad in ({"jurisdiction": "lgpc"}, {**full, "findings": [{"rule_id": RULE, "status": "maybe"}]}):
        with pytest.raises(CompareError) as read_once:
            compare_service(last_full_check(bad), live)
        with pytest.raises(CompareError) as read_each_time:
            compare_service(bad, live)
        assert str(read_once.value) == str(read_each_time.value)
        assert changes_since(last_full_check(bad), live) is None


def test_an_earlier_review_knows_whether_every_finding_has_a_key_as_with_keys_reads_it():
    from stormwater_plugin.core.compare import EarlierReview, with_keys

    for doc in (_synthetic([(0, "D1", "pass", 20.0, False)]), _synthetic([(0, "D1", "pass", 20.0, False)], keyless=True), _synthetic([])):
        assert EarlierReview(doc).keyed is (with_keys(doc, {}) is doc)
    assert not EarlierReview({"findings": "not a list"}).keyed and not EarlierReview({}).keyed


def test_each_packs_rule_renames_kept_are_its_own_successors():
    """The rule renames kept per pack (``core.compare._successor``) are the pack's own: every rule and every id it replaces, asked
    twice, and another pack's answers are its own."""
    from stormwater_plugin.core.compare import _successor
    from stormwater_plugin.core.rulepack import JURISDICTIONS

    for name in JURISDICTIONS:
        pack = load_pack(name)
        asked = [r.id for r in pack.rules] + [old for r in pack.rules for old in r.replaces] + ["no.such.rule"]
        for _ in range(2):
            assert [_successor(pack)(rule) for rule in asked] == [pack.successor(rule) for rule in asked]
    renamed = [(r.id, old) for name in JURISDICTIONS for r in load_pack(name).rules for old in r.replaces]
    if renamed:  # a replaced id is its successor in its own pack only
        new, old = renamed[0]
        owner = next(load_pack(n) for n in JURISDICTIONS if any(r.id == new for r in load_pack(n).rules))
        assert _successor(owner)(old) == new
        for n in JURISDICTIONS:
            assert _successor(load_pack(n))(old) == load_pack(n).successor(old)


@given(st.lists(_DRAW, max_size=6), st.lists(_DRAW, max_size=6), st.sampled_from(["lgpc", "lake-george", "mamakating"]))
def test_the_comparison_under_the_pack_the_review_applied_is_the_comparison_under_the_pack_loaded(old_draws, new_draws, name):
    """Property: ``compare_documents`` given the new review's pack (the live marks) compares as with the pack it loads for the
    new review's jurisdiction (its rule renames the same), and a pack of another jurisdiction given is not used."""
    from stormwater_plugin.core.compare import compare_documents
    from stormwater_plugin.core.rulepack import JURISDICTIONS

    pack = load_pack(name)
    replaced = next((old for r in pack.rules for old in r.replaces), "old-r")  # an id the pack renames, when it has one

    def doc(draws):
        out = dict(_synthetic(draws), jurisdiction=name)
        out["findings"] = [dict(f, rule_id=replaced if f["rule_id"] == "old-r" else f["rule_id"]) for f in out["findings"]]
        return out

    old, new = doc(old_draws), doc(new_draws)
    assert compare_documents(old, new, pack) == compare_documents(old, new)
    other = load_pack(next(j for j in JURISDICTIONS if j != name))
    assert compare_documents(old, new, other) == compare_documents(old, new)
