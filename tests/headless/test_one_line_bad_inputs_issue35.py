"""One line for every bad input (issue 35 item 7): exit 2, naming the file, what it is and what to do; never "this is a bug".

Each file is made to the pattern of the real one that failed: a DWG (its version string first), a binary DXF
(written by ezdxf), the demo plan as DXF given where GIS data belongs, a GML layer (GDAL cannot count it
without reading), a DXF whose $INSUNITS says inches or metres while it is drawn in feet, a DXF with a NaN
vertex, and register.json / findings.json edited by hand (a null entry, a text where a list belongs, 1e400).
"""

from __future__ import annotations

import copy
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stormwater_plugin.cli import main

from .cad_drawings import demo_plan_dxf

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "site.gpkg"
DEM = ROOT / "resources" / "demo" / "dem.tif"


def _one_line(capsys, code: int) -> str:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert "bug" not in err and "Traceback" not in err, err
    assert len(err.splitlines()) <= 2, err
    return err


@pytest.fixture(scope="module")
def drawings(tmp_path_factory) -> Path:
    import ezdxf

    d = tmp_path_factory.mktemp("cad")
    (d / "plan.dwg").write_bytes(b"AC1032" + bytes(256))
    plan = demo_plan_dxf(d / "plan.dxf")
    ezdxf.readfile(plan).saveas(d / "binary.dxf", fmt="bin")
    demo_plan_dxf(d / "inches.dxf", insunits=1)
    demo_plan_dxf(d / "metres.dxf", insunits=6)
    doc = ezdxf.readfile(plan)
    doc.modelspace().add_lwpolyline([(1000, 1000), (float("nan"), 1000), (1000, 1100)], close=True, dxfattribs={"layer": "C-SSWR-SEPT"})
    doc.saveas(d / "nan.dxf")
    return d


@pytest.mark.parametrize("name, words", [
    ("plan.dwg", ["a DWG drawing", "save it as DXF"]),
    ("binary.dxf", ["a binary DXF", "save it as ASCII DXF"]),
    ("nan.dxf", ["C-SSWR-SEPT", "not a number"]),
    ("inches.dxf", ["declares its unit as inches", "$INSUNITS"]),
    ("metres.dxf", ["declares its unit as metres", "$INSUNITS"]),
])
def test_import_cad_refuses_a_drawing_it_cannot_import_in_one_line(drawings, tmp_path, capsys, name, words):
    code = main(["import-cad", str(drawings / name), "--crs", "EPSG:2260", "--out", str(tmp_path / "site.gpkg")])
    err = _one_line(capsys, code)
    assert name in err and all(w in err for w in words), err
    assert "DWG" not in err or name.endswith(".dwg")  # a binary DXF is not called a DWG


@pytest.mark.parametrize("given", ["devices=plan.dwg", "devices=binary.dxf", "devices=plan.dxf", "devices=plan.dxf:entities", "SITE=plan.dxf"])
def test_a_cad_drawing_given_as_gis_data_says_import_cad(drawings, tmp_path, capsys, given):
    role, _, name = given.partition("=")
    args = [str(drawings / name)] if role == "SITE" else [str(DEMO), "--layer", f"{role}={drawings / name}"]
    code = main(["check", *args, "--jurisdiction", "lgpc", "--out", str(tmp_path / "o"), "--quiet"])
    err = _one_line(capsys, code)
    assert "import-cad" in err and name.split(":")[0] in err and "not GIS data" in err, err
    assert "does not support counting" not in err


def test_a_gml_layer_given_as_a_role_is_read_not_refused_for_counting(tmp_path, capsys):
    import geopandas as gpd

    gml = tmp_path / "devices.gml"
    gpd.read_file(DEMO, layer="devices").to_file(gml, driver="GML")
    code = main(["check", str(DEMO), "--layer", f"devices={gml}", "--dem", str(DEM), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o"), "--quiet"])
    assert code in (0, 1), capsys.readouterr().err
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    assert any((f["subject"] or {}).get("id") == "DW-1" for f in doc["findings"])


def _register(tmp_path: Path) -> Path:
    folder = tmp_path / "reg"
    assert main(["register", "add", str(folder), "A-1", "--applicant", "Hartwell"]) == 0
    return folder


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["applications"].insert(0, None), ["applications[0]", "null"]),
    (lambda d: d["applications"].insert(1, "A-3"), ["applications[1]", "a text"]),
    (lambda d: d["applications"][0].__setitem__("round", 1e400), ["application A-1", '"round"', "infinite"]),
    (lambda d: d["applications"][0].__setitem__("last_review", "x"), ["application A-1", '"last_review"']),
    (lambda d: d["applications"][0].__setitem__("last_review", {"violations": 1e400}), ['"last_review.violations"', "infinite"]),
    (lambda d: d["applications"][0].__setitem__("applicant", ["a", "b"]), ['"applicant"', "a list"]),
], ids=["null-entry", "text-entry", "round-1e400", "last-review-text", "violations-1e400", "applicant-list"])
def test_a_hand_edited_register_names_the_entry_and_the_field(tmp_path, capsys, edit, words):
    folder = _register(tmp_path)
    data = json.loads((folder / "register.json").read_text(encoding="utf-8"))
    edit(data)
    (folder / "register.json").write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    err = _one_line(capsys, main(["register", "list", str(folder)]))
    assert "register.json" in err and all(w in err for w in words), err


@pytest.fixture(scope="module")
def review(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review") / "out"
    main(["check", str(DEMO), "--dem", str(DEM), "--jurisdiction", "lgpc", "--out", str(out), "--quiet"])
    return out


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["findings"].insert(0, None), ["findings[0]", "null"]),
    (lambda d: d.__setitem__("findings", "x"), ['"findings"', "not a list"]),
    (lambda d: d["findings"][0].__setitem__("measured_ft", 1e400), ["findings[0]", '"measured_ft"', "infinite"]),
    (lambda d: d["findings"][0].__setitem__("subject", "DW-1"), ["findings[0]", '"subject"']),
], ids=["null-finding", "findings-text", "measured-1e400", "subject-text"])
@pytest.mark.parametrize("command", ["compare-old", "compare-new", "letter", "letter-previous", "register-record"])
def test_a_tampered_findings_json_names_the_entry_and_the_field(review, tmp_path, capsys, edit, words, command):
    bad = tmp_path / "bad"
    shutil.copytree(review, bad)
    doc = copy.deepcopy(json.loads((review / "findings.json").read_text(encoding="utf-8")))
    edit(doc)
    (bad / "findings.json").write_text(json.dumps(doc), encoding="utf-8")
    args = {
        "compare-old": ["compare", str(bad), str(review), "--out", str(tmp_path / "c")],
        "compare-new": ["compare", str(review), str(bad), "--out", str(tmp_path / "c")],
        "letter": ["letter", str(bad), "--out", str(tmp_path / "l.docx")],
        "letter-previous": ["letter", str(review), "--previous", str(bad), "--out", str(tmp_path / "l.docx")],
        "register-record": ["register", "record", str(_register(tmp_path)), "A-1", str(bad)],
    }[command]
    capsys.readouterr()
    err = _one_line(capsys, main(args))
    assert "findings.json" in err and all(w in err for w in words), err


def test_ctrl_c_in_the_first_tenths_of_a_second_prints_no_traceback_from_the_package(tmp_path):
    """Python's own start-up (site, runpy) is before any code of the package; from the package's first line on, one line."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    for k, delay in enumerate((0.06, 0.09, 0.12, 0.15, 0.2, 0.3)):
        cmd = ["register", "list", str(tmp_path / "none")] if k % 2 else ["check", str(DEMO), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o")]
        p = subprocess.Popen([sys.executable, "-m", "stormwater_plugin", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        assert "stormwater_plugin" not in err or "Traceback" not in err, err
        assert "bug" not in err, err
