"""One feature that cannot be placed never silences its layer (issue 35 item 1), from a GeoPackage and from a DXF.

Each file is the demo site with one stray feature added the way CAD exports and typing errors leave them: a
septic outline at 1e15 ft, a dry well 330 miles off its parcel (a drawing's origin). The stray feature is named
and undetermined; the rest of its layer is measured, so DW-1's 14 ft septic violation stays a violation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import shapely

from stormwater_plugin.cli import main

from .cad_drawings import demo_plan_dxf

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "site.gpkg"
DEM = ROOT / "resources" / "demo" / "dem.tif"
SEPTIC_RULE = "lgpc.minor.septic-upgradient-20"


def _with_stray(tmp_path: Path, layer: str, copy_id: str, new_id: str, geometry) -> Path:
    """The demo package with feature ``copy_id`` of ``layer`` copied as ``new_id`` at ``geometry`` (or moved by it, a callable)."""
    import fiona
    import geopandas as gpd

    out = tmp_path / "site.gpkg"
    for name in fiona.listlayers(DEMO):
        df = gpd.read_file(DEMO, layer=name)
        if name == layer:
            row = df[df["id"] == copy_id].copy()
            row["id"] = new_id
            row["geometry"] = [geometry(row.geometry.iloc[0]) if callable(geometry) else geometry]
            df = gpd.GeoDataFrame(pd.concat([df, row], ignore_index=True), crs=df.crs)
        df.to_file(out, layer=name, driver="GPKG")
    return out


def _check(tmp_path: Path, site: Path) -> tuple[int, dict]:
    out = tmp_path / "out"
    code = main(["check", str(site), "--dem", str(DEM), "--jurisdiction", "lgpc", "--out", str(out), "--quiet"])
    return code, json.loads((out / "findings.json").read_text(encoding="utf-8"))


def _status(doc: dict, rule: str, subject: str, other: str | None = None) -> list[str]:
    return [f["status"] for f in doc["findings"] if f["rule_id"] == rule and (f["subject"] or {}).get("id") == subject
            and (other is None or (f["other"] or {}).get("id") == other)]


def test_a_septic_feature_at_1e15_ft_is_undetermined_and_dw1_14_ft_from_s1_still_violates_646_4_14_a_3(tmp_path):
    code, doc = _check(tmp_path, _with_stray(tmp_path, "septic", "S-1", "FAR-1", shapely.Point(1e15, 1e15)))
    assert _status(doc, SEPTIC_RULE, "DW-1", "S-1") == ["violation"]
    assert _status(doc, SEPTIC_RULE, "FAR-1") == ["undetermined"]
    w = [x for x in doc["warnings"] if x["code"] == "features_unplaceable"]
    assert len(w) == 1 and w[0]["ids"] == ["FAR-1"] and "cannot place it" in w[0]["message"]
    assert "layer_misplaced" not in [x["code"] for x in doc["warnings"]]
    assert code != 0


def test_a_dry_well_330_miles_off_its_parcel_is_undetermined_while_the_other_devices_are_measured(tmp_path):
    site = _with_stray(tmp_path, "devices", "DW-1", "DW-9", lambda g: shapely.affinity.translate(g, 0.0, -531_000.0))
    code, doc = _check(tmp_path, site)
    assert set(_status(doc, SEPTIC_RULE, "DW-9")) == {"undetermined"}
    assert not [f for f in doc["findings"] if (f["subject"] or {}).get("id") == "DW-9" and f["status"] == "pass"]
    assert _status(doc, SEPTIC_RULE, "DW-1", "S-1") == ["violation"]
    w = [x for x in doc["warnings"] if x["code"] == "features_unplaceable"]
    assert w and w[0]["ids"] == ["DW-9"] and "beyond the 500 ft the rules reach from every parcel" in w[0]["message"]


def test_a_layer_every_feature_of_which_lies_outside_its_crs_is_still_misplaced_as_a_whole(tmp_path):
    # a wrong .prj moves every feature: the whole layer is misplaced, as before
    import fiona
    import geopandas as gpd

    out = tmp_path / "site.gpkg"
    for name in fiona.listlayers(DEMO):
        df = gpd.read_file(DEMO, layer=name)
        if name == "septic":
            df["geometry"] = df.geometry.translate(1e13, 1e13)
        df.to_file(out, layer=name, driver="GPKG")
    _, doc = _check(tmp_path, out)
    assert "layer_misplaced" in [x["code"] for x in doc["warnings"]]
    assert _status(doc, SEPTIC_RULE, "S-1") == ["undetermined"]


@pytest.fixture(scope="module")
def stray_dxf(tmp_path_factory) -> Path:
    import ezdxf

    path = demo_plan_dxf(tmp_path_factory.mktemp("dxf") / "stray.dxf")
    doc = ezdxf.readfile(path)
    msp = doc.modelspace()
    msp.add_lwpolyline([(1e15, 1e15), (1e15 + 20, 1e15), (1e15 + 20, 1e15 + 20)], close=True, dxfattribs={"layer": "C-SSWR-SEPT"})
    ref = msp.add_blockref("DRYWELL", (0, 0), dxfattribs={"layer": "C-STRM-DRYW"})  # left at the drawing's origin, 349 mi off
    ref.add_attrib("ID", "DW-9", insert=(0, 0))
    msp.add_blockref("DRYWELL", (0, 0), dxfattribs={"layer": "C-STRM-DRYW"}).add_attrib("ID", "DW-8", insert=(0, 0))
    doc.saveas(path)
    return path


def test_import_cad_lists_and_quarantines_entities_beyond_the_drawings_extent_and_the_check_keeps_dw1s_violation(stray_dxf, tmp_path, capsys):
    gpkg = tmp_path / "stray.gpkg"
    assert main(["import-cad", str(stray_dxf), "--crs", "EPSG:2260", "--out", str(gpkg)]) == 0
    out = capsys.readouterr().out
    assert "quarantined devices DW-9" in out and "quarantined devices DW-8" in out and "quarantined septic" in out
    report = json.loads(gpkg.with_suffix(".import.json").read_text(encoding="utf-8"))
    assert sum("quarantined" in w for w in report["warnings"]) == 3
    _, doc = _check(tmp_path, gpkg)
    assert _status(doc, SEPTIC_RULE, "DW-1", "S-1") == ["violation"]
    assert set(_status(doc, SEPTIC_RULE, "DW-9")) == {"undetermined"}
    assert not [f for f in doc["findings"] if (f["subject"] or {}).get("id") in ("DW-8", "DW-9") and f["status"] == "pass"]


def test_import_cad_names_an_entity_2000_ft_from_the_plan_without_quarantining_it(tmp_path, capsys):
    import ezdxf

    path = demo_plan_dxf(tmp_path / "near.dxf")
    doc = ezdxf.readfile(path)
    msp = doc.modelspace()
    site = [e for e in msp if e.dxf.layer == "C-PROP-LINE"][0]
    x, y = list(site.get_points("xy"))[0]
    msp.add_blockref("DRYWELL", (x + 2500, y), dxfattribs={"layer": "C-STRM-DRYW"}).add_attrib("ID", "DW-7", insert=(x + 2500, y))
    doc.saveas(path)
    assert main(["import-cad", str(path), "--crs", "EPSG:2260", "--out", str(tmp_path / "near.gpkg")]) == 0
    out = capsys.readouterr().out
    assert "far from the plan: 1 devices feature(s)" in out and "DW-7" in out and "quarantined" not in out


def test_a_county_wetland_layer_with_one_feature_at_1e15_ft_keeps_wl1_and_names_the_rest_in_one_entry(tmp_path):
    """More than 1,000 features: read through the window around the site; the features its CRS cannot place lie beyond
    the window and are one undetermined entry, never the whole layer misplaced."""
    import fiona
    import geopandas as gpd
    import numpy as np

    plain = tmp_path / "plain"
    plain.mkdir()
    demo_doc = _check(plain, DEMO)[1]
    out = tmp_path / "site.gpkg"
    rng = np.random.default_rng(35)
    for name in fiona.listlayers(DEMO):
        df = gpd.read_file(DEMO, layer=name)
        if name == "wetlands":
            far = [shapely.box(x, y, x + 10, y + 10) for x, y in zip(608260 + rng.uniform(500, 1800, 1200), 4817210 + rng.uniform(500, 1800, 1200))]
            extra = gpd.GeoDataFrame({"id": [f"F-{i}" for i in range(1200)] + ["FAR-1"]},
                                     geometry=far + [shapely.box(1e15, 1e15, 1e15 + 10, 1e15 + 10)], crs=df.crs)
            df = gpd.GeoDataFrame(pd.concat([df, extra], ignore_index=True), crs=df.crs)
        df.to_file(out, layer=name, driver="GPKG")
    _, doc = _check(tmp_path, out)
    assert "layer_misplaced" not in [w["code"] for w in doc["warnings"]]
    w = [x for x in doc["warnings"] if x["code"] == "features_unplaceable" and x["layer"] == "wetlands"]
    assert len(w) == 1 and "beyond the area its CRS covers" in w[0]["ids"][0]

    def wl1(d: dict) -> list[tuple[str, str]]:
        return sorted((f["rule_id"], f["status"]) for f in d["findings"] if (f["other"] or {}).get("id") == "WL-1")

    assert wl1(doc) == wl1(demo_doc) and wl1(doc)
