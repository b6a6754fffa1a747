"""services.compare: the one comparison of two reviews for the command line, Processing, the dock and the letter."""

from __future__ import annotations

import pytest

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
