"""The register of applications (issue 28): `stormwater-check register add|list|show|set-status|set|record|resubmit` and `batch --register`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stormwater_plugin.cli import SUBCOMMANDS, main
from stormwater_plugin.services.register import STATUSES, Application, Register, RegisterError, counts_of, normalise_status

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
needs_demo = pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


def _reg(tmp_path: Path) -> Path:
    folder = tmp_path / "register"
    (folder / "SW-1").mkdir(parents=True)
    shutil.copy2(DEMO / "site.gpkg", folder / "SW-1" / "site.gpkg")
    assert main(["register", "add", str(folder), "SW-1", "--applicant", "J. Doe", "--address", "12 Lake Rd", "--package", str(folder / "SW-1" / "site.gpkg"),
                 "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--dem-z-units", "m", "--due", "2026-03-01",
                 "--reviewer", "A. Reviewer", "--accuracy", "septic=10"]) == 0
    assert main(["register", "add", str(folder), "SW-2", "--status", "Under-Review", "--received", "2026-02-02"]) == 0
    return folder


def test_register_help_names_every_status(capsys):
    assert main(["register", "set-status", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for s in STATUSES:
        assert f'"{s}"' in out
    assert "register" in SUBCOMMANDS


@needs_demo
def test_add_stores_package_relative_to_the_register_and_resolves_it(tmp_path):
    folder = _reg(tmp_path)
    data = json.loads((folder / "register.json").read_text(encoding="utf-8"))
    assert data["format"] == "stormwater-register"
    a = data["applications"][0]
    assert a["package"] == "SW-1/site.gpkg" and a["status"] == "received" and a["round"] == 1 and a["dem_z_units"] == "m"
    assert data["applications"][1]["status"] == "under review"
    reg = Register.open(folder)
    assert reg.resolve(reg.get("SW-1").package) == folder / "SW-1" / "site.gpkg"


@needs_demo
def test_add_refuses_an_unknown_status_a_bad_date_and_a_duplicate_id_with_one_line(tmp_path, capsys):
    folder = _reg(tmp_path)
    for extra in (["SW-3", "--status", "pending"], ["SW-3", "--due", "03/01/2026"], ["SW-1"], ["SW-4", "--package", str(tmp_path / "nope.gpkg")]):
        assert main(["register", "add", str(folder), *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("stormwater-check register")
    assert [a.id for a in Register.open(folder).applications] == ["SW-1", "SW-2"]


@needs_demo
def test_set_status_comments_sent_dates_the_review_and_list_filters_by_status(tmp_path, capsys):
    folder = _reg(tmp_path)
    assert main(["register", "set-status", str(folder), "SW-1", "comments sent", "--date", "2026-02-16"]) == 0
    app = Register.open(folder).get("SW-1")
    assert app.status == "comments sent" and app.reviewed == "2026-02-16"
    capsys.readouterr()
    assert main(["register", "list", str(folder), "--status", "under review"]) == 0
    out = capsys.readouterr().out
    assert "SW-2" in out and "SW-1" not in out
    assert main(["register", "show", str(folder), "SW-1"]) == 0
    shown = capsys.readouterr().out
    assert "12 Lake Rd" in shown and "comments sent" in shown and "not reviewed" in shown


@needs_demo
def test_record_counts_a_checks_violations_undetermined_and_open_decisions(tmp_path, capsys):
    folder = _reg(tmp_path)
    out = tmp_path / "out"
    assert main([str(folder / "SW-1" / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--dem-z-units", "m",
                 "--out", str(out), "--quiet"]) == 1
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    assert main(["register", "record", str(folder), "SW-1", str(out)]) == 0
    lr = Register.open(folder).get("SW-1").last_review
    assert lr is not None and (lr.violations, lr.undetermined, lr.open_decisions) == counts_of(doc)
    assert lr.violations == doc["counts"]["violation"] > 0 and lr.open_decisions == lr.violations + lr.undetermined
    assert Path(lr.output) == out


def test_a_decided_violation_is_not_an_open_decision():
    doc = {"findings": [{"status": "violation", "override": {"decision": "accepted"}}, {"status": "violation"},
                        {"status": "undetermined"}, {"status": "pass"}, {"status": "advisory"}]}
    assert counts_of(doc) == (2, 1, 2)


@needs_demo
def test_batch_with_register_fills_the_counts_of_the_application_whose_package_it_screened(tmp_path, capsys):
    folder = _reg(tmp_path)
    out = tmp_path / "batch"
    code = main(["batch", str(folder / "SW-1" / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george",
                 "--dem-z-units", "m", "--workers", "1", "--out", str(out), "--register", str(folder)])
    assert code == 1
    reg = Register.open(folder)
    lr = reg.get("SW-1").last_review
    assert lr is not None and lr.by == "batch" and lr.violations > 0
    assert (out / "sites").exists() and Path(lr.output).parent == out / "sites"
    assert reg.get("SW-2").last_review is None  # its package was not screened
    capsys.readouterr()
    assert main(["register", "list", str(folder), "--worst-first"]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:3]]
    assert rows == ["SW-1", "SW-2"]


@needs_demo
def test_resubmit_moves_the_last_review_to_the_previous_round(tmp_path):
    folder = _reg(tmp_path)
    reg = Register.open(folder)
    reg.record_review("SW-1", {"findings": [{"status": "violation"}]}, output="round1/out")
    reg.save()
    assert main(["register", "resubmit", str(folder), "SW-1", "--received", "2026-04-01"]) == 0
    app = Register.open(folder).get("SW-1")
    assert (app.round, app.status, app.previous_output, app.last_review, app.received) == (2, "received", "round1/out", None, "2026-04-01")


@needs_demo
def test_set_changes_a_per_application_setting_and_refuses_a_bad_unit(tmp_path):
    folder = _reg(tmp_path)
    assert main(["register", "set", str(folder), "SW-2", "site_parcel=P-7", "dem-z-units=ft", "project_class=minor"]) == 0
    app = Register.open(folder).get("SW-2")
    assert (app.site_parcel, app.dem_z_units, app.project_class) == ("P-7", "ft", "minor")
    assert main(["register", "set", str(folder), "SW-2", "dem_z_units=yards"]) == 2
    assert Register.open(folder).get("SW-2").dem_z_units == "ft"


def test_next_and_previous_follow_the_filter_and_stop_at_the_ends(tmp_path):
    reg = Register.create(tmp_path / "r")
    for i, st in enumerate(("received", "comments sent", "received", "approved")):
        reg.add(Application(id=f"A{i}", status=st))
    assert reg.neighbour("A0", 1).id == "A1"
    assert reg.neighbour("A0", 1, ["received"]).id == "A2"
    assert reg.neighbour("A2", 1, ["received"]) is None
    assert reg.neighbour("A0", -1) is None
    assert reg.neighbour(None, 1).id == "A0"
    assert normalise_status("APPROVED_with-conditions") == "approved with conditions"
    with pytest.raises(RegisterError):
        normalise_status("closed")


def test_unknown_keys_in_register_json_survive_a_rewrite(tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "register.json").write_text(json.dumps({"format": "stormwater-register", "applications": [{"id": "X", "permit_fee": 150}]}))
    reg = Register.open(folder)
    reg.set_status("X", "incomplete")
    reg.save()
    assert json.loads((folder / "register.json").read_text())["applications"][0]["permit_fee"] == 150


def test_a_register_json_of_another_tool_is_refused(tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "register.json").write_text("{}")
    with pytest.raises(RegisterError, match="not a stormwater register"):
        Register.open(folder)
