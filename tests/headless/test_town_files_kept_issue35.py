"""Issue 35 item 2: a run never touches files the tool did not write.

Each output folder keeps a manifest (services/output_manifest, ``.stormwater-outputs.json``) of what each command
wrote there; a run replaces or removes only those and refuses, naming them, to overwrite anything else. A folder
an earlier release wrote (no manifest) has only the tool's names touched, and the run says so.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.services.output_manifest import MANIFEST_FILE, read_manifest
from tests.headless.demo_dem import DEMO_DEM, DEMO_SITE

from .synthetic_town import write_town

REPO = Path(__file__).resolve().parents[2]
FIRST_RELEASE_REVIEW = REPO / "tests" / "data" / "old_reviews" / "findings-4648e04-lake-george-demo.json"
needs_demo = pytest.mark.skipif(not DEMO_SITE.is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


def _check(out: Path, *extra: str) -> int:
    return main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--out", str(out), "--quiet", *extra])


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.startswith(".")}


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo checked into a new folder by this release."""
    out = tmp_path_factory.mktemp("reviewed") / "review"
    assert _check(out) == 1
    return out


@needs_demo
def test_check_into_an_application_folder_keeps_the_applicants_report_and_the_clerks_list(tmp_path, capsys):
    app = tmp_path / "SW-2026-014"
    app.mkdir()
    (app / "report.pdf").write_bytes(b"%PDF-1.4 the applicant's engineer's report")
    (app / "notification.csv").write_text("owner,address\nHartwell Family Trust,12 Lake Rd\n", encoding="utf-8")
    theirs = _files(app)
    assert _check(app) == 1
    after = _files(app)
    assert {n: after[n] for n in theirs} == theirs
    assert set(read_manifest(app) or {}) == {"findings.json", "findings.gpkg"}
    capsys.readouterr()
    assert _check(app, "--report") == 2  # it would overwrite them: refused before the work, naming them
    line = _one_line(capsys)
    assert "report.pdf" in line and "notification.csv" in line and str(app) in line
    assert _files(app) == after


@needs_demo
def test_a_recheck_keeps_the_letter_and_a_compare_it_did_not_write_and_replaces_its_own(reviewed, tmp_path, capsys):
    out = tmp_path / "review"
    shutil.copytree(reviewed, out)
    assert main(["letter", str(out), "--out", str(out / "letter.docx"), "--date", "2026-03-01"]) == 1
    assert main(["compare", str(out), str(out), "--out", str(out)]) == 1
    kept = {n: b for n, b in _files(out).items() if n.startswith(("letter", "compare"))}
    assert set(kept) == {"letter.docx", "letter.pdf", "letter.json", "compare.json"}
    assert _check(out, "--report") == 1
    assert {n: b for n, b in _files(out).items() if n in kept} == kept
    files = read_manifest(out) or {}
    assert {files[n]["command"] for n in ("letter.docx", "letter.pdf", "letter.json")} == {"letter"}
    assert files["compare.json"]["command"] == "compare" and files["report.pdf"]["command"] == "check"
    assert _check(out) == 1  # the report of the last run goes; the letter stays
    assert "report.pdf" not in _files(out) and set(kept) <= set(_files(out))


@needs_demo
def test_a_folder_of_an_earlier_release_has_only_the_tools_names_touched_and_the_run_says_so(tmp_path, capsys):
    out = tmp_path / "old-review"
    out.mkdir()
    shutil.copy(FIRST_RELEASE_REVIEW, out / "findings.json")
    (out / "report.pdf").write_bytes(b"%PDF-1.4 the earlier release's report")  # written with that run's findings.json
    (out / "site-visit notes.docx").write_bytes(b"the reviewer's notes")
    clerk = out / "notification.csv"
    clerk.write_text("owner\nHartwell Family Trust\n", encoding="utf-8")
    later = (out / "findings.json").stat().st_mtime + 2 * 86400
    os.utime(clerk, (later, later))  # the clerk's list, saved two days after the review: not the tool's
    assert _check(out) == 1
    err = capsys.readouterr().err
    assert "earlier release" in err and str(out) in err
    files = _files(out)
    assert files["site-visit notes.docx"] == b"the reviewer's notes"
    assert files["notification.csv"] == b"owner\nHartwell Family Trust\n"
    assert "report.pdf" not in files  # the earlier run's report: not left beside a new review
    assert json.loads(files["findings.json"])["findings"][0].get("key")
    assert set(read_manifest(out) or {}) == {"findings.json", "findings.gpkg"}
    assert _check(out, "--report") == 2
    assert "notification.csv" in _one_line(capsys)


@needs_demo
def test_compare_and_letter_refuse_to_overwrite_a_file_of_the_same_name_they_did_not_write(reviewed, tmp_path, capsys):
    out = tmp_path / "elsewhere"
    out.mkdir()
    (out / "compare.json").write_text('{"mine": true}', encoding="utf-8")
    (out / "letter.docx").write_bytes(b"the town's own letter")
    before = _files(out)
    capsys.readouterr()
    assert main(["compare", str(reviewed), str(reviewed), "--out", str(out)]) == 2
    assert "compare.json" in _one_line(capsys)
    assert main(["letter", str(reviewed), "--out", str(out / "letter.docx")]) == 2
    assert "letter.docx" in _one_line(capsys)
    assert _files(out) == before
    assert not (reviewed / "letter.json").exists()  # the three files of a letter go together or not at all


@needs_demo
def test_ctrl_c_while_the_letter_is_written_leaves_docx_pdf_and_letter_json_of_one_run(reviewed, tmp_path, monkeypatch):
    out = tmp_path / "review"
    shutil.copytree(reviewed, out)
    assert main(["letter", str(out), "--out", str(out / "letter.docx"), "--date", "2026-03-01"]) == 1
    before = _files(out)

    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    import stormwater_plugin.report.letter_files  # noqa: F401 - loaded, so its name can be replaced

    monkeypatch.setattr("stormwater_plugin.report.letter_files.letter_pdf_bytes", interrupted)  # the DOCX is already rendered
    with pytest.raises((KeyboardInterrupt, SystemExit)):
        code = main(["letter", str(out), "--out", str(out / "letter.docx"), "--date", "2026-04-01"])
        assert code != 0
        raise SystemExit(code)
    assert _files(out) == before
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("town4")
    write_town(folder, 4, cell=2.0, cols=2)
    return folder


def _batch(town: Path, out: Path, jurisdiction: str = "lgpc") -> int:
    return main(["batch", str(town / "town.gpkg"), "--dem", str(town / "dem.tif"), "--jurisdiction", jurisdiction, "--class", "major",
                 "--workers", "1", "--quiet", "--out", str(out)])


@pytest.mark.parametrize("earlier_release", [False, True], ids=["manifest", "no-manifest"])
def test_batch_with_other_inputs_keeps_the_towns_letters_in_the_site_folders(town, tmp_path, capsys, earlier_release):
    out = tmp_path / "screening"
    assert _batch(town, out) in (0, 1)
    site = sorted((out / "sites").iterdir())[0]
    (site / "letter to owner.docx").write_bytes(b"the town's letter")
    (out / "sites" / "town-notes").mkdir()
    (out / "sites" / "town-notes" / "minutes.txt").write_text("kept", encoding="utf-8")
    if earlier_release:
        (out / MANIFEST_FILE).unlink()
    assert _batch(town, out, jurisdiction="lake-george") in (0, 1)
    assert (site / "letter to owner.docx").read_bytes() == b"the town's letter"
    assert (out / "sites" / "town-notes" / "minutes.txt").read_text(encoding="utf-8") == "kept"
    assert json.loads((site / "findings.json").read_text(encoding="utf-8"))["jurisdiction"] == "lake-george"
    assert ("earlier release" in capsys.readouterr().err) is earlier_release


def test_batch_refuses_a_site_findings_json_it_did_not_write_in_one_line(town, tmp_path, capsys):
    out = tmp_path / "screening"
    assert _batch(town, out) in (0, 1)
    site = sorted((out / "sites").iterdir())[0]
    files = json.loads((out / MANIFEST_FILE).read_text(encoding="utf-8"))
    del files["files"][f"sites/{site.name}/findings.json"]  # as if the town had put its own findings.json there
    (out / MANIFEST_FILE).write_text(json.dumps(files), encoding="utf-8")
    before = (site / "findings.json").read_bytes()
    capsys.readouterr()
    assert _batch(town, out, jurisdiction="lake-george") == 2
    assert f"sites/{site.name}/findings.json" in _one_line(capsys)
    assert (site / "findings.json").read_bytes() == before
