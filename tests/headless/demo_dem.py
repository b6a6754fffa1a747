"""The demo DEM rewritten the way files really arrive (a clip that lost its nodata tag, scaled integers, other units, colour rasters)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DEMO_SITE = ROOT / "resources" / "demo" / "site.gpkg"
DEMO_DEM = ROOT / "resources" / "demo" / "dem.tif"


def device_xy(device_id: str) -> tuple[float, float]:
    import fiona
    import shapely
    from shapely.geometry import shape

    with fiona.open(DEMO_SITE, layer="devices") as src:
        for f in src:
            if f["properties"]["id"] == device_id:
                p = shapely.point_on_surface(shape(f["geometry"]))
                return p.x, p.y
    raise KeyError(device_id)


def rewrite_demo_dem(path: Path, values=None, *, dtype=None, nodata="keep", scale=None, offset=None, unit="keep", count=1, photometric=None,
                      colormap=False) -> Path:
    """The demo DEM written again with other values and metadata (``values(z)`` maps the demo's metres to the stored band)."""
    import rasterio

    with rasterio.open(DEMO_DEM) as src:
        z = src.read(1)
        profile = src.profile.copy()
        tags = src.tags()
        unit0 = src.units[0]
    stored = z if values is None else values(z)
    profile.update(count=count, compress="deflate")
    profile.pop("predictor", None)
    if dtype is not None:
        profile["dtype"] = dtype
    if nodata != "keep":
        profile["nodata"] = nodata
    if photometric:
        profile["photometric"] = photometric
    with rasterio.open(path, "w", **profile) as dst:
        for b in range(1, count + 1):
            dst.write(np.asarray(stored).astype(profile["dtype"]), b)
        if unit != "keep" or unit0:
            dst.set_band_unit(1, unit0 if unit == "keep" else (unit or ""))
        if scale is not None:
            dst.scales = (scale,) * count
        if offset is not None:
            dst.offsets = (offset,) * count
        if colormap:
            dst.write_colormap(1, {i: (i, 255 - i, 0, 255) for i in range(256)})
        dst.update_tags(**{k: v for k, v in tags.items() if k != "VERTICAL_UNITS" or unit == "keep"})
    return path


def with_patch(z: np.ndarray, xy: tuple[float, float], value: float, half: int = 4) -> np.ndarray:
    """``z`` with a square of ``value`` (2·half+1 pixels) centred on the demo DEM pixel under ``xy``."""
    import rasterio

    with rasterio.open(DEMO_DEM) as src:
        row, col = src.index(*xy)
    out = z.copy()
    out[row - half : row + half + 1, col - half : col + half + 1] = value
    return out


def demo_site_with_device(folder: Path, device_id: str, **attrs) -> Path:
    """A copy of the demo site package whose device ``device_id`` carries ``attrs`` instead (as a shapefile export or a typing slip leaves them)."""
    import shutil

    import fiona

    site = folder / "site.gpkg"
    shutil.copy2(DEMO_SITE, site)
    with fiona.open(site, layer="devices") as src:
        schema, crs = src.schema, src.crs_wkt
        feats = [{"geometry": f["geometry"], "properties": dict(f["properties"])} for f in src]
    for f in feats:
        if f["properties"]["id"] == device_id:
            f["properties"].update(attrs)
    with fiona.open(site, "w", driver="GPKG", layer="devices", schema=schema, crs_wkt=crs) as dst:
        dst.writerecords(feats)
    return site
