"""Issue 23, typed results end to end: one document per review, decided once; findings.json, findings.gpkg and the report read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shapely.geometry import Point, box

from stormwater_plugin.cli import main
from stormwater_plugin.core.overrides import make_override
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.report.model import build_report_model
from stormwater_plugin.services.review import review_of
from stormwater_plugin.services.session import ReviewSession
from tests.headless.sitefiles import write_dem, write_site
from tests.sitebuilder import device, layer, plane_dem, run, septic_square


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("site")
    pkg = write_site(d, "EPSG:32618")
    dem = write_dem(d / "dem.tif", "EPSG:32618", 2.0)
    return pkg, ["--dem", str(dem), "--jurisdiction", "lgpc"]


def _gpkg_rows(path: Path) -> dict[str, dict]:
    import fiona  # lazy: a third-party reader, as the other gpkg tests load it

    rows: dict[str, dict] = {}
    for name in fiona.listlayers(path):
        if not name.startswith("findings_"):
            continue
        with fiona.open(path, layer=name) as src:
            for feat in src:
                props = dict(feat["properties"])
                rows[props["key"]] = props
    return rows


def test_a_decided_finding_shows_its_decision_in_findings_json_and_findings_gpkg(site, tmp_path):
    pkg, args = site
    first = tmp_path / "first"
    assert main([str(pkg), *args, "--out", str(first), "--no-report"]) in (0, 1)
    doc = json.loads((first / "findings.json").read_text(encoding="utf-8"))
    drawn = _gpkg_rows(first / "findings.gpkg")
    decided = [f for f in doc["findings"] if f["key"] in drawn and f["status"] in ("violation", "advisory", "undetermined")][:2]
    assert decided, "the site has a drawn finding to decide on"
    entries = [{"key": f["key"], "decision": d, "reason": f"reason {n}", "reviewer": "J. Smith", "date": "2026-03-05"}
               for n, (f, d) in enumerate(zip(decided, ("waived", "accepted")))]
    ov = tmp_path / "overrides.json"
    ov.write_text(json.dumps({"format": "stormwater-check-overrides", "version": 1, "overrides": entries}), encoding="utf-8")
    out = tmp_path / "decided"
    main([str(pkg), *args, "--out", str(out), "--no-report", "--overrides", str(ov)])
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    rows = _gpkg_rows(out / "findings.gpkg")
    assert rows and set(rows) <= {f["key"] for f in doc["findings"]}
    for f in doc["findings"]:
        if f["key"] not in rows:
            continue
        row, o = rows[f["key"]], f["override"] or {}
        assert (row["status"], row["effective_status"], row["decision"], row["decision_reason"], row["decision_reviewer"]) == (
            f["status"], f["effective_status"], o.get("decision"), o.get("reason"), o.get("reviewer")), f["key"]
    for e in entries:
        assert rows[e["key"]]["effective_status"] == e["decision"] == next(f for f in doc["findings"] if f["key"] == e["key"])["effective_status"]


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


def test_the_report_lists_the_checks_inventory_by_the_packs_roles_646_4_13_a_7():
    """The report reads ``result.inventory`` (the plot-plan rule's rows) instead of measuring again: same ids, same distances."""
    g, a = device(25.0, 0.0)
    layers = {
        "septic": layer("septic", [septic_square()], ["S1"]),
        "devices": layer("devices", [g], ["D1"], [a]),
        "wells": layer("wells", [Point(400.0, 0.0), Point(150.0, 0.0)], ["W-far", "W-near"]),
        "parcels": layer("parcels", [box(-100, -100, 100, 100)], ["P1"], [{"is_site": 1}]),
    }
    result = run("lgpc", layers, plane_dem(-500, -500, 1000, 5.0, gx=0.05, gy=0.0))
    assert result.inventory
    model = build_report_model(result, layers, 1.0, doc=review_of(result).doc, report_date="2026-01-01")
    inv = model["inventory"]
    rule = next(r for r in load_pack("lgpc").rules if r.kind == "plot_plan_inventory")
    assert inv["computed"] and inv["radius_ft"] == float(rule.params["distance_ft"])
    assert sorted((r["layer"], r["id"], r["distance_ft"]) for r in inv["rows"]) == sorted((r["layer"], r["id"], r["distance_ft"]) for r in result.inventory)
    assert "W-far" not in {r["id"] for r in inv["rows"]} and "W-near" in {r["id"] for r in inv["rows"]}
    assert "Building site (proposed)" in inv["absent"] and "Impervious surface" in inv["absent"]  # the rule's roles, not supplied


def test_the_report_lists_no_inventory_where_the_plot_plan_rule_does_not_apply():
    """Lake George's plot-plan rule binds minor and major projects only: an exempt project's report measures nothing."""
    g, a = device(25.0, 0.0)
    layers = {"devices": layer("devices", [g], ["D1"], [a]), "parcels": layer("parcels", [box(-100, -100, 100, 100)], ["P1"], [{"is_site": 1}])}
    result = run("lake-george", layers, plane_dem(-500, -500, 1000, 5.0, gx=0.05, gy=0.0), project_class="exempt")
    inv = build_report_model(result, layers, 1.0, doc=review_of(result).doc, report_date="2026-01-01")["inventory"]
    assert not inv["computed"] and not inv["rows"] and "does not apply" in inv["reason"]
