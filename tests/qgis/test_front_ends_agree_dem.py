"""Every front end reads a DEM through one policy (issue 38, services.dem_read): on a DEM that misses the site and on
a DEM window over the pixel limit, the dock, Processing, the command line, the batch and the envelope give the same
findings, the rules reading the DEM undetermined (never a pass) and the read's warning given by each."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DEMO_DEM, DEMO_GPKG

from tests.qgis.test_front_ends_agree import _agree, _cli, _Site

GRADIENT_RULE = "lgpc.minor.septic-upgradient-20"


def _far_dem(path: Path) -> Path:
    """The demo DEM moved 50 km east: the same pixels, none under the site."""
    import rasterio
    from rasterio.transform import Affine

    with rasterio.open(DEMO_DEM) as src:
        profile, band, tags, units = src.profile.copy(), src.read(1), src.tags(), src.units
    profile["transform"] = Affine.translation(50_000.0, 0.0) * profile["transform"]
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(band, 1)
        dst.update_tags(**tags)
        if units and units[0]:
            dst.set_band_unit(1, units[0])
    return path


@pytest.fixture
def demo_far(tmp_path: Path) -> _Site:
    if not DEMO_GPKG.is_file() or not DEMO_DEM.is_file():
        pytest.skip("resources/demo is not built (scripts/make_demo_site.py)")
    return _Site(DEMO_GPKG, _far_dem(tmp_path / "far.tif"), "minor", tmp_path / "site")


def test_every_front_end_reads_a_dem_missing_the_site_as_no_data_there(qgis_new_project, provider, demo_far, tmp_path) -> None:
    findings = _agree(demo_far, "lgpc", tmp_path / "agree")
    gradient = [f for f in findings.values() if f["rule_id"] == GRADIENT_RULE and f["other"]]
    assert gradient and all(f["status"] == "undetermined" for f in gradient)
    assert not any("no DEM was supplied" in f["message"].lower() for f in findings.values())
    doc = _cli(demo_far, "lgpc", tmp_path / "cli")
    assert [w["code"] for w in doc["warnings"]].count("dem_outside") == 1 and not any(w["code"] == "no_dem" for w in doc["warnings"])


def test_every_front_end_reads_no_dem_window_over_the_pixel_limit(qgis_new_project, provider, monkeypatch, tmp_path) -> None:
    from stormwater_plugin.services import dem_read

    if not DEMO_GPKG.is_file() or not DEMO_DEM.is_file():
        pytest.skip("resources/demo is not built (scripts/make_demo_site.py)")
    monkeypatch.setattr(dem_read, "MAX_PIXELS", 1_000)
    site = _Site(DEMO_GPKG, DEMO_DEM, "minor", tmp_path / "site")
    findings = _agree(site, "lgpc", tmp_path / "agree")
    gradient = [f for f in findings.values() if f["rule_id"] == GRADIENT_RULE and f["other"]]
    assert gradient and all(f["status"] == "undetermined" for f in gradient)
    assert all("the DEM was not read" in f["message"] for f in gradient)  # given but not read: never "no DEM was supplied"
    too = [w for w in _cli(site, "lgpc", tmp_path / "cli")["warnings"] if w["code"] == "dem_too_large"]
    assert too and "more than the 1,000 read at once" in too[0]["message"]
