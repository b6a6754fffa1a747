"""What the review makes of a finding, kept by the finding's content for the live re-check (issue 39, ``services.content_memo``).

Each cache is keyed by content: a change of any value it is made of (each field of the finding, the type of a value,
the finding's key, its geometry for the map rows) gives another key, and the entry made is then the one the code
without the cache makes. A finding of the same content (another object) finds the entry kept.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import GeometryCollection, LineString, MultiPolygon, Point, Polygon, box

from stormwater_plugin.core.model import BuildingSiteSlope, Citation, FeatureRef, Finding, Status
from stormwater_plugin.core.serialize import building_site_to_dict, finding_to_dict
from stormwater_plugin.services import findings_doc, layer_rows
from stormwater_plugin.services.content_memo import ContentMemo, content_key, finding_content, finding_contents
from stormwater_plugin.services.findings_doc import doc_finding, plain
from stormwater_plugin.services.layer_rows import finding_attributes, map_finding_rows, parts_by_family

CITE = Citation("§148-11I(2)(c)", "20 feet", "chapter-148.md", "2024")


def _finding(**kw: object) -> Finding:
    base: dict[str, object] = dict(rule_id="lake-george.minor.septic-20", kind="device_setback", citation=CITE, status=Status.VIOLATION,
                                   subject=FeatureRef("devices", "DW-1"), other=FeatureRef("septic", "S-1"), measured_ft=19.9, required_ft=20.0,
                                   message="DW-1 is 19.9 ft from S-1", geometry=LineString([(0, 0), (6, 0)]),
                                   extra={"margin_ft": -0.1, "near_limit": True, "limit": "septic", "items": [{"id": "S-1", "ft": 19.94}]})
    base.update(kw)
    return Finding(**base)  # type: ignore[arg-type]


#: One change of each value a finding's entry and its rows' attributes are made of.
CHANGES: dict[str, dict[str, object]] = {
    "rule_id": {"rule_id": "lake-george.minor.septic-25"},
    "kind": {"kind": "septic_setback"},
    "citation text": {"citation": dataclasses.replace(CITE, text="§148-11I(2)(d)")},
    "citation excerpt": {"citation": dataclasses.replace(CITE, excerpt="25 feet")},
    "citation file": {"citation": dataclasses.replace(CITE, source_file="chapter-149.md")},
    "status": {"status": Status.PASS},
    "subject layer": {"subject": FeatureRef("wells", "DW-1")},
    "subject id": {"subject": FeatureRef("devices", "DW-2")},
    "no subject": {"subject": None},
    "other id": {"other": FeatureRef("septic", "S-2")},
    "no other": {"other": None},
    "measured t-0.01 ft": {"measured_ft": 19.89},
    "measured as an int": {"measured_ft": 20},
    "measured -0.0 for 0.0": {"measured_ft": -0.0},
    "no measure": {"measured_ft": None},
    "required": {"required_ft": 25.0},
    "message": {"message": "DW-1 is 19.8 ft from S-1"},
    "a detail's value": {"extra": {"margin_ft": -0.1, "near_limit": True, "limit": "bedrock", "items": [{"id": "S-1", "ft": 19.94}]}},
    "a nested value": {"extra": {"margin_ft": -0.1, "near_limit": True, "limit": "septic", "items": [{"id": "S-1", "ft": 19.95}]}},
    "a value's type (1 for True)": {"extra": {"margin_ft": -0.1, "near_limit": 1, "limit": "septic", "items": [{"id": "S-1", "ft": 19.94}]}},
    "near limit off": {"extra": {"margin_ft": -0.1, "near_limit": False, "limit": "septic", "items": [{"id": "S-1", "ft": 19.94}]}},
    "a detail more": {"extra": {"margin_ft": -0.1, "near_limit": True, "limit": "septic", "items": [{"id": "S-1", "ft": 19.94}], "x": None}},
    "the details' order": {"extra": {"near_limit": True, "margin_ft": -0.1, "limit": "septic", "items": [{"id": "S-1", "ft": 19.94}]}},
    "a list for a tuple": {"extra": {"margin_ft": -0.1, "near_limit": True, "limit": "septic", "items": ({"id": "S-1", "ft": 19.94},)}},
}


def _entry_without_memo(f: Finding) -> findings_doc.DocFinding:
    return findings_doc._finding(plain(finding_to_dict(f)))  # type: ignore[arg-type]


def test_a_content_key_tells_apart_values_json_tells_apart():
    pairs = [(1, 1.0), (1, True), (0.0, -0.0), ([1], (1,)), ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ("1", 1), (None, "null"), ({"a": [1]}, {"a": [1, 1]})]
    for a, b in pairs:
        assert content_key(a) != content_key(b), (a, b)
    assert content_key({"a": [1.5, "x", None, True]}) == content_key({"a": [1.5, "x", None, True]})


def test_a_value_of_another_type_has_no_key_and_is_always_made_anew():
    class Text(str):
        pass

    # a numpy number would be written as its bare bytes (a float64 and an int64 of the same bits alike): refused
    for v in (np.float64(1.0), np.int64(1), Status.PASS, Text("a"), {1: "a"}, b"x", {"a": {"b": np.float32(2)}}, object()):
        assert content_key(v) is None, v
    memo: ContentMemo[int] = ContentMemo()
    made = [memo.get(None, lambda: 1), memo.get(None, lambda: 2)]
    assert made == [1, 2] and memo.made == 0 and memo.found == 0


def test_a_finding_holding_a_numpy_value_has_no_key_and_its_entry_is_made_from_it():
    f = _finding(measured_ft=np.float64(19.9), extra={"margin_ft": np.float64(-0.1)})
    assert finding_content(f) is None
    assert doc_finding(f) == _entry_without_memo(f)


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_of_any_value_of_a_finding_gives_another_key_and_its_own_entry(change):
    findings_doc._ENTRIES.clear()
    before, after = _finding(), _finding(**CHANGES[change])
    assert finding_content(before) != finding_content(after)
    assert doc_finding(before) == _entry_without_memo(before)
    entry = doc_finding(after)
    assert entry == _entry_without_memo(after)
    assert findings_doc._ENTRIES.made == 2 and findings_doc._ENTRIES.found == 0


def test_a_measure_of_0_0_and_one_of_minus_0_0_have_their_own_entries():
    findings_doc._ENTRIES.clear()
    plus, minus = _finding(measured_ft=0.0), _finding(measured_ft=-0.0)
    assert finding_content(plus) != finding_content(minus)
    assert doc_finding(plus) == _entry_without_memo(plus) and doc_finding(minus) == _entry_without_memo(minus)
    assert findings_doc._ENTRIES.made == 2


def test_a_finding_of_the_same_content_finds_the_entry_made_before_whatever_its_geometry():
    findings_doc._ENTRIES.clear()
    first = doc_finding(_finding())
    again = _finding(geometry=LineString([(1, 1), (9, 9)]), extra=dict(_finding().extra))  # another object, the same words
    assert doc_finding(again) is first
    assert findings_doc._ENTRIES.found == 1 and findings_doc._ENTRIES.made == 1


def test_a_memo_keeps_the_values_used_lately_and_lets_the_older_go():
    memo: ContentMemo[str] = ContentMemo(size=2)
    for k in ("a", "b", "c"):  # "c" starts a generation: "a" and "b" are the one before
        memo.get(k, lambda k=k: k.upper())
    assert memo.get("a", lambda: "new") == "A"  # found in the generation before, kept in the current one
    memo.get("d", lambda: "D")  # the current generation full: the one holding "b" goes
    assert memo.get("b", lambda: "anew") == "anew"


# --------------------------------------------------------------------------- the map rows


def _rows_without_memo(findings: list[Finding]) -> layer_rows.MapFindingRows:
    """:func:`map_finding_rows` as it was before the live re-check kept anything: each finding's parts and attributes made anew."""
    out = layer_rows.MapFindingRows({}, {})
    for f, key in zip(findings, layer_rows.finding_keys(findings)):
        if f.geometry is None:
            continue
        into = out.passes if f.status is Status.PASS else out.open
        for fam, part in parts_by_family(f.geometry).items():
            into.setdefault(fam, []).append((part, finding_attributes(f, key)))
    return out


def _same_rows(a: layer_rows.MapFindingRows, b: layer_rows.MapFindingRows) -> None:
    for got, want, keys in ((a.open, b.open, a.open_keys), (a.passes, b.passes, a.pass_keys)):
        assert list(got) == list(want) == list(keys)
        for fam in want:
            assert [(shapely.to_wkb(g), attrs) for g, attrs in got[fam]] == [(shapely.to_wkb(g), attrs) for g, attrs in want[fam]]
            # each row's key: the WKB the map draws (no SRID) and its attributes, as gui.result_layers.row_keys writes it
            assert keys[fam] == [(shapely.to_wkb(g, hex=False, include_srid=False), tuple(attrs)) for g, attrs in want[fam]]
            assert all(type(k[0]) is bytes for k in keys[fam])


def _clear_rows() -> None:
    layer_rows._ATTRIBUTES.clear()
    layer_rows._ROWS.clear()
    layer_rows._BY_PLACE.clear()
    layer_rows._KEYS_HELD = ((), ())


GEOMETRIES = [Point(1, 2), LineString([(0, 0), (3, 4)]), box(0, 0, 2, 2), MultiPolygon([box(0, 0, 1, 1), box(3, 3, 4, 4)]),
              GeometryCollection([LineString([(0, 0), (1, 0)]), box(0, 0, 1, 1), Point(5, 5)]), Polygon(), LineString(), None,
              shapely.LinearRing([(0, 0), (1, 0), (1, 1)]), shapely.MultiPoint([(0, 0), (1, 1)]), shapely.MultiLineString([[(0, 0), (1, 1)]])]


def test_the_map_rows_are_those_made_finding_by_finding_for_every_kind_of_geometry():
    findings = [_finding(geometry=g, status=Status.PASS if n % 2 else Status.VIOLATION, subject=FeatureRef("devices", f"DW-{n}"))
                for n, g in enumerate(GEOMETRIES)]
    findings += [_finding(), _finding()]  # twice the same finding: keyed #2, its own attributes
    _clear_rows()
    _same_rows(map_finding_rows(findings), _rows_without_memo(findings))
    made = layer_rows._ROWS.made
    _same_rows(map_finding_rows(findings), _rows_without_memo(findings))  # the second time from the memo
    again = [dataclasses.replace(f) for f in findings]  # findings of the same content: their rows found by content
    _same_rows(map_finding_rows(again), _rows_without_memo(again))
    assert layer_rows._ROWS.found > 0 and layer_rows._ROWS.made == made


_POOL = [_finding(), _finding(), _finding(measured_ft=19.8), _finding(geometry=LineString([(0, 0), (7, 0)])), _finding(geometry=None),
         _finding(status=Status.PASS, subject=FeatureRef("devices", "DW-2")), _finding(extra={"limit": "bedrock"}),
         _finding(extra={"limit": "septic"}), _finding(geometry=GeometryCollection([LineString([(0, 0), (6, 0)]), box(0, 0, 1, 1)]))]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(0, len(_POOL) - 1), max_size=7), min_size=1, max_size=5))
def test_the_map_rows_kept_are_those_made_anew_whatever_lists_came_before(lists):
    """Property: the rows kept (by content, key and WKB) are the rows made anew, over any sequence of lists of the same and
    equal findings (a finding repeated, another of the same rule and features added or gone: its key changes)."""
    _clear_rows()
    for picks in lists:
        findings = [_POOL[n] for n in picks]
        _same_rows(map_finding_rows(findings), _rows_without_memo(findings))


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_of_a_finding_gives_its_rows_their_own_attributes(change):
    _clear_rows()
    before = [_finding(), _finding(subject=FeatureRef("devices", "DW-9"))]
    _same_rows(map_finding_rows(before), _rows_without_memo(before))
    after = [_finding(**CHANGES[change]), before[1]]
    _same_rows(map_finding_rows(after), _rows_without_memo(after))


def test_a_change_of_a_findings_key_or_geometry_is_seen_by_its_rows():
    _clear_rows()
    one = [_finding()]
    two = [_finding(), _finding()]  # the same finding twice: the second keyed #2, the first keeps its key
    moved = [_finding(geometry=LineString([(0, 0), (6, 1)]))]
    collection = [_finding(geometry=GeometryCollection([LineString([(0, 0), (6, 0)]), box(0, 0, 1, 1)]))]  # a part of its own
    other_part = [_finding(geometry=GeometryCollection([LineString([(0, 0), (6, 0)]), box(0, 0, 1, 2)]))]
    for findings in (one, two, moved, one, collection, other_part, collection):
        _same_rows(map_finding_rows(findings), _rows_without_memo(findings))
    assert map_finding_rows(two).open["line"][1][1][FINDING_KEY] != map_finding_rows(one).open["line"][0][1][FINDING_KEY]


FINDING_KEY = [n for n, _ in layer_rows.FINDING_SCHEMA].index("key")


def test_the_attributes_of_a_row_are_its_own_list():
    _clear_rows()
    rows = map_finding_rows([_finding()])
    rows.open["line"][0][1][0] = "changed by a reader"
    again = map_finding_rows([_finding()])
    assert again.open["line"][0][1][0] == "violation"


def test_parts_of_each_reads_every_geometry_as_parts_by_family():
    geoms = [g for g in GEOMETRIES if g is not None]
    for got, g in zip(layer_rows.parts_of_each(geoms), geoms):
        want = parts_by_family(g)
        assert list(got) == list(want) and all(shapely.equals_exact(got[k], want[k], 0) for k in want)
    assert layer_rows.parts_of_each([]) == []


def test_the_content_keys_of_a_list_are_written_again_when_one_of_its_findings_is_another():
    findings = [_finding(), _finding(subject=FeatureRef("devices", "DW-2"))]
    first = finding_contents(findings)
    assert first == [finding_content(f) for f in findings] and finding_contents(findings) == first
    findings[1] = _finding(subject=FeatureRef("devices", "DW-3"))  # the same list, another finding in it
    assert finding_contents(findings) == [finding_content(f) for f in findings]
    findings.append(_finding(message="a third"))
    assert finding_contents(findings) == [finding_content(f) for f in findings]
    copy = list(findings)  # another list of the same findings: its own keys, the same values
    assert finding_contents(copy) == finding_contents(findings)


def test_a_missing_reference_and_a_reference_of_missing_words_have_their_own_entries():
    findings_doc._ENTRIES.clear()
    none, empty = _finding(other=None), _finding(other=FeatureRef(None, None))  # type: ignore[arg-type]
    assert finding_content(none) != finding_content(empty)
    assert doc_finding(none) == _entry_without_memo(none) and doc_finding(empty) == _entry_without_memo(empty)


def _site(**kw: object) -> BuildingSiteSlope:
    base: dict[str, object] = dict(id="B-1", slope_100ft_pct=12.345, azimuth_deg=181.25, status=Status.PASS, message="12.3 % over 100 ft",
                                   profile=[(0.0, 1.234), (5.0, 12.345), (10.0, -3.5)], centre=(1.0, 2.0))
    base.update(kw)
    return BuildingSiteSlope(**base)  # type: ignore[arg-type]


#: One change of each value a building site's entry is made of.
SITE_CHANGES: dict[str, dict[str, object]] = {
    "id": {"id": "B-2"},
    "slope": {"slope_100ft_pct": 12.355},
    "no slope": {"slope_100ft_pct": None},
    "azimuth": {"azimuth_deg": 181.35},
    "status": {"status": Status.VIOLATION},
    "message": {"message": "12.4 % over 100 ft"},
    "a profile's slope": {"profile": [(0.0, 1.234), (5.0, 12.355), (10.0, -3.5)]},
    "a profile's azimuth": {"profile": [(0.0, 1.234), (6.0, 12.345), (10.0, -3.5)]},
    "a profile's point more": {"profile": [(0.0, 1.234), (5.0, 12.345), (10.0, -3.5), (15.0, 0.0)]},
    "a profile's int": {"profile": [(0, 1.234), (5.0, 12.345), (10.0, -3.5)]},
    "-0.0 for 0.0": {"profile": [(-0.0, 1.234), (5.0, 12.345), (10.0, -3.5)]},
}


@pytest.mark.parametrize("change", sorted(SITE_CHANGES))
def test_a_change_of_any_value_of_a_building_site_gives_it_its_own_entry(change):
    findings_doc._SITES.clear()
    before, after = _site(), _site(**SITE_CHANGES[change])
    assert findings_doc.building_site(before) == plain(building_site_to_dict(before))
    assert findings_doc.building_site(after) == plain(building_site_to_dict(after))
    assert findings_doc._SITES.made == 2 and findings_doc._SITES.found == 0


def test_a_building_site_of_the_same_content_finds_its_entry_whatever_its_centre_and_a_numpy_one_has_none():
    findings_doc._SITES.clear()
    first = findings_doc.building_site(_site())
    assert findings_doc.building_site(_site(centre=(9.0, 9.0), profile=list(_site().profile))) is first
    assert findings_doc._SITES.found == 1
    numpy_site = _site(profile=[(np.float64(0.0), np.float64(1.234))])
    assert findings_doc.building_site(numpy_site) == plain(building_site_to_dict(numpy_site))
    assert findings_doc.building_site(numpy_site) is not findings_doc.building_site(numpy_site)  # no key: made each time


def test_a_finding_without_a_content_key_has_its_rows_made_each_time():
    _clear_rows()
    numpy_finding = [_finding(measured_ft=np.float64(19.9))]
    for _ in range(2):
        _same_rows(map_finding_rows(numpy_finding), _rows_without_memo(numpy_finding))
    assert layer_rows._ROWS.found == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(GEOMETRIES) - 1), st.sampled_from([Status.PASS, Status.VIOLATION, Status.UNDETERMINED]),
                          st.sampled_from(["DW-1", "DW-2"]), st.sampled_from([19.9, 20.0, -0.0, 0.0, None])), max_size=8), st.randoms())
def test_the_map_rows_kept_are_those_made_anew_whatever_the_findings_seen_before(draws, rnd):
    """Property: whatever findings were drawn before (kept or not), the rows and keys are those made finding by finding."""
    lists = [[_finding(geometry=GEOMETRIES[g], status=s, subject=FeatureRef("devices", d), measured_ft=m) for g, s, d, m in draws[:n]]
             for n in range(len(draws) + 1)]
    rnd.shuffle(lists)
    for findings in lists + lists[:2]:
        _same_rows(map_finding_rows(findings), _rows_without_memo(findings))


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(0, len(_POOL) - 1), max_size=7), st.lists(st.tuples(st.integers(0, 6), st.integers(0, len(_POOL) - 1)), max_size=12),
       st.booleans())
def test_the_map_rows_of_the_last_lists_findings_at_their_place_are_those_made_anew(first, edits, forget):
    """Property: a finding object found at its place in the last list, under the same key, has its rows taken from that list
    (``layer_rows._BY_PLACE``); over any sequence of lists each differing from the one before in a place or two (as a live edit:
    most findings the last check's objects, one replaced by another object of equal or other content, or a repeat added so
    that a key changes), the rows and keys are those made finding by finding, whether the content memo was cleared or not."""
    _clear_rows()
    findings = [_POOL[n] for n in first]
    _same_rows(map_finding_rows(findings), _rows_without_memo(findings))
    for at, pick in edits:
        findings = list(findings)
        if findings and at < len(findings):
            findings[at] = _POOL[pick] if pick % 3 else dataclasses.replace(_POOL[pick])  # the same object or one of equal content
        elif at < 6:
            findings.append(_POOL[pick])  # else the same list again (an edit that changed no finding: the same keys)
        if forget:
            layer_rows._ATTRIBUTES.clear()
            layer_rows._ROWS.clear()
        _same_rows(map_finding_rows(findings), _rows_without_memo(findings))


_KEYLESS = _finding(measured_ft=np.float64(19.9))  # no content key: None at its place as anywhere


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(0, len(_POOL)), max_size=7), st.lists(st.tuples(st.integers(0, 6), st.integers(0, len(_POOL))), max_size=12))
def test_the_content_keys_of_the_last_lists_findings_at_their_place_are_each_findings_own(first, edits):
    """Property: over lists each differing from the one before in a place or two (a finding replaced by another object, of equal
    or other content, or without a content key), each content key taken at its place is the finding's own."""
    pool = [*_POOL, _KEYLESS]
    findings = [pool[n] for n in first]
    for at, pick in [(99, 0), *edits]:
        findings = list(findings)
        if findings and at < len(findings):
            findings[at] = pool[pick] if pick % 3 else dataclasses.replace(pool[pick])
        elif at != 99:
            findings.append(pool[pick])
        assert finding_contents(findings) == [finding_content(f) for f in findings]
        assert finding_contents(findings) == [finding_content(f) for f in findings]  # asked again: every place found


# --------------------------------------------------------------------------- the entries keyed, without a decision


def _document_of(findings: list[Finding]) -> tuple[findings_doc.FindingsDocument, list[bytes | None]]:
    contents = finding_contents(findings)
    return findings_doc._document({}, tuple(doc_finding(f, c) for f, c in zip(findings, contents))), contents


def test_an_entry_without_a_decision_is_kept_by_its_content_and_its_key():
    findings_doc._UNDECIDED.clear()
    twice = [_finding(), _finding()]  # the same content twice: keyed apart (#2), each its own entry
    doc, contents = _document_of(twice)
    got = doc._decided(None, contents)
    assert got == doc.decided(None) and got.findings[0].key != got.findings[1].key
    assert findings_doc._UNDECIDED.made == 2
    again = _document_of([_finding(), _finding()])
    assert again[0]._decided(None, again[1]).findings == got.findings and findings_doc._UNDECIDED.found == 2
    changed = _document_of([_finding(), _finding(message="another")])  # another content: another entry, and the key of the first changed
    assert changed[0]._decided(None, changed[1]) == changed[0].decided(None)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["DW-1", "DW-2"]), st.sampled_from([Status.PASS, Status.VIOLATION]), st.sampled_from([19.9, 20.0])),
                max_size=6),
       st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["accepted", "waived"]), st.booleans()), max_size=3))
def test_the_entries_decided_through_the_memo_are_those_decided_anew(draws, decisions):
    """Property: with or without decisions (some stale, some made on another status), the document decided through the memo of
    undecided entries is the one decided entry by entry."""
    from stormwater_plugin.core.overrides import make_override

    findings = [_finding(subject=FeatureRef("devices", d), status=s, measured_ft=m) for d, s, m in draws]
    doc, contents = _document_of(findings)
    keys = [f.key for f in doc.decided(None).findings]
    overrides = [make_override(keys[n] if n < len(keys) else f"gone|devices:DW-{n}|-", d, "a reason", "A. Reviewer",
                               status_when_made="pass" if other else None) for n, d, other in decisions]
    for given_ in (None, overrides, overrides):
        assert doc._decided(given_, contents) == doc.decided(given_)


def _plain_types_as_it_was(value: object) -> bool:
    """The former reading of a value's types, item by item."""
    t = type(value)
    if t in (str, float, int, bool, type(None)):
        return True
    if t is dict:
        return all(type(k) is str and _plain_types_as_it_was(v) for k, v in value.items())  # type: ignore[attr-defined]
    if t is list or t is tuple:
        return all(_plain_types_as_it_was(v) for v in value)  # type: ignore[attr-defined]
    return False


_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3), st.just(np.float64(1.5)), st.just(np.int64(2)),
                    st.just(b"x"), st.just(Status.PASS))


@settings(max_examples=200, deadline=None)
@given(st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=40), st.lists(inner, min_size=33, max_size=40).map(tuple),
                                                     st.lists(st.tuples(inner, inner), min_size=30, max_size=45),
                                                     st.dictionaries(st.one_of(st.text(max_size=2), st.integers(0, 3)), inner, max_size=4)),
                    max_leaves=120))
def test_a_values_types_read_at_once_are_those_read_item_by_item(value):
    """Property: the types read at once for a long sequence (a list of pairs flattened) give the item-by-item answer."""
    from stormwater_plugin.services.content_memo import _plain_types

    assert _plain_types(value) is _plain_types_as_it_was(value)
    assert (content_key(value) is None) is not _plain_types_as_it_was(value)
