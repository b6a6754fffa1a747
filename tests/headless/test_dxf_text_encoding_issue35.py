"""A DXF's text in the encoding it is written in (issue 35 item 5): AutoCAD 2007+ writes UTF-8 while $DWGCODEPAGE says
ANSI_1252, so GDAL alone reads "Puits-É1" as "Puits-Ã\\x891"; an older drawing whose bytes are UTF-8 is read as UTF-8
with a note that the decoding is a guess; a real ANSI_1252 drawing keeps its code page."""

from __future__ import annotations

import json
from pathlib import Path

import fiona

from stormwater_plugin.cli import main
from stormwater_plugin.services.cad_files import dxf_text_encoding

from .cad_drawings import demo_plan_dxf


def _with_accented_well(path: Path, version: str | None = None) -> Path:
    import ezdxf

    doc = ezdxf.readfile(demo_plan_dxf(path))
    if version:
        doc.dxfversion = version
    for e in doc.modelspace().query("TEXT"):
        if e.dxf.layer == "C-WATR-IDEN" and e.dxf.text == "W-1":
            e.dxf.text = "Puits-É1"
    doc.saveas(path)
    return path


def _well_ids(gpkg: Path) -> list[str]:
    with fiona.open(gpkg, layer="wells") as src:
        return [f.properties["id"] for f in src]


def test_an_autocad_2010_dxf_is_read_as_utf8_whatever_its_code_page_says(tmp_path):
    dxf = _with_accented_well(tmp_path / "plan.dxf")
    assert dxf_text_encoding(dxf) == ("UTF-8", None)
    gpkg = tmp_path / "site.gpkg"
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--out", str(gpkg)]) == 0
    assert "Puits-É1" in _well_ids(gpkg)


def test_an_older_dxf_whose_bytes_are_utf8_is_read_as_utf8_with_a_note_that_it_is_a_guess(tmp_path):
    dxf = _with_accented_well(tmp_path / "plan.dxf", "AC1015")
    raw = dxf.read_bytes()
    if "Puits-É1".encode("cp1252") in raw:  # ezdxf wrote the R2000 file in its code page: make it the converter's UTF-8
        dxf.write_bytes(raw.replace("Puits-É1".encode("cp1252"), "Puits-É1".encode()))
    encoding, note = dxf_text_encoding(dxf)
    assert encoding == "UTF-8" and note is not None and "a guess" in note
    gpkg = tmp_path / "site.gpkg"
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--out", str(gpkg)]) == 0
    assert "Puits-É1" in _well_ids(gpkg)
    assert any("a guess" in w for w in json.loads(gpkg.with_suffix(".import.json").read_text(encoding="utf-8"))["warnings"])


def test_an_older_dxf_in_its_ansi_code_page_keeps_it(tmp_path):
    dxf = _with_accented_well(tmp_path / "plan.dxf", "AC1015")
    raw = dxf.read_bytes()
    dxf.write_bytes(raw.replace("Puits-É1".encode(), "Puits-É1".encode("cp1252")))
    assert dxf_text_encoding(dxf) == (None, None)
    gpkg = tmp_path / "site.gpkg"
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--out", str(gpkg)]) == 0
    assert "Puits-É1" in _well_ids(gpkg)
