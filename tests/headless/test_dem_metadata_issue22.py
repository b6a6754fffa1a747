"""DEMs as they really arrive (issue 22, items 3 and 4): fill values without a nodata tag, scale and offset, units, colour rasters.

Each configuration is the demo DEM rewritten the way a clip, mosaic or
format conversion leaves it; the conservative outcome is the demo's own
findings (when the metadata is read) or undetermined (when a fill value sits
under a device), never a pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.core.dem_policy import clean_elevations, decide_z_unit, normalise_band_unit
from tests.headless.demo_dem import DEMO_DEM, DEMO_SITE, ROOT, device_xy, rewrite_demo_dem, with_patch

UPGRADIENT = "lake-george.minor.septic-upgradient-20"


def _check(tmp_path: Path, dem: Path, *extra: str, jurisdiction: str = "lake-george") -> tuple[int, dict]:
    out = tmp_path / f"out-{dem.stem}-{jurisdiction}"
    code = main([str(DEMO_SITE), "--dem", str(dem), "--jurisdiction", jurisdiction, "--out", str(out), "--quiet", *extra])
    doc = json.loads((out / "findings.json").read_text()) if (out / "findings.json").exists() else {}
    return code, doc


def _finding(doc: dict, rule: str, subject: str) -> dict:
    hits = [f for f in doc["findings"] if f["rule_id"] == rule and (f.get("subject") or {}).get("id") == subject]
    assert hits, f"no {rule} finding for {subject}"
    return hits[0]


def _outcomes(doc: dict) -> list[tuple]:
    def key(f: dict) -> tuple:
        m = f.get("measured_ft")
        return (f["rule_id"], (f.get("subject") or {}).get("id"), (f.get("other") or {}).get("id"), f["status"], None if m is None else round(m, 1))

    return sorted((key(f) for f in doc["findings"]), key=repr)


@pytest.fixture(scope="module")
def demo_docs(tmp_path_factory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("demo")
    return {j: _check(tmp, DEMO_DEM, jurisdiction=j)[1] for j in ("lake-george", "lgpc")}


# --- item 3: fill values without a nodata tag ---------------------------------------------------------------


@pytest.mark.parametrize("fill", [-9999.0, -3.4028235e38, -32768.0, 32767.0, 1e38])
def test_fill_value_without_nodata_tag_under_dry_well_makes_septic_upgradient_20_undetermined(tmp_path, demo_docs, fill):
    assert _finding(demo_docs["lake-george"], UPGRADIENT, "DW-1")["status"] == "violation"
    xy = device_xy("DW-1")
    dem = rewrite_demo_dem(tmp_path / "clipped.tif", lambda z: with_patch(z, xy, fill), nodata=None)
    code, doc = _check(tmp_path, dem)
    f = _finding(doc, UPGRADIENT, "DW-1")
    assert f["status"] == "undetermined", f["message"]
    warn = [w for w in doc["warnings"] if w["code"] == "dem_fill_values"]
    assert warn and "clipped.tif" in warn[0]["message"] and f"{fill:g}" in warn[0]["message"]


def test_elevation_outside_earth_surface_range_is_nodata_and_warned(tmp_path):
    xy = device_xy("DW-1")
    dem = rewrite_demo_dem(tmp_path / "spike.tif", lambda z: with_patch(z, xy, -4321.0), nodata=None)
    code, doc = _check(tmp_path, dem)
    assert _finding(doc, UPGRADIENT, "DW-1")["status"] == "undetermined"
    assert any(w["code"] == "dem_fill_values" and "outside any ground elevation" in w["message"] for w in doc["warnings"])


def test_clean_elevations_keeps_the_declared_nodata_and_plausible_ground():
    raw = np.array([[-9999.0, 100.0], [5.0, 1e20]])
    v = clean_elevations(raw, nodata=5.0, z_to_ft=1 / 0.3048)
    assert np.isnan(v[0, 0]) and v[0, 1] == 100.0 and np.isnan(v[1, 0]) and np.isnan(v[1, 1])


# --- item 4: scale, offset, units, colour rasters -------------------------------------------------------------


def test_scale_and_offset_declared_by_the_band_give_the_demo_findings_lgpc_and_lake_george(tmp_path, demo_docs):
    dem = rewrite_demo_dem(tmp_path / "scaled.tif", lambda z: np.where(z == -9999, -9999, (z + 100.0) / 2.0), scale=2.0, offset=-100.0)
    for j in ("lgpc", "lake-george"):
        _, doc = _check(tmp_path, dem, jurisdiction=j)
        assert _outcomes(doc) == _outcomes(demo_docs[j])


def test_int16_centimetres_with_scale_001_give_the_demo_findings(tmp_path, demo_docs):
    dem = rewrite_demo_dem(tmp_path / "cm.tif", lambda z: np.where(z == -9999, -32768, np.round(z * 100.0)), dtype="int16",
                            nodata=-32768, scale=0.01)
    _, doc = _check(tmp_path, dem)
    assert _outcomes(doc) == _outcomes(demo_docs["lake-george"])


def test_band_unit_decimetre_is_read_as_decimetres(tmp_path, demo_docs):
    dem = rewrite_demo_dem(tmp_path / "dm.tif", lambda z: np.where(z == -9999, -9999, z * 10.0), unit="decimetre")
    _, doc = _check(tmp_path, dem)
    assert _outcomes(doc) == _outcomes(demo_docs["lake-george"])
    assert "dm" in doc["inputs"]["dem_z"]


def test_unknown_band_unit_is_undeclared_and_named(tmp_path):
    dem = rewrite_demo_dem(tmp_path / "odd.tif", unit="furlong")
    _, doc = _check(tmp_path, dem)
    w = [w for w in doc["warnings"] if w["code"] == "dem_z_unit_assumed"]
    assert w and "furlong" in w[0]["message"]


@pytest.mark.parametrize("kind", ["rgb", "palette", "two_band"])
def test_colour_or_multiband_raster_given_as_the_dem_leaves_every_elevation_rule_undetermined_and_the_rest_checked(tmp_path, kind):
    """A DEM given but not usable (services.dem_read.elevation_band, as the plugin reads it): never a refusal of the site."""
    if kind == "rgb":
        dem = rewrite_demo_dem(tmp_path / "ortho.tif", lambda z: np.clip(z - 50, 0, 255), dtype="uint8", nodata=None, count=3, photometric="RGB", unit="")
    elif kind == "palette":
        dem = rewrite_demo_dem(tmp_path / "pal.tif", lambda z: np.clip(z - 50, 0, 255), dtype="uint8", nodata=None, colormap=True, unit="")
    else:
        dem = rewrite_demo_dem(tmp_path / "two.tif", count=2)
    code, doc = _check(tmp_path, dem)
    assert code in (0, 1)
    [w] = [w for w in doc["warnings"] if w["code"] == "dem_not_elevation"]
    assert w["message"].startswith(f"{dem.name}: ") and "is not an elevation model" in w["message"] and "undetermined" in w["message"]
    upgradient = [f for f in doc["findings"] if f["rule_id"] == UPGRADIENT and f.get("other")]
    assert upgradient and all(f["status"] == "undetermined" and "the DEM given is not an elevation model" in f["message"] for f in upgradient)
    assert not any("no DEM was supplied" in f["message"].lower() for f in doc["findings"])
    assert any(f["status"] == "pass" for f in doc["findings"])


def test_slope_map_applies_scale_and_offset(tmp_path):
    import rasterio

    dem = rewrite_demo_dem(tmp_path / "scaled.tif", lambda z: np.where(z == -9999, -9999, (z + 100.0) / 2.0), scale=2.0, offset=-100.0)
    outs = []
    for src in (DEMO_DEM, dem):
        out = tmp_path / f"slope-{src.stem}.tif"
        assert main(["slope-map", str(src), "--distance-ft", "10", "--out", str(out), "--quiet"]) == 0
        with rasterio.open(out) as r:
            outs.append(r.read(1))
    np.testing.assert_allclose(outs[1], outs[0], atol=1e-3)


def test_slope_map_refuses_an_rgb_orthophoto(tmp_path, capsys):
    dem = rewrite_demo_dem(tmp_path / "ortho.tif", lambda z: np.clip(z - 50, 0, 255), dtype="uint8", nodata=None, count=3, photometric="RGB", unit="")
    assert main(["slope-map", str(dem), "--distance-ft", "10", "--out", str(tmp_path / "s.tif"), "--quiet"]) == 2
    assert "elevation model" in capsys.readouterr().err


@pytest.mark.parametrize("spelling,unit", [("metre", "m"), ("Meters", "m"), ("US survey foot", "us-ft"), ("ftUS", "us-ft"), ("foot", "ft"),
                                           ("decimetre", "dm"), ("cm", "cm"), ("millimetre", "mm")])
def test_band_unit_spellings_gdal_declares(spelling, unit):
    assert normalise_band_unit(spelling) == unit
    assert decide_z_unit(None, spelling, 1.0).declared


def test_one_unit_policy_for_reader_slope_map_and_plugin():
    from stormwater_plugin.headless import reader, slope_map_cli

    assert not hasattr(slope_map_cli, "_z_unit")
    assert "decide_z_unit" in (ROOT / "stormwater_plugin" / "services" / "dem_read.py").read_text()  # decided once, for both readers
    assert "dem_unit" in Path(reader.__file__).with_name("dem.py").read_text()
    assert "dem_unit" in (ROOT / "stormwater_plugin" / "qgis_bridge" / "dem.py").read_text()


def test_batch_reads_the_fill_value_as_nodata_too(tmp_path, demo_docs):
    from stormwater_plugin.headless.batch import run_batch

    xy = device_xy("DW-1")
    dem = rewrite_demo_dem(tmp_path / "clipped.tif", lambda z: with_patch(z, xy, -9999.0), nodata=None)
    out = tmp_path / "batch"
    run_batch(DEMO_SITE, dem, "lake-george", out, workers=1)
    (doc_path,) = list((out / "sites").glob("*/findings.json"))
    doc = json.loads(doc_path.read_text())
    assert _finding(doc, UPGRADIENT, "DW-1")["status"] == "undetermined"
    assert any(w["code"] == "dem_fill_values" for w in doc["warnings"])


def test_windowed_dem_source_applies_the_policy_to_every_window(tmp_path):
    import rasterio
    from pyproj import CRS

    from stormwater_plugin.headless.dem_source import open_dem_source
    from stormwater_plugin.headless.reader import read_dem

    xy = device_xy("DW-1")
    dem = rewrite_demo_dem(tmp_path / "scaled_clip.tif", lambda z: with_patch(np.where(z == -9999, -9999, (z + 100.0) / 2.0), xy, -9999.0),
                           nodata=None, scale=2.0, offset=-100.0)
    with rasterio.open(DEMO_DEM) as src:
        crs = CRS.from_wkt(src.crs.to_wkt())
        z_demo = src.read(1)
    grid, _ = read_dem(dem, crs, None)
    source = open_dem_source(dem, grid, crs, crs)
    win = source.read(source.whole())
    assert np.isnan(win.sample_point(*xy))
    ok = np.isfinite(win.values)
    np.testing.assert_allclose(win.values[ok], z_demo[ok], atol=1e-3)
    assert source.cleaned.fill >= 81 and source.cleaned.fill_values == (-9999.0,)


def test_slope_map_warns_of_fill_values_naming_the_dem(tmp_path, capsys):
    xy = device_xy("DW-1")
    dem = rewrite_demo_dem(tmp_path / "clipped.tif", lambda z: with_patch(z, xy, -9999.0), nodata=None)
    assert main(["slope-map", str(dem), "--distance-ft", "10", "--out", str(tmp_path / "s.tif"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "clipped.tif" in err and "fill value (-9999)" in err
