"""One elevation-unit rule for every front end (issue 23): the same DEM file gives the same unit, note and warning.

A DEM declares its elevation unit in its band (GDAL ``Unit Type``) or in a
``VERTICAL_UNITS`` tag, or not at all. Read by the command line (rasterio) and
by QGIS (the plugin's snapshot, Processing), the unit, the note saying where it
came from (declared by the user / read from the file / assumed) and the
``dem_z_unit_assumed`` warning are the same, and so are the findings and the
slope map. Before: Processing's slope map ignored the band's unit ("automatic"
took the horizontal unit, so a DEM in metres in a feet CRS was read as feet),
and the dock handed the file's unit on as if the user had declared it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import DEMO_DEM, DEMO_GPKG, REPO, demo_layers
from qgis.core import QgsProcessingFeedback, QgsProject, QgsRasterLayer

from stormwater_plugin.core.limits import at_least_threshold

#: How a test DEM declares its unit: (band Unit Type, dataset VERTICAL_UNITS tag).
DECLARATIONS: dict[str, tuple[str, str]] = {
    "metres-unit-type": ("metre", ""),
    "feet-tag-only": ("", "foot"),
    "none": ("", ""),
}


def _declare(path: Path, unit_type: str, tag: str) -> None:
    """Set (or clear) the band's unit type and the dataset's ``VERTICAL_UNITS`` tag of ``path`` in place."""
    from osgeo import gdal

    ds = gdal.Open(str(path), gdal.GA_Update)
    ds.GetRasterBand(1).SetUnitType(unit_type)
    md = {k: v for k, v in (ds.GetMetadata() or {}).items() if k != "VERTICAL_UNITS"}
    if tag:
        md["VERTICAL_UNITS"] = tag
    ds.SetMetadata(md)
    ds.FlushCache()
    ds = None
    check = gdal.Open(str(path))
    assert (check.GetRasterBand(1).GetUnitType() or "") == unit_type
    assert (check.GetMetadataItem("VERTICAL_UNITS") or "") == tag
    check = None


# -- the slope map: Processing and the command line ------------------------------------------------------------------------------------

COLS = ROWS = 150
PX_FT = 2.0  # NY West ftUS (EPSG:2262), 2 US ft pixels: the 100 ft ring fits around the middle ~50 x 50 cells


def _write_hills_in_feet_crs(path: Path, unit_type: str, tag: str) -> Path:
    """Hills whose elevations are metres, on a grid in US survey feet (EPSG:2262)."""
    from osgeo import gdal, osr

    ds = gdal.GetDriverByName("GTiff").Create(str(path), COLS, ROWS, 1, gdal.GDT_Float32)
    ds.SetGeoTransform((1_100_000.0, PX_FT, 0.0, 900_000.0 + ROWS * PX_FT, 0.0, -PX_FT))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(2262)
    ds.SetProjection(srs.ExportToWkt())
    x = np.arange(COLS) + 0.5
    y = np.arange(ROWS) + 0.5
    z = 200.0 + 3.0 * np.sin(x[None, :] / 19.0) * np.cos(y[:, None] / 27.0) + 0.02 * y[:, None]  # metres
    band = ds.GetRasterBand(1)
    band.WriteArray(z.astype(np.float32))
    band.SetNoDataValue(-9999.0)
    ds.FlushCache()
    ds = None
    _declare(path, unit_type, tag)
    return path


class _Messages(QgsProcessingFeedback):
    def __init__(self) -> None:
        super().__init__()
        self.infos: list[str] = []
        self.warnings: list[str] = []

    def pushInfo(self, info: str) -> None:  # noqa: N802 - QGIS API
        self.infos.append(info)

    def pushWarning(self, warning: str) -> None:  # noqa: N802 - QGIS API
        self.warnings.append(warning)


def _read(path: str) -> np.ndarray:
    from osgeo import gdal

    ds = gdal.Open(path)
    arr = ds.GetRasterBand(1).ReadAsArray().astype(np.float64)
    ds = None
    return arr


@pytest.mark.parametrize("declaration", sorted(DECLARATIONS))
def test_processing_slope_map_reads_the_declared_unit_as_the_command_line(provider, tmp_path, capsys, declaration):
    import processing

    from stormwater_plugin.cli import main as cli_main

    dem_path = _write_hills_in_feet_crs(tmp_path / f"hills-{declaration}.tif", *DECLARATIONS[declaration])
    threshold = 8.0
    dem = QgsRasterLayer(str(dem_path), dem_path.stem)
    assert dem.isValid()
    feedback = _Messages()
    QgsProject.instance().addMapLayers([dem])
    try:  # Z_UNITS 0: automatic (the file's unit, else assumed)
        out = processing.run("stormwater_review:slopeover100ft", {"DEM": dem, "Z_UNITS": 0, "THRESHOLD_PCT": threshold,
                                                                  "SLOPE_MAP": str(tmp_path / "qgis.tif")}, feedback=feedback)
    finally:
        QgsProject.instance().removeAllMapLayers()
    capsys.readouterr()
    cli_tif = tmp_path / "cli.tif"
    assert cli_main(["slope-map", str(dem_path), "--out", str(cli_tif), "--threshold", f"{threshold:g}"]) == 0
    cli_note = capsys.readouterr().err.splitlines()[0]
    a, b = _read(out["SLOPE_MAP"]), _read(str(cli_tif))
    valid = b != -9999
    assert np.array_equal(a == -9999, ~valid) and valid.sum() > 1000
    assert np.max(np.abs(a[valid] - b[valid])) < 1e-4  # the same z factor: the same slopes
    # steep as the check decides: the slope rounded to 0.1% (core.limits), so 7.95% counts as 8%
    edge = at_least_threshold(threshold, "slope_pct", ">=")
    assert out["STEEP_CELLS"] == int(((b >= edge) & valid).sum())
    # the note saying where the unit came from, and the warning when it is assumed, as on the command line
    summary = [m for m in feedback.infos if m.startswith("Slope map:") and "cell(s)" in m]
    assert summary and summary[-1].endswith(f"({cli_note})")
    assumed = declaration == "none"
    assert ("assumed" in cli_note) is assumed
    assert any(cli_note in w for w in feedback.warnings) is assumed
    if declaration == "metres-unit-type":  # metres in a feet CRS: read as metres, not the grid's feet
        assert "read from the band's declared unit 'metre'" in cli_note
        as_feet = tmp_path / "as-feet.tif"
        assert cli_main(["slope-map", str(dem_path), "--out", str(as_feet), "--threshold", f"{threshold:g}", "--dem-z-units", "us-ft",
                         "--quiet"]) == 0
        c = _read(str(as_feet))
        assert out["STEEP_CELLS"] > int(((c >= edge) & valid).sum())



# -- the review: the plugin's snapshot and the command line ----------------------------------------------------------------------------


def _demo_dem_declaring(path: Path, declaration: str) -> Path:
    import shutil

    shutil.copy2(DEMO_DEM, path)
    _declare(path, *DECLARATIONS[declaration])
    return path


def _cli_doc(tmp_path: Path, dem: Path, jurisdiction: str) -> dict:
    out = tmp_path / "cli"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, "-m", "stormwater_plugin", "check", str(DEMO_GPKG), "--dem", str(dem), "--jurisdiction", jurisdiction,
                    "--out", str(out), "--no-report", "--quiet"], env=env, check=False, timeout=600, cwd=str(REPO))
    return json.loads((out / "findings.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("declaration", sorted(DECLARATIONS))
def test_the_plugin_and_the_command_line_read_the_same_unit_note_and_findings(qgis_new_project, tmp_path, declaration):
    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.headless.site_source import FileSiteSource
    from stormwater_plugin.qgis_bridge.snapshot import QgisSiteSource
    from stormwater_plugin.services.site_source import review_site

    dem_path = _demo_dem_declaring(tmp_path / f"dem-{declaration}.tif", declaration)
    layers, _ = demo_layers()
    dem = QgsRasterLayer(str(dem_path), dem_path.name)  # named as the file, as the command line names the DEM in its messages
    assert dem.isValid()
    pack = load_pack("lgpc")
    by_qgis, review_q = review_site(QgisSiteSource(layers, dem), pack, moves=False)
    by_file, review_f = review_site(FileSiteSource(DEMO_GPKG, dem_path=dem_path), pack, moves=False)
    assert by_qgis.inputs.dem is not None and by_file.inputs.dem is not None
    assert by_qgis.inputs.dem.z_to_ft == by_file.inputs.dem.z_to_ft
    assert by_qgis.inputs.dem.z_unit_declared == by_file.inputs.dem.z_unit_declared == (declaration != "none")
    cli = _cli_doc(tmp_path, dem_path, "lgpc")
    q, f = review_q.doc, review_f.doc
    note = cli["inputs"]["dem_z"]
    assert q["inputs"]["dem_z"] == f["inputs"]["dem_z"] == note
    expected = {"metres-unit-type": "read from the band's declared unit 'metre'", "feet-tag-only": "read from the band's declared unit 'foot'",
                "none": "elevations assumed in m"}[declaration]
    assert expected in note and "declared with" not in note
    codes = [w["code"] for w in q["warnings"]]
    assert codes == [w["code"] for w in f["warnings"]]
    assert ("dem_z_unit_assumed" in codes) is (declaration == "none")
    assert "dem_z_unit_assumed" in [w["code"] for w in cli["warnings"]] if declaration == "none" else True
    by_key = {x["key"]: x for x in q["findings"]}
    assert by_key == {x["key"]: x for x in f["findings"]} == {x["key"]: x for x in cli["findings"]}
    assert q["counts"] == f["counts"] == cli["counts"]


def test_a_unit_the_user_declares_is_said_to_be_the_users(qgis_new_project, tmp_path):
    """The plugin's setting wins over the file's unit, and the note says it was declared by the user."""
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    dem_path = _demo_dem_declaring(tmp_path / "dem-metres.tif", "metres-unit-type")
    layers, _ = demo_layers()
    dem = QgsRasterLayer(str(dem_path), "dem")
    snap = snapshot(layers, dem, "ft")
    assert snap.inputs.dem is not None and snap.inputs.dem.z_to_ft == 1.0
    assert "declared with" in snap.inputs.dem.z_unit_note and "read from" not in snap.inputs.dem.z_unit_note


def test_processing_slope_map_reads_undeclared_fill_values_as_nodata_as_the_command_line(provider, tmp_path, capsys):
    """A clip that lost its nodata tag: its -9999 pixels are nodata in both slope maps (the DEM policy), not 10,000 m cliffs."""
    import processing
    from osgeo import gdal

    from stormwater_plugin.cli import main as cli_main

    dem_path = _write_hills_in_feet_crs(tmp_path / "clipped.tif", "metre", "")
    ds = gdal.Open(str(dem_path), gdal.GA_Update)
    band = ds.GetRasterBand(1)
    z = band.ReadAsArray()
    z[70:74, 60:66] = -9999.0
    band.WriteArray(z)
    band.DeleteNoDataValue()
    ds.FlushCache()
    ds = None
    dem = QgsRasterLayer(str(dem_path), dem_path.stem)
    assert dem.isValid() and not dem.dataProvider().sourceHasNoDataValue(1)
    feedback = _Messages()
    QgsProject.instance().addMapLayers([dem])
    try:
        out = processing.run("stormwater_review:slopeover100ft", {"DEM": dem, "Z_UNITS": 0, "THRESHOLD_PCT": 8.0,
                                                                  "SLOPE_MAP": str(tmp_path / "qgis.tif")}, feedback=feedback)
    finally:
        QgsProject.instance().removeAllMapLayers()
    capsys.readouterr()
    cli_tif = tmp_path / "cli.tif"
    assert cli_main(["slope-map", str(dem_path), "--out", str(cli_tif), "--threshold", "8"]) == 0
    cli_warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:") and "fill value" in line]
    a, b = _read(out["SLOPE_MAP"]), _read(str(cli_tif))
    valid = b != -9999
    assert np.array_equal(a == -9999, ~valid) and (~valid).sum() > 0
    assert np.max(np.abs(a[valid] - b[valid])) < 1e-4
    assert out["STEEP_CELLS"] == int(((b >= at_least_threshold(8.0, "slope_pct", ">=")) & valid).sum())
    assert len(cli_warnings) == 1 and "24 pixel(s) hold a fill value (-9999)" in cli_warnings[0]
    assert [w for w in feedback.warnings if "fill value" in w] == [cli_warnings[0].removeprefix("warning: ").replace("clipped.tif", "clipped")]
