"""A resubmission of the demo site through the command line (issue 18): move a device, remove a well, rename an id, change the class."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from tests.headless.sitefiles import edit_layer

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
SEPTIC_DW1 = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"

pytestmark = pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


_edit = edit_layer


def _moved(dx: float):
    def fn(f):
        if f["properties"]["id"] != "DW-1":
            return f
        x, y = f["geometry"]["coordinates"]
        return {"geometry": {"type": "Point", "coordinates": (x + dx, y)}, "properties": dict(f["properties"])}
    return fn


def _check(gpkg: Path, out: Path, *extra: str) -> dict:
    code = main([str(gpkg), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--dem-z-units", "m", "--out", str(out), "--quiet", *extra])
    assert code in (0, 1)
    return json.loads((out / "findings.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    folder = tmp_path_factory.mktemp("first")
    shutil.copy2(DEMO / "site.gpkg", folder / "site.gpkg")
    doc = _check(folder / "site.gpkg", folder / "out")
    assert next(f for f in doc["findings"] if f["key"] == SEPTIC_DW1)["status"] == "violation"
    return folder / "out"


def test_moving_dw_1_west_resolves_its_septic_violation_and_the_decision_goes_stale(first, tmp_path):
    overrides = tmp_path / "overrides.json"
    overrides.write_text(json.dumps({"format": "stormwater-check-overrides", "version": 1, "overrides": [
        {"key": SEPTIC_DW1, "decision": "waived", "reason": "variance V-1", "reviewer": "R. Reviewer", "status_when_made": "violation"}]}), encoding="utf-8")
    base = tmp_path / "decided"
    shutil.copy2(DEMO / "site.gpkg", tmp_path / "site.gpkg")
    _check(tmp_path / "site.gpkg", base, "--overrides", str(overrides))
    # 15 ft west, away from S-1: clear even for the largest dry well its point may stand for (8 ft reach, issue 33)
    _edit(tmp_path / "site.gpkg", "devices", _moved(-15.0 / 3.2808))
    doc = _check(tmp_path / "site.gpkg", tmp_path / "second", "--previous", str(base))
    cmp = doc["comparison"]
    resolved = {e["key"]: e for e in cmp["resolved"]}
    assert SEPTIC_DW1 in resolved and resolved[SEPTIC_DW1]["new"]["status"] == "pass"
    decisions = {d["key"]: d["state"] for d in cmp["decisions"]}
    assert decisions[SEPTIC_DW1] == "review_again"
    assert (tmp_path / "second" / "compare.json").is_file()


def test_removing_a_well_resolves_or_drops_only_its_findings(first, tmp_path):
    shutil.copy2(DEMO / "site.gpkg", tmp_path / "site.gpkg")
    _edit(tmp_path / "site.gpkg", "wells", lambda f: None if f["properties"]["id"] == "W-1" else f)
    doc = _check(tmp_path / "site.gpkg", tmp_path / "out", "--previous", str(first))
    cmp = doc["comparison"]
    touched = [e for cat in ("resolved", "new", "changed") for e in cmp[cat]]
    assert all("W-1" in e["key"] or e["rule_id"].endswith(("inventory", "100ft")) or "wells" in e["key"] or "plot-plan" in e["rule_id"] for e in touched), touched
    assert cmp["counts"]["new"] == 0


def test_renaming_dw_1_keeps_its_findings_matched(first, tmp_path):
    shutil.copy2(DEMO / "site.gpkg", tmp_path / "site.gpkg")
    _edit(tmp_path / "site.gpkg", "devices", lambda f: {"geometry": f["geometry"], "properties": dict(f["properties"], id="DW-1a")}
          if f["properties"]["id"] == "DW-1" else f)
    doc = _check(tmp_path / "site.gpkg", tmp_path / "out", "--previous", str(first))
    cmp = doc["comparison"]
    assert {"layer": "devices", "old_id": "DW-1", "new_id": "DW-1a", "distance_ft": 0.0} in cmp["renamed_features"]
    assert SEPTIC_DW1.replace("DW-1|", "DW-1a|") in {e["key"] for e in cmp["still_open"]}
    assert cmp["counts"]["new"] == 0 and cmp["counts"]["resolved"] == 0


def test_changing_the_class_to_major_is_reported_with_the_minor_rules_resolved(first, tmp_path):
    doc = _check(DEMO / "site.gpkg", tmp_path / "out", "--class", "major", "--previous", str(first))
    cmp = doc["comparison"]
    assert cmp["project_class"] == {"old": "minor", "new": "major"}
    assert SEPTIC_DW1 in {e["key"] for e in cmp["resolved"]}
