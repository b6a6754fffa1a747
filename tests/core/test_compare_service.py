"""services.compare: the one comparison of two reviews for the command line, Processing, the dock and the letter."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.errors import StormwaterError
from stormwater_plugin.services.compare import CompareError, compare_reviews, open_violations, review_document


def test_a_document_without_findings_is_refused_naming_which():
    with pytest.raises(CompareError, match="the earlier review: not a findings.json document"):
        compare_reviews({"jurisdiction": "lgpc"}, {"findings": []})
    with pytest.raises(CompareError, match="the current review"):
        compare_reviews({"findings": []}, ["not", "a", "review"])  # type: ignore[arg-type]
    assert issubclass(CompareError, StormwaterError) and issubclass(CompareError, ValueError)
    assert review_document({"findings": []}, "x") == {"findings": []}


def test_open_violations_are_new_or_still_open_violations_only():
    cmp = {
        "new": [{"new": {"status": "violation"}}, {"new": {"status": "advisory"}}],
        "still_open": [{"new": {"status": "violation"}}],
        "resolved": [{"old": {"status": "violation"}}],
    }
    assert len(open_violations(cmp)) == 2
    assert open_violations({}) == []


def _reviews():
    """Reviews of one device moved across its septic setback (t-0.1 ft, t, t+0.1 ft and far), renamed, and gone."""
    from stormwater_plugin.core.overrides import make_override
    from stormwater_plugin.services.review import review_of
    from tests.sitebuilder import device, layer, plane_dem, run, septic_square

    dem = plane_dem(-200, -200, 400, 2.0, gx=0.05, gy=0.0)
    out = []
    for x, ident in ((29.9, "D1"), (30.0, "D1"), (30.1, "D1"), (60.0, "D1"), (29.9, "D2"), (None, None)):
        layers = {"septic": layer("septic", [septic_square()], ["S1"])}
        if x is not None:
            g, a = device(x, 0.0)
            layers["devices"] = layer("devices", [g], [ident], [a])
        review = review_of(run("lgpc", layers, dem), crs_name="grid")
        out.append(review)
        key = next((f.key for f in review.document.findings if f.status in ("violation", "undetermined")), None)
        if key is not None:  # the same review with a decision on its first open finding
            out.append(review.decided([make_override(key, "waived", "variance", "J. Smith", status_when_made="pass")]))
    return out


def test_the_comparison_with_what_it_reads_of_a_typed_document_is_the_comparison_with_its_findings_json():
    """``comparable`` (the live marks' current review) gives the comparison the whole findings.json gives, both ways round."""
    from stormwater_plugin.services.compare import comparable

    reviews = _reviews()
    for earlier in reviews:
        for current in reviews:
            assert compare_reviews(earlier.doc, comparable(current.document)) == compare_reviews(earlier.doc, current.doc)


def _comparable_as_it_was(document):
    c = document.classification
    return {"jurisdiction": document.jurisdiction, "tool": document.tool, "project_class": c.project_class, "counts": document.counts,
            "working_crs": document.working_crs, "features": document.features,
            "findings": [{"key": f.key, "rule_id": f.rule_id, "citation": f.citation, "subject": f.subject, "other": f.other, "status": f.status,
                          "measured_ft": f.measured_ft, "required_ft": f.required_ft, "message": f.message, "override": f.override}
                         for f in document.findings]}


_REVIEWS: list = []


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.sampled_from(["", "rule_id", "status", "subject", "other", "key", "message", "measured"])),
                max_size=8), st.integers(0, 3))
def test_what_the_comparison_reads_of_each_entry_kept_is_what_it_read_of_the_document(changes, repeat):
    """Property: the entries read once per entry (``services.compare._READ``) give the former document, and the problem judged entry by
    entry is the one :func:`format_problem` finds in the whole (an entry with no rule, an unknown status, a reference or key not of its
    shape: the same message naming the same entry), whichever entries were read before."""
    import dataclasses

    from stormwater_plugin.core.compare import format_problem
    from stormwater_plugin.services.compare import comparable

    if not _REVIEWS:
        _REVIEWS.extend(_reviews())
    bad = {"": {}, "rule_id": {"rule_id": ""}, "status": {"status": "bogus"}, "subject": {"subject": {"layer": "devices"}},
           "other": {"other": {"id": "S1"}}, "key": {"key": 7}, "message": {"message": "another"}, "measured": {"measured_ft": 1.5}}
    for review in _REVIEWS[:1 + repeat]:
        entries = list(review.document.findings)
        for n, what in changes:
            if entries:
                k = n % len(entries)
                entries[k] = dataclasses.replace(entries[k], **bad[what])
        document = dataclasses.replace(review.document, findings=tuple(entries))
        for _ in range(2):  # read anew, then from the entries kept
            got, want = comparable(document), _comparable_as_it_was(document)
            assert got == want and format_problem(want) == got.problem  # type: ignore[attr-defined]
            if got.problem is None:  # type: ignore[attr-defined]
                assert review_document(got, "x") == want
            else:
                with pytest.raises(CompareError, match="format this release cannot read"):
                    review_document(got, "x")
