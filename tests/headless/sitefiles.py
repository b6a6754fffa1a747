"""Write a small synthetic site package and DEM to disk, in any CRS, for CLI-level tests.

The site is laid out in UTM 18N metres on the west shore of Lake George; the
terrain is one analytic surface, evaluated at each DEM pixel centre after
projecting it into UTM, so every CRS sees the same ground.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from shapely.geometry import LineString, Point, box

X0, Y0 = 604_000.0, 4_820_000.0  # UTM 18N, near Bolton Landing
FT = 0.3048


def ground_m(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Ground elevation in metres: rising 8% westward from the lake (east)."""
    return 97.5 + 0.08 * (X0 + 200.0 - x)


def base_layers() -> dict[str, list[tuple]]:
    """Role -> list of (geometry in UTM metres, attributes)."""
    septic = box(X0 - 5, Y0 - 5, X0 + 5, Y0 + 5)
    return {
        "parcels": [
            (
                box(X0 - 60, Y0 - 40, X0 + 60, Y0 + 40),
                {"PRINT_KEY": "171.15-1-23", "is_site": 1, "PRMY_OWNER": "Site Owner", "MAIL_ADDR": "1 Main St"},
            ),
            (
                box(X0 - 60, Y0 + 40, X0 + 60, Y0 + 100),
                {"PRINT_KEY": "171.15-1-24", "is_site": 0, "PRMY_OWNER": "Ménard, Zoë", "MAIL_ADDR": "5 Rue <b>Saint</b>"},
            ),
            (
                box(X0 - 60, Y0 - 300, X0 + 60, Y0 - 200),
                {"PRINT_KEY": "171.15-1-30", "is_site": 0, "PRMY_OWNER": "Far Owner", "MAIL_ADDR": "9 Elm"},
            ),
        ],
        "septic": [(septic, {"id": "S1"})],
        "devices": [
            # 19.9 ft west (uphill) of the septic field: upgradient, violates the 20 ft rule.
            (Point(X0 - 5 - 19.9 * FT, Y0), {"id": "D1", "device_type": "dry_well", "high_traffic": 0}),
            # 12 ft east (downhill): the upgradient rule does not apply.
            (Point(X0 + 5 + 12 * FT, Y0), {"id": "D2", "device_type": "dry_well", "high_traffic": 0}),
            # Serves the driveway, 99.9 ft from the well.
            (Point(X0 - 40, Y0 - 30 + 99.9 * FT), {"id": "D3", "device_type": "infiltration_trench", "high_traffic": 1}),
        ],
        "wells": [(Point(X0 - 40, Y0 - 30), {"id": "W1"})],
        "shoreline": [(LineString([(X0 + 60, Y0 - 400), (X0 + 60, Y0 + 400)]), {"id": "MHW", "waterbody": "Lake George"})],
        "clearing": [(box(X0 + 60 - 34.9 * FT - 10, Y0 - 10, X0 + 60 - 34.9 * FT, Y0 + 10), {"id": "C1", "use": "lawn"})],
        "disturbance": [(box(X0 - 30, Y0 - 20, X0 + 10, Y0 + 10), {"id": "DIST"})],
        "impervious": [(box(X0 - 20, Y0 - 15, X0 - 5, Y0 - 5), {"id": "HOUSE", "status": "proposed"})],
    }


def write_site(folder: Path, crs: str, roles: list[str] | None = None) -> Path:
    import geopandas as gpd

    path = folder / "site.gpkg"
    for role, feats in base_layers().items():
        if roles is not None and role not in roles:
            continue
        frame = gpd.GeoDataFrame([a for _, a in feats], geometry=[g for g, _ in feats], crs="EPSG:32618").to_crs(crs)
        frame.to_file(path, layer=role, driver="GPKG")
    return path


def write_dem(path: Path, crs: str, cell: float, z_unit: str = "m", nodata_box: tuple | None = None) -> Path:
    """An analytic DEM in ``crs`` with pixels of ``cell`` CRS units, covering the site plus margin."""
    import rasterio
    from pyproj import Transformer
    from rasterio.transform import from_origin

    to_crs = Transformer.from_crs("EPSG:32618", crs, always_xy=True)
    to_utm = Transformer.from_crs(crs, "EPSG:32618", always_xy=True)
    xs, ys = to_crs.transform([X0 - 700, X0 + 700, X0 - 700, X0 + 700], [Y0 - 700, Y0 - 700, Y0 + 700, Y0 + 700])
    left, right, bottom, top = min(xs), max(xs), min(ys), max(ys)
    ncol = int(np.ceil((right - left) / cell))
    nrow = int(np.ceil((top - bottom) / cell))
    cx = left + (np.arange(ncol) + 0.5) * cell
    cy = top - (np.arange(nrow) + 0.5) * cell
    gx, gy = np.meshgrid(cx, cy)
    ux, uy = to_utm.transform(gx, gy)
    z = ground_m(np.asarray(ux), np.asarray(uy))
    if z_unit == "ft":
        z = z / FT
    z = z.astype("float32")
    if nodata_box is not None:
        inside = (
            (np.asarray(ux) > nodata_box[0])
            & (np.asarray(ux) < nodata_box[2])
            & (np.asarray(uy) > nodata_box[1])
            & (np.asarray(uy) < nodata_box[3])
        )
        z[inside] = -9999.0
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        width=ncol,
        height=nrow,
        count=1,
        dtype="float32",
        crs=crs,
        transform=from_origin(left, top, cell, cell),
        nodata=-9999.0,
    ) as dst:
        dst.write(z, 1)
    return path


def edit_layer(gpkg: Path, layer: str, fn) -> None:
    """Rewrite one layer of a GeoPackage copy, feature by feature (``fn`` returns the new feature or None to drop it)."""
    import fiona

    with fiona.open(gpkg, layer=layer) as src:
        meta = dict(src.meta)
        feats = [fn(f) for f in src]
    with fiona.open(gpkg, "w", layer=layer, **meta) as dst:
        for f in feats:
            if f is not None:
                dst.write(f)
