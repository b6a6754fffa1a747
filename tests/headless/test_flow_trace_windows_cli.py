"""Mamakating §160-1 on a DEM file: the trace reads windows of it as it proceeds, never the whole raster (issues 13, 14).

A tiled GeoTIFF is written in pieces (rows of blocks), so not even the test
holds it whole; ``write_dem`` is also what the 20,000 x 20,000 measurement
(``benchmarks/flow_trace_windows.py``) writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import shapely

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.core.rulepack import load_pack

pytest.importorskip("rasterio")

RULE = "mamakating.upstream-of-wetland"
X0, Y0 = 540_000.0, 4_600_000.0  # UTM 18N, near Mamakating


def write_dem(path: Path, n: int, cell: float = 1.0, rows_per_piece: int = 512) -> None:
    """An n x n tiled float32 GeoTIFF (EPSG:32618, metres): a plane falling west 1% with a gentle north-south wave, no pit."""
    import rasterio
    from rasterio.transform import from_origin
    from rasterio.windows import Window

    profile = {"driver": "GTiff", "width": n, "height": n, "count": 1, "dtype": "float32", "crs": "EPSG:32618",
               "transform": from_origin(X0, Y0 + n * cell, cell, cell), "tiled": True, "blockxsize": 512, "blockysize": 512,
               "compress": "deflate", "predictor": 3, "nodata": -9999.0, "BIGTIFF": "IF_SAFER"}
    x = (np.arange(n) + 0.5) * cell
    with rasterio.open(path, "w", **profile) as dst:
        dst.update_tags(1, UNITTYPE="metre")
        for r0 in range(0, n, rows_per_piece):
            rows = min(rows_per_piece, n - r0)
            y = n * cell - (np.arange(r0, r0 + rows) + 0.5) * cell
            z = 200.0 + 0.01 * x[None, :] + 1.5 * np.sin(y[:, None] / 400.0)
            dst.write(z.astype(np.float32), 1, window=Window(0, r0, n, rows))


def write_site(path: Path, n: int, cell: float = 1.0, target_m: float = 1000.0) -> None:
    """A 20 x 20 m disturbance at the raster's centre, a wetland strip ``target_m`` west of it, a well far east (unrelated)."""
    import geopandas as gpd

    cx, cy = X0 + n * cell / 2, Y0 + n * cell / 2
    dist = shapely.box(cx, cy - 10, cx + 20, cy + 10)
    crs = "EPSG:32618"
    gpd.GeoDataFrame({"id": ["PAR-1"], "is_site": [1]}, geometry=[dist.buffer(15, join_style="mitre")], crs=crs).to_file(path, layer="parcels", driver="GPKG")
    gpd.GeoDataFrame({"id": ["DIST-1"]}, geometry=[dist], crs=crs).to_file(path, layer="disturbance", driver="GPKG")
    wl = shapely.box(cx - target_m - 60, cy - 600, cx - target_m, cy + 600)
    gpd.GeoDataFrame({"id": ["WL-1KM"]}, geometry=[wl], crs=crs).to_file(path, layer="wetlands", driver="GPKG")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("flow_windows")
    write_dem(folder / "dem.tif", 3000)
    write_site(folder / "site.gpkg", 3000)
    return folder


def _flow(result):
    (f,) = [f for f in result.findings if f.rule_id == RULE]
    return f


def test_wetland_1_km_downstream_is_reached_reading_windows_never_the_whole_dem_160_1(site: Path) -> None:
    from stormwater_plugin.headless.reader import read_site

    pack = load_pack("mamakating")
    loaded = read_site(site / "site.gpkg", [], site / "dem.tif", None, None, None, pack=pack)
    src = loaded.inputs.dem_source
    assert src is not None and src.shape == (3000, 3000)
    assert loaded.inputs.dem is not None and loaded.inputs.dem.values.size < 3000 * 3000 // 4  # the reader's fixed window
    f = _flow(run_check(loaded.inputs, pack))
    assert f.other is not None and f.other.id == "WL-1KM"
    assert f.extra["flow_length_ft"] == pytest.approx(1000.0 / 0.3048, rel=0.02)
    assert src.reads and all(w.cells < 3000 * 3000 for w in src.reads)
    # the same outcome as a run on the whole raster, read whole (what the trace never does)
    whole_win = src.whole()
    whole = src.read(whole_win)
    g = _flow(run_check(SiteInputs(loaded.inputs.layers, whole, loaded.inputs.unit_to_ft, loaded.inputs.crs_name), pack))
    assert (g.status, g.message, g.other, g.extra["flow_length_ft"]) == (f.status, f.message, f.other, f.extra["flow_length_ft"])
    assert shapely.equals_exact(g.geometry, f.geometry, tolerance=1e-9)


def test_batch_equals_single_for_the_windowed_trace_160_1(site: Path, tmp_path: Path) -> None:
    from stormwater_plugin.headless.batch import run_batch
    from stormwater_plugin.headless.reader import read_site

    pack = load_pack("mamakating")
    loaded = read_site(site / "site.gpkg", [], site / "dem.tif", None, "PAR-1", None, pack=pack)
    single = _flow(run_check(loaded.inputs, pack))
    report = run_batch(site / "site.gpkg", site / "dem.tif", "mamakating", tmp_path / "out", workers=1)
    assert not report.errors
    doc = json.loads(next((tmp_path / "out" / "sites").glob("*/findings.json")).read_text(encoding="utf-8"))
    (b,) = [x for x in doc["findings"] if x["rule_id"] == RULE]
    assert (b["status"], b["message"]) == (single.status.value, single.message)
