"""Issue 23, typed results end to end: one document per review, decided once; findings.json, findings.gpkg and the report read it."""

from __future__ import annotations

import json

from stormwater_plugin.core.overrides import make_override
from stormwater_plugin.services.review import review_of
from stormwater_plugin.services.session import ReviewSession
from tests.sitebuilder import device, layer, plane_dem, run, septic_square


def _result():
    g, a = device(25.0, 0.0)
    layers = {"septic": layer("septic", [septic_square()], ["S1"]), "devices": layer("devices", [g], ["D1"], [a])}
    return run("lgpc", layers, plane_dem(-200, -200, 400, 2.0, gx=0.05, gy=0.0))


def test_an_edit_of_the_document_is_kept_through_decisions_and_never_made_in_place():
    result = _result()
    key = next(f["key"] for f in review_of(result).doc["findings"] if f["status"] == "violation")
    review = review_of(result, crs_name="grid")
    before = json.dumps(review.doc)

    def note(doc):
        doc["findings"][0]["context_sources"] = ["town catalog"]
        doc.setdefault("inputs", {})["context"] = {"catalog": "x"}

    edited = review.edited(note)
    assert json.dumps(review.doc) == before  # the first review is untouched
    assert edited.doc["findings"][0]["context_sources"] == ["town catalog"] and edited.doc["inputs"]["context"] == {"catalog": "x"}
    waived = edited.decided([make_override(key, "waived", "variance", "J. Smith")])
    assert waived.doc["findings"][0]["context_sources"] == ["town catalog"]
    assert next(f for f in waived.doc["findings"] if f["key"] == key)["effective_status"] == "waived"
    assert edited.with_section("completeness", {"complete": True}).decided([]).doc["completeness"] == {"complete": True}


def test_the_sessions_comparison_goes_through_the_review_not_into_the_document_shown():
    session = ReviewSession()
    shown = session.set_result(_result(), None, [])
    before = json.dumps(shown.doc)
    session.set_comparison({"counts": {"resolved": 1}})
    assert json.dumps(shown.doc) == before and "comparison" not in shown.doc
    assert session.review is not None and session.review.doc["comparison"] == {"counts": {"resolved": 1}}
    session.set_comparison(None)
    assert "comparison" not in session.review.doc
