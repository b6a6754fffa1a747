"""The typed review document: findings.json made only at the edge, the same object as the JSON round trip gave, read back into the same type."""

from __future__ import annotations

import enum
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.overrides import annotate_document, make_override
from stormwater_plugin.core.serialize import result_to_dict
from stormwater_plugin.services.findings_doc import FindingsDocument, FindingsReadError, findings_json, plain, read_findings
from stormwater_plugin.services.review import review_of
from tests.sitebuilder import device, layer, plane_dem, run, septic_square


def _round_trip(value: object) -> object:
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


class _Word(str, enum.Enum):
    A = "a"


class _Number(enum.IntEnum):
    ONE = 1


class _Thing:
    def __str__(self) -> str:
        return "thing"


_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.floats(allow_nan=False), st.text(max_size=5),
    st.sampled_from([_Word.A, _Number.ONE, np.float64(2.5), np.int64(7), np.bool_(True), _Thing(), (1, 2)]),
)
_keys = st.one_of(st.text(max_size=4), st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=True), st.booleans(), st.none())
_values = st.recursive(_leaves, lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                                         st.dictionaries(_keys, inner, max_size=4)), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_plain_values_are_the_json_round_trips_without_the_text(value):
    assert json.dumps(plain(value), sort_keys=False) == json.dumps(_round_trip(value), sort_keys=False)


def test_plain_keeps_nan_and_infinity_as_json_reads_them():
    got = plain({"a": float("nan"), 1.5: math.inf, float("nan"): 1})
    assert isinstance(got, dict) and math.isnan(got["a"]) and got["1.5"] == math.inf and got["NaN"] == 1


def _result():
    g, a = device(25.0, 0.0)
    layers = {"septic": layer("septic", [septic_square()], ["S1"]), "devices": layer("devices", [g], ["D1"], [a])}
    return run("lgpc", layers, plane_dem(-200, -200, 400, 2.0, gx=0.05, gy=0.0))


@pytest.fixture(scope="module")
def result():
    return _result()


def test_the_review_document_is_the_serialized_result_decided_once(result):
    """findings.json of the typed review = the serializer's document, JSON round-tripped, decided by annotate_document."""
    key = next(f["key"] for f in review_of(result).doc["findings"] if f["status"] == "violation")
    overrides = [make_override(key, "waived", "variance", "J. Smith", status_when_made="pass"), make_override("gone|a:b|-", "accepted", "x", "Y")]
    expected = annotate_document(_round_trip(result_to_dict(result, crs_name="grid", inputs={"site": ("a", "b")})), overrides)
    review = review_of(result, crs_name="grid", inputs={"site": ("a", "b")}, overrides=overrides)
    assert isinstance(review.document, FindingsDocument)
    assert json.dumps(findings_json(review.document)) == json.dumps(expected)
    assert review.violations_unresolved == expected["override_counts"]["violations_unresolved"] == 0
    assert [f.effective_status for f in review.document.findings if f.key == key] == ["waived"]
    assert len(review.document.decisions.stale) == 1


def test_a_findings_json_read_back_is_the_same_typed_document(result):
    written = json.loads(json.dumps(review_of(result, crs_name="grid", moves=[]).doc))
    back = read_findings(written)
    assert json.dumps(findings_json(back)) == json.dumps(written)
    assert back.classification.project_class == written["project_class"] and back.moves == ()


def test_a_tampered_findings_json_is_refused_naming_the_entry(result):
    doc = json.loads(json.dumps(review_of(result).doc))
    doc["findings"][1]["measured_ft"] = "far"
    with pytest.raises(FindingsReadError, match=r"earlier\.json: findings\[1\].*measured_ft"):
        read_findings(doc, "earlier.json")


def test_an_entrys_base_key_is_its_rule_and_features_and_a_copy_of_other_features_has_its_own(result):
    """The base key an entry keeps (``DocFinding.base_key``, written once) is ``finding_key`` of its rule and features; an
    entry replaced with another rule, subject or other feature has the key of those."""
    from dataclasses import replace

    from stormwater_plugin.core.overrides import finding_key

    entry = review_of(result).document.findings[0]
    assert entry.base_key == finding_key(entry.rule_id, entry.subject, entry.other)
    for change in ({"rule_id": "x.y"}, {"subject": {"layer": "devices", "id": "D9"}}, {"other": None}):
        moved = replace(entry, **change)
        assert moved.base_key == finding_key(moved.rule_id, moved.subject, moved.other) != entry.base_key
