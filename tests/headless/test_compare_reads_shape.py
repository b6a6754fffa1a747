"""An earlier review given to the comparison is judged for its shape first, whichever front end read it (the dock's file too)."""

from __future__ import annotations

import pytest

from stormwater_plugin.services.review import ComparisonError, compare_with


def _doc() -> dict[str, object]:
    return {"jurisdiction": "lgpc", "findings": [], "counts": {}}


@pytest.mark.parametrize(
    "previous, named",
    [
        ({"findings": [None]}, "findings[0] is null"),
        ({"findings": [{"rule_id": "r", "status": "pass", "measured_ft": float("inf")}]}, '"measured_ft" is an infinite number'),
        ({"findings": "none"}, '"findings" is a text'),
        ({}, 'no "findings"'),
    ],
)
def test_compare_with_refuses_a_tampered_earlier_review_naming_entry_and_field(previous, named):
    with pytest.raises(ComparisonError) as err:
        compare_with(_doc(), previous, "earlier/findings.json")
    assert str(err.value).startswith("earlier/findings.json: ") and named in str(err.value)
