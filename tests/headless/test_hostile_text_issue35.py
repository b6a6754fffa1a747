"""Hostile text (issue 35 item 5): formula cells guarded, control characters out of the CSV, the letter and the terminal,
and a NUL inside an owner's name read whole from the GeoPackage instead of cut."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.report.notification_csv import csv_text, notification_rows

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "site.gpkg"
DEM = ROOT / "resources" / "demo" / "dem.tif"


@pytest.mark.parametrize("owner", ["-2+3+cmd|' /C calc'!A0", "=HYPERLINK(\"x\")", "+1", "@SUM(A1)", "\t=1", "\r=1", " =1", "  -1"])
def test_a_notification_cell_a_spreadsheet_would_run_as_a_formula_is_kept_as_text(owner):
    rows = notification_rows({"owners": [{"owner": owner, "mailing_address": "1 Main St", "parcels": ["P1"], "distance_ft": 10.0}]})
    cell = next(csv.reader(io.StringIO(csv_text(rows).splitlines()[1])))[0]
    assert cell.startswith("'") and "\t" not in cell and "\r" not in cell


def test_control_characters_in_an_owner_row_are_removed_and_named():
    from stormwater_plugin.report.notification_csv import cleaned_warning

    rows = notification_rows({"owners": [{"owner": "Hartwell\x00 Family\x0bTrust", "mailing_address": "\x1b[2J1 Main St", "parcels": ["P1"]}]})
    assert rows[0]["owner"] == "Hartwell Family Trust" and rows[0]["mailing_address"] == "1 Main St"
    w = cleaned_warning(rows)
    assert w is not None and "owner" in w and "mailing_address" in w


def test_a_vertical_tab_in_the_reviewer_name_and_a_nul_in_the_applicant_still_write_the_letter(tmp_path, capsys):
    out = tmp_path / "out"
    main(["check", str(DEMO), "--dem", str(DEM), "--jurisdiction", "lgpc", "--out", str(out), "--quiet"])
    code = main(["letter", str(out), "--out", str(tmp_path / "l.docx"), "--reviewer", "Jane\x0bDoe", "--applicant", "Hart\x00well"])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert "--reviewer" in err and "--applicant" in err
    from docx import Document

    text = "\n".join(p.text for p in Document(str(tmp_path / "l.docx")).paragraphs)
    assert "Jane Doe" in text and "Hartwell" in text and "\x0b" not in text


def test_register_list_never_prints_a_terminal_escape(tmp_path, capsys):
    folder = tmp_path / "reg"
    assert main(["register", "add", str(folder), "A-1", "--applicant", "\x1b[31mEVIL\x1b[0m\x0bCorp"]) == 0
    capsys.readouterr()
    assert main(["register", "list", str(folder)]) == 0
    got = capsys.readouterr()
    assert "\x1b" not in got.out and "\x0b" not in got.out and "EVIL Corp" in got.out
    assert "control characters" in got.err


def test_a_nul_in_an_owner_name_is_read_whole_from_the_geopackage_and_warned(tmp_path):
    site = tmp_path / "site.gpkg"
    shutil.copy(DEMO, site)
    con = sqlite3.connect(site)
    for f in ("ST_IsEmpty", "ST_MinX", "ST_MaxX", "ST_MinY", "ST_MaxY"):  # the package's R-tree triggers call them
        con.create_function(f, 1, lambda g: 0)
    fid = con.execute("SELECT fid FROM parcels WHERE is_site = 0 ORDER BY fid LIMIT 1").fetchone()[0]
    con.execute("UPDATE parcels SET PRMY_OWNER = CAST(? AS TEXT) WHERE fid = ?", (b"Hartwell\x00 Family Trust", fid))
    con.commit()
    con.close()
    out = tmp_path / "out"
    main(["check", str(site), "--dem", str(DEM), "--jurisdiction", "lgpc", "--out", str(out), "--report", "--quiet"])
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    assert "text_nul_restored" in [w["code"] for w in doc["warnings"]]
    assert "Hartwell Family Trust" in (out / "notification.csv").read_text(encoding="utf-8-sig")
