"""Issue 35 item 4: `compare` and `letter --previous` read every findings.json format this project has written.

The fixtures (tests/data/old_reviews, see its README) are the findings.json the first release (4648e04, no finding
keys) and the first release with keys (873a5cc) wrote for their own demo site. The current review is a check of
today's demo: DW-1's 14 ft septic violation and C-1's no-cut buffer violation are still there, so they must read
"still open" / "not addressed", never "resolved".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.core.compare import compare_reviews, with_keys

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
OLD = REPO / "tests" / "data" / "old_reviews"
FIRST = OLD / "findings-4648e04-lake-george-demo.json"
KEYED = OLD / "findings-873a5cc-lake-george-demo.json"
SEPTIC = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"
NO_CUT = "lake-george.minor.no-cut-buffer-35|clearing:C-1|shoreline:SH-1"
needs_demo = pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


@pytest.fixture(scope="module")
def current(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("current") / "review"
    code = main([str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", str(out), "--quiet"])
    assert code == 1
    return out


def _earlier(tmp_path: Path, fixture: Path) -> Path:
    folder = tmp_path / "earlier"
    folder.mkdir()
    shutil.copy2(fixture, folder / "findings.json")
    return folder


@needs_demo
@pytest.mark.parametrize("fixture", [FIRST, KEYED], ids=["4648e04-no-keys", "873a5cc-keys"])
def test_compare_with_an_earlier_releases_review_keeps_the_still_violating_devices_open(tmp_path, capsys, current, fixture):
    code = main(["compare", str(fixture), str(current), "--out", str(tmp_path / "cmp")])
    out = capsys.readouterr().out
    assert code == 1
    cmp = json.loads((tmp_path / "cmp" / "compare.json").read_text(encoding="utf-8"))
    still = {e["key"] for e in cmp["still_open"]}
    assert {SEPTIC, NO_CUT} <= still
    assert not {SEPTIC, NO_CUT} & {e["key"] for e in cmp["resolved"] + cmp["new"]}
    if fixture == FIRST:
        assert "without finding keys" in out and cmp["notes"]
    else:
        assert not cmp["notes"]


@needs_demo
def test_letter_previous_of_the_first_release_marks_the_standing_violations_not_addressed(tmp_path, capsys, current):
    review = tmp_path / "review"
    shutil.copytree(current, review)
    earlier = _earlier(tmp_path, FIRST)
    code = main(["letter", str(review), "--previous", str(earlier), "--out", str(tmp_path / "letter" / "letter.docx"), "--date", "2026-03-01"])
    assert code == 1, capsys.readouterr().err
    letter = json.loads((review / "letter.json").read_text(encoding="utf-8"))
    marks = {k: p["mark"] for p in letter["prior"] for k in p["comment"]["keys"]}
    assert marks[SEPTIC] == "not addressed" and marks[NO_CUT] == "not addressed"
    assert not {SEPTIC, NO_CUT} & {k for c in letter["comments"] for k in c["keys"]}  # never raised again under a new number


@needs_demo
@pytest.mark.parametrize("damage", [
    lambda d: d.update(findings={"a": 1}),
    lambda d: d["findings"].__setitem__(0, None),
    lambda d: d["findings"][0].update(status="maybe"),
    lambda d: d["findings"][0].update(subject="DW-1"),
    lambda d: d["findings"][0].pop("rule_id"),
], ids=["findings-not-a-list", "null-finding", "unknown-status", "subject-text", "no-rule"])
def test_a_findings_json_in_no_format_this_project_wrote_is_refused_in_one_line(tmp_path, capsys, current, damage):
    doc = json.loads(FIRST.read_text(encoding="utf-8"))
    damage(doc)
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "findings.json").write_text(json.dumps(doc), encoding="utf-8")
    for argv in (["compare", str(earlier), str(current), "--out", str(tmp_path / "cmp")],
                 ["letter", str(current), "--previous", str(earlier), "--out", str(tmp_path / "l" / "letter.docx")]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "format" in err[0] and "Traceback" not in err[0], err


def _f(rule: str, subject: str, other: str | None, status: str, **details: str) -> dict[str, object]:
    return {"rule_id": rule, "status": status, "subject": {"layer": "devices", "id": subject},
            "other": {"layer": "septic", "id": other} if other else None, "details": details, "measured_ft": 1.0, "required_ft": 2.0}


def test_keyless_findings_of_one_rule_and_pair_match_the_current_ones_by_qualifier_then_in_order():
    new = {"findings": [dict(_f("r.sep", "D1", None, "violation", limit="bedrock"), key="r.sep|devices:D1|-|limit=bedrock"),
                        dict(_f("r.sep", "D1", None, "violation", limit="water"), key="r.sep|devices:D1|-|limit=water"),
                        dict(_f("r.set", "D2", "S1", "violation"), key="r.set|devices:D2|septic:S1")]}
    # the earlier release's details told nothing apart: matched in order, never "resolved" while they stand
    old = {"findings": [_f("r.sep", "D1", None, "violation"), _f("r.sep", "D1", None, "violation"), _f("r.set", "D2", "S1", "violation")]}
    keyed = with_keys(old, new)
    assert [f["key"] for f in keyed["findings"]] == [f["key"] for f in new["findings"]]
    cmp = compare_reviews(old, new)
    assert cmp["counts"]["still_open"] == 3 and cmp["counts"]["resolved"] == cmp["counts"]["new"] == 0
    assert with_keys(new, old) is new  # a keyed document is read as it is
