"""Issue 21 invariants at the file-reader level: the same generated site written as GeoPackage, shapefile or
GeoJSON, in UTM 18N metres, NY State Plane East (US survey feet) or degrees, gives the same statuses.

The site comes from the core invariant generator (feet, around the origin) and is placed near Bolton Landing in
UTM 18N; the DEM is the same ground as a GeoTIFF in UTM metres. Each example runs the CLI three times: GeoPackage in
UTM metres, shapefiles in EPSG:2260 and GeoJSON in EPSG:4326 (bounded: 8 examples, derandomised).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stormwater_plugin.cli import main
from tests.core.invariants.sites import DEM_HALF, Site, sites

gpd = pytest.importorskip("geopandas")
rasterio = pytest.importorskip("rasterio")

X0, Y0 = 604_000.0, 4_820_000.0
FT = 0.3048
TOL_FT = 0.05
_RANK = {"violation": 0, "undetermined": 1, "advisory": 2, "pass": 3}

FORMATS = {
    "gpkg-utm": ("GPKG", "EPSG:32618"),
    "shp-nyeast-ftus": ("ESRI Shapefile", "EPSG:2260"),
    "geojson-degrees": ("GeoJSON", "EPSG:4326"),
}


def _to_utm(g: Any) -> Any:
    return shapely.transform(g, lambda c: np.column_stack([X0 + c[:, 0] * FT, Y0 + c[:, 1] * FT]))


def _write(site: Site, folder: Path, driver: str, crs: str) -> list[str]:
    """The site's layers in ``crs`` with ``driver``; the CLI arguments that name them."""
    folder.mkdir(parents=True, exist_ok=True)
    by_role: dict[str, list] = {}
    for f in site.features:
        by_role.setdefault(f.role, []).append(f)
    args: list[str] = []
    gpkg = folder / "site.gpkg"
    for role, feats in by_role.items():
        # One geometry type per shapefile: multi-part families written as multi.
        geoms = [_to_utm(f.geom) for f in feats]
        if driver == "ESRI Shapefile":
            # A shapefile holds one of point, line or polygon, single or multi: a mix of single and multi is written as multi.
            geoms = [_as_multi(g) if any(h.geom_type == "Multi" + g.geom_type for h in geoms) else g for g in geoms]
            fams = {g.geom_type.replace("Multi", "") for g in geoms}
            if len(fams) > 1:
                for fam in sorted(fams):
                    sub = [(f, g) for f, g in zip(feats, geoms) if g.geom_type.replace("Multi", "") == fam]
                    path = folder / f"{role}_{fam.lower()}.shp"
                    _frame([f for f, _ in sub], [g for _, g in sub], crs).to_file(path, driver=driver)
                    args += ["--layer", f"{role}={path}"]
                continue
        frame = _frame(feats, geoms, crs)
        if driver == "GPKG":
            frame.to_file(gpkg, layer=role, driver=driver)
        else:
            path = folder / f"{role}.{'shp' if driver == 'ESRI Shapefile' else 'geojson'}"
            frame.to_file(path, driver=driver)
            args += ["--layer", f"{role}={path}"]
    return ([str(gpkg)] if driver == "GPKG" else []) + args


def _as_multi(g: Any) -> Any:
    return {"Point": shapely.MultiPoint, "LineString": shapely.MultiLineString, "Polygon": shapely.MultiPolygon}[g.geom_type]([g])


def _frame(feats: list, geoms: list, crs: str) -> Any:
    rows = [{"id": f.id, **{k: ("" if v is None else v) for k, v in f.attrs.items()}} for f in feats]
    return gpd.GeoDataFrame(rows, geometry=geoms, crs="EPSG:32618").to_crs(crs)


def _dem(site: Site, path: Path) -> Path:
    from rasterio.transform import from_origin

    cell_m = 2.0
    half_m = DEM_HALF * FT
    n = int(np.ceil(2 * half_m / cell_m))
    cx = -half_m + (np.arange(n) + 0.5) * cell_m
    cy = half_m - (np.arange(n) + 0.5) * cell_m
    gx, gy = np.meshgrid(cx, cy)
    z_ft = site.surface(gx / FT, gy / FT)
    with rasterio.open(path, "w", driver="GTiff", width=n, height=n, count=1, dtype="float64", crs="EPSG:32618",
                       transform=from_origin(X0 - half_m, Y0 + half_m, cell_m, cell_m), nodata=-9999.0) as dst:
        dst.write((z_ft * FT)[None, :, :])
    return path


def _signature(doc: dict) -> dict[str, Any]:
    findings: dict[tuple, list] = {}
    for f in doc["findings"]:
        key = (f["rule_id"], f["subject"]["id"] if f["subject"] else "", f["other"]["id"] if f["other"] else "")
        findings.setdefault(key, []).append((f["status"], f["measured_ft"], f["required_ft"]))
    notif = doc.get("notification") or {}
    return {
        "findings": findings,
        "class": doc["project_class"],
        "building_sites": sorted((b["id"], b["status"]) for b in doc.get("building_sites", [])),
        "notify": sorted(str(n.get("id")) for n in notif.get("within_500ft", []) or []),
    }


def _differences(a: dict, b: dict, name: str) -> list[str]:
    out = [f"{name}: {k} {a[k]} -> {b[k]}" for k in ("class", "building_sites", "notify") if a[k] != b[k]]
    for key in sorted(set(a["findings"]) | set(b["findings"])):
        x = min((s for s, _, _ in a["findings"].get(key, [])), key=_RANK.__getitem__, default=None)
        y = min((s for s, _, _ in b["findings"].get(key, [])), key=_RANK.__getitem__, default=None)
        if x == y:
            continue
        entries = a["findings"].get(key, []) + b["findings"].get(key, [])
        near = any(m is not None and r is not None and abs(m - r) <= TOL_FT for _, m, r in entries)
        if near and "pass" not in (x, y):
            continue
        out.append(f"{name}: {key}: {x} -> {y}")
    return out


def _run(args: list[str], dem: Path, out: Path, jurisdiction: str, klass: str) -> dict:
    code = main([*args, "--dem", str(dem), "--dem-z-units", "m", "--jurisdiction", jurisdiction, "--class", klass, "--out", str(out), "--quiet"])
    assert code in (0, 1), code
    return json.loads((out / "findings.json").read_text(encoding="utf-8"))


@settings(max_examples=8, deadline=None, derandomize=True, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(site=sites(), jurisdiction=st.sampled_from(["lgpc", "lake-george", "mamakating"]), klass=st.sampled_from(["minor", "major"]))
def test_same_site_as_geopackage_shapefile_or_geojson_in_metres_us_feet_or_degrees_gives_the_same_statuses(site, jurisdiction, klass):
    tmp = Path(tempfile.mkdtemp(prefix="inv_crs_"))
    try:
        dem = _dem(site, tmp / "dem.tif")
        sigs = {}
        for name, (driver, crs) in FORMATS.items():
            args = _write(site, tmp / name, driver, crs)
            sigs[name] = _signature(_run(args, dem, tmp / name / "out", jurisdiction, klass))
        ref = sigs["gpkg-utm"]
        problems = [p for name, s in sigs.items() if name != "gpkg-utm" for p in _differences(ref, s, name)]
        assert not problems, f"{jurisdiction} {klass}: " + "; ".join(problems[:6])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
