"""Resubmissions and data accuracy through the command line (issue 18)."""

from __future__ import annotations

import json

from stormwater_plugin.cli import main
from stormwater_plugin.core.compare import compare_documents
from tests.headless.sitefiles import write_dem, write_site

SEPTIC_RULE = "lgpc.minor.septic-upgradient-20|devices:D1|septic:S1"


def _check(tmp_path, name, *extra):
    site = tmp_path / "site"
    if not (site / "site.gpkg").exists():
        site.mkdir(exist_ok=True)
        write_site(site, "EPSG:32618")
        write_dem(tmp_path / "dem.tif", "EPSG:32618", 2.0)
    gpkg = next(site.glob("*.gpkg"))
    out = tmp_path / name
    code = main([str(gpkg), "--dem", str(tmp_path / "dem.tif"), "--jurisdiction", "lgpc", "--class", "minor", "--out", str(out), "--quiet", *extra])
    return code, out


def _finding(doc, key):
    return next(f for f in doc["findings"] if f["key"] == key)


def test_check_with_previous_writes_compare_json_and_the_report_section(tmp_path):
    code, first = _check(tmp_path, "first")
    assert code == 1
    code, second = _check(tmp_path, "second", "--previous", str(first), "--report")
    doc = json.loads((second / "findings.json").read_text(encoding="utf-8"))
    cmp = json.loads((second / "compare.json").read_text(encoding="utf-8"))
    assert doc["comparison"]["counts"] == cmp["counts"]
    assert SEPTIC_RULE in {e["key"] for e in cmp["still_open"]}
    assert cmp["counts"]["new"] == 0 and cmp["counts"]["resolved"] == 0
    html = (second / "report.html").read_text(encoding="utf-8")
    assert "Since the last review" in html and "Positional accuracy" in html


def test_compare_command_equals_the_core_comparison_and_reports_the_class_change(tmp_path, capsys):
    _check(tmp_path, "minor")
    site = next((tmp_path / "site").glob("*.gpkg"))
    main([str(site), "--dem", str(tmp_path / "dem.tif"), "--jurisdiction", "lgpc", "--class", "major", "--out", str(tmp_path / "major"), "--quiet"])
    capsys.readouterr()
    code = main(["compare", str(tmp_path / "minor"), str(tmp_path / "major" / "findings.json"), "--out", str(tmp_path / "cmp")])
    printed = capsys.readouterr().out
    cmp = json.loads((tmp_path / "cmp" / "compare.json").read_text(encoding="utf-8"))
    old = json.loads((tmp_path / "minor" / "findings.json").read_text(encoding="utf-8"))
    new = json.loads((tmp_path / "major" / "findings.json").read_text(encoding="utf-8"))
    expected = compare_documents(old, new)
    assert {k: v for k, v in cmp.items() if k != "previous"} == json.loads(json.dumps(expected))
    assert cmp["project_class"] == {"old": "minor", "new": "major"}
    assert SEPTIC_RULE in {e["key"] for e in cmp["resolved"]}
    assert "class minor → major" in printed
    assert code in (0, 1)


def test_compare_refuses_reviews_of_different_jurisdictions(tmp_path, capsys):
    _check(tmp_path, "lgpc")
    site = next((tmp_path / "site").glob("*.gpkg"))
    main([str(site), "--dem", str(tmp_path / "dem.tif"), "--jurisdiction", "lake-george", "--class", "minor", "--out", str(tmp_path / "lg"), "--quiet"])
    assert main(["compare", str(tmp_path / "lgpc"), str(tmp_path / "lg"), "--out", str(tmp_path / "cmp")]) == 2
    assert "different jurisdictions" in capsys.readouterr().err


def test_accuracy_option_makes_a_near_pass_undetermined_and_names_unstated_roles(tmp_path):
    _code, plain = _check(tmp_path, "plain")
    doc = json.loads((plain / "findings.json").read_text(encoding="utf-8"))
    assert doc["accuracy"]["unstated_roles"]
    _code, acc = _check(tmp_path, "acc", "--accuracy", "septic=100", "--accuracy", "devices=1")
    doc = json.loads((acc / "findings.json").read_text(encoding="utf-8"))
    assert doc["accuracy"]["roles"] == {"septic": 100.0, "devices": 1.0}
    f = _finding(doc, SEPTIC_RULE)
    assert f["near_limit"] is True and f["accuracy_ft"] == 100.0
    assert f["status"] == "violation"


def test_bad_accuracy_option_exits_2_naming_the_option(tmp_path, capsys):
    code, _ = _check(tmp_path, "bad", "--accuracy", "septik=10")
    assert code == 2
    assert "--accuracy septik=10" in capsys.readouterr().err
