"""A layer that declares no CRS: misplaced, never measured as if it were in the working CRS, never a refusal of the site.

Both readers decide it in the one read (``services.site_read``, ``services.placement_layers.crs_unknown_reason``):
its features are listed as without usable geometry, naming the layer and how to assign a CRS, so every rule
reading them is undetermined, and the other layers are checked as usual.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from stormwater_plugin.core.rulepack import load_pack

ROOT = Path(__file__).resolve().parents[2]
DEMO_GPKG = ROOT / "resources" / "demo" / "site.gpkg"
DEMO_DEM = ROOT / "resources" / "demo" / "dem.tif"


def demo_wells_without_crs() -> Any:
    """The demo's wells, same coordinates, as a GeoDataFrame of no CRS."""
    import geopandas as gpd

    wells = gpd.read_file(DEMO_GPKG, layer="wells")
    return gpd.GeoDataFrame(wells.drop(columns="geometry"), geometry=list(wells.geometry), crs=None)


def wells_without_crs(tmp_path: Path) -> Path:
    """The demo's wells in a GeoPackage that declares no CRS (GDAL writes its "Undefined" SRS)."""
    path = tmp_path / "wells_nocrs.gpkg"
    demo_wells_without_crs().to_file(path, layer="wells", driver="GPKG")
    return path


@pytest.fixture
def nocrs(tmp_path: Path) -> Path:
    if not DEMO_GPKG.is_file() or not DEMO_DEM.is_file():
        pytest.skip("the demo site is built by scripts/make_demo_site.py")
    return wells_without_crs(tmp_path)


def test_a_wells_layer_without_crs_is_misplaced_its_rules_undetermined_the_rest_read(nocrs):
    from stormwater_plugin.headless.reader import read_site

    inputs = read_site(DEMO_GPKG, [f"wells={nocrs}:wells"], DEMO_DEM, "m", pack=load_pack("lgpc")).inputs
    wells = inputs.layers["wells"]
    assert len(wells) == 0 and len(wells.no_geometry) == 4
    assert all(f"({nocrs}:wells declares no CRS)" in why and "Layer > Set CRS" in why for why in wells.no_geometry.values())
    [w] = [w for w in inputs.warnings if w.layer == "wells" and w.code == "layer_misplaced"]
    assert w.message.startswith(f"4 feature(s) of the 'wells' layer lies at an unknown place ({nocrs}:wells declares no CRS): assign it one")
    assert len(inputs.layers["devices"]) == 5 and inputs.dem is not None


def test_the_command_line_checks_a_site_with_a_layer_without_crs_and_leaves_the_well_setbacks_undetermined(nocrs, tmp_path):
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, "-m", "stormwater_plugin", "check", str(DEMO_GPKG), "--layer", f"wells={nocrs}:wells",
                           "--dem", str(DEMO_DEM), "--dem-z-units", "m", "--jurisdiction", "lgpc", "--out", str(out), "--quiet"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    about_wells = [f for f in doc["findings"] if "declares no CRS" in json.dumps(f)]
    assert about_wells and all(f["status"] == "undetermined" for f in about_wells)
    assert any(f["status"] != "undetermined" for f in doc["findings"])
