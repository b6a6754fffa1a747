"""``stormwater-check contours-dem``: a DEM from the plan's existing-grade contours, and contours checked against a DEM.

When a plan carries existing-grade contours (the ``contours`` layer the CAD
import writes from V-TOPO-*, Z on each vertex or an ``elevation`` field) and
no lidar is given, :func:`contours_to_dem` builds the site's surface: a linear
TIN (Delaunay triangles) over the contour vertices, the lines densified to the
cell size first, sampled at cell centres over the contours' extent. Cells
outside the vertices' convex hull are nodata. The GeoTIFF carries the band's
elevation unit when it was stated (``--z-units``) and the tag
``STORMWATER_DEM_SOURCE=plan-contours``; a check on it says which DEM it used
(:func:`dem_notes`).

With a DEM and contours both, :func:`compare_contours` samples the DEM at the
contours' vertices: a median absolute difference above
:data:`CONTOUR_DEM_TOLERANCE_FT` is a warning (the plan's survey and the
DEM describe different ground, or one of them is in the wrong datum or unit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click
import fiona
import numpy as np
import shapely
from shapely.geometry import shape

from ..core.dem_policy import Z_UNIT_METRES, length_unit_key, z_unit_to_ft
from ..core.model import Warning_
from ..core.units import feet_per_unit
from ..services.completeness import CONTOURS_LAYER
from ..services.dem_read import dem_unit, read_grid, refuse_non_dem
from ..services.optional import MissingLibrary, require
from .command_line import Choice, Command, namespace, out_option
from .crs import crs_from_wkt
from .dem import HOW_TO_DECLARE, DemFile
from .errors import InputError, fail

#: The package layer holding existing-grade contours (as the CAD import names it).
#: Attribute names read as a contour's elevation when its vertices carry no Z (case ignored).
ELEVATION_FIELDS: tuple[str, ...] = ("elevation", "elev", "z", "contour", "elev_ft")
#: Median |contour z - DEM z| above which the plan's contours and the DEM disagree, feet (a data-quality
#: threshold, not a regulatory one: twice the 1 ft interval of a typical site survey's minor contours).
CONTOUR_DEM_TOLERANCE_FT: float = 2.0
#: Tag written on a DEM built from contours (read back by :func:`dem_notes`).
SOURCE_TAG = "STORMWATER_DEM_SOURCE"
SOURCE_VALUE = "plan-contours"
NODATA = -32767.0
#: Most vertices sampled in a comparison (evenly thinned beyond).
MAX_COMPARE_POINTS = 50_000


@dataclass
class Contours:
    """Contour vertices (x, y in the layer's CRS; z in the contours' unit) and the layer's CRS."""

    xyz: np.ndarray
    crs: Any
    lines: int


def _elevation_field(props: dict[str, Any]) -> str | None:
    lower = {k.lower(): k for k in props}
    return next((lower[f] for f in ELEVATION_FIELDS if f in lower), None)


def _densify(xyz: np.ndarray, step: float) -> np.ndarray:
    """The vertices of a polyline with points added every ``step`` or less along each segment, Z linear between."""
    out = [xyz[:1]]
    for a, b in zip(xyz[:-1], xyz[1:]):
        n = max(1, int(math.ceil(math.hypot(b[0] - a[0], b[1] - a[1]) / step)))
        t = (np.arange(1, n + 1) / n)[:, None]
        out.append(a + (b - a) * t)
    return np.vstack(out)


def read_contours(package: Path, layer: str = CONTOURS_LAYER, step: float | None = None) -> Contours:
    """The contour vertices of ``package``'s ``layer``, densified every ``step`` CRS units when given.

    A line whose vertices carry no Z takes the value of its elevation field
    (:data:`ELEVATION_FIELDS`); a line with neither is refused (never a surface
    through a guessed elevation).
    """
    if not package.exists():
        raise InputError(f"{package}: site package not found")
    if layer not in fiona.listlayers(str(package)):
        raise InputError(f"{package}: no '{layer}' layer (existing-grade contours, e.g. from import-cad V-TOPO-*)")
    pts: list[np.ndarray] = []
    n = 0
    with fiona.open(str(package), layer=layer) as coll:
        if not coll.crs_wkt:
            raise InputError(f"{package}:{layer} has no CRS")
        crs = crs_from_wkt(coll.crs_wkt)
        for i, feat in enumerate(coll):
            if feat["geometry"] is None:
                continue
            g = shape(feat["geometry"])
            if g.is_empty:
                continue
            for part in getattr(g, "geoms", [g]):
                xyz = shapely.get_coordinates(part, include_z=True)
                if not shapely.has_z(part) or not np.all(np.isfinite(xyz[:, 2])):
                    fld = _elevation_field(dict(feat["properties"]))
                    z = feat["properties"].get(fld) if fld else None
                    if z is None or isinstance(z, bool) or not isinstance(z, (int, float)) or not math.isfinite(float(z)):
                        raise InputError(f"{package}:{layer} feature {i + 1} has no elevation (no Z and no {'/'.join(ELEVATION_FIELDS)} field)")
                    xyz[:, 2] = float(z)
                pts.append(_densify(xyz, step) if step else xyz)
            n += 1
    if not pts:
        raise InputError(f"{package}:{layer} holds no contour")
    return Contours(np.unique(np.vstack(pts), axis=0), crs, n)


def _interpolate(xyz: np.ndarray, gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """Linear interpolation on the Delaunay triangulation of ``xyz`` at (gx, gy); NaN outside the hull."""
    griddata = require("scipy.interpolate", "contours-dem").griddata
    # Centred coordinates: Qhull's triangulation is exact enough only near the origin (state-plane values are 10^6 ft).
    x0, y0 = float(np.mean(xyz[:, 0])), float(np.mean(xyz[:, 1]))
    return np.asarray(griddata((xyz[:, 0] - x0, xyz[:, 1] - y0), xyz[:, 2], (gx - x0, gy - y0), method="linear"), dtype=float)


def contours_to_dem(package: Path, out: Path, cell_ft: float = 2.0, z_units: str | None = None, layer: str = CONTOURS_LAYER) -> dict[str, Any]:
    """Write the linear-TIN surface of the package's contours to the GeoTIFF ``out``; a summary.

    Parameters
    ----------
    package : Path
        The site package (GeoPackage) with a ``contours`` layer.
    out : Path
        The GeoTIFF written (Float32, nodata outside the contours' hull).
    cell_ft : float
        Cell size, feet (converted to the layer CRS's unit).
    z_units : {"ft", "us-ft", "m"}, optional
        The contours' elevation unit; written as the band's unit. Without it
        the band declares none and a check assumes its horizontal unit (and says so).
    """
    import rasterio  # lazy: only this command writes rasters
    from rasterio.transform import from_origin

    if not cell_ft > 0:
        raise InputError(f"--cell-ft {cell_ft:g}: give a positive number of feet")
    if z_units is not None and z_units not in Z_UNIT_METRES:
        raise InputError(f"--z-units {z_units}: choose ft, us-ft or m")
    probe = read_contours(package, layer)
    if not probe.crs.is_projected:
        raise InputError(f"{package}:{layer} is in a geographic CRS; reproject it to a projected one (feet or metres) first")
    unit_ft = feet_per_unit(float(probe.crs.axis_info[0].unit_conversion_factor))
    cell = cell_ft / unit_ft
    c = read_contours(package, layer, step=cell)
    x0, y0 = float(c.xyz[:, 0].min()), float(c.xyz[:, 1].min())
    x1, y1 = float(c.xyz[:, 0].max()), float(c.xyz[:, 1].max())
    width = max(1, int(math.ceil((x1 - x0) / cell)))
    height = max(1, int(math.ceil((y1 - y0) / cell)))
    if width * height > 64_000_000:
        raise InputError(f"{package}:{layer}: {width} x {height} cells at {cell_ft:g} ft; give a larger --cell-ft")
    gx, gy = np.meshgrid(x0 + (np.arange(width) + 0.5) * cell, y1 - (np.arange(height) + 0.5) * cell)
    z = _interpolate(c.xyz, gx, gy)
    band = np.where(np.isfinite(z), z, NODATA).astype(np.float32)
    profile = {
        "driver": "GTiff", "width": width, "height": height, "count": 1, "dtype": "float32", "nodata": NODATA,
        "crs": probe.crs.to_wkt(), "transform": from_origin(x0, y1, cell, cell), "compress": "deflate",
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with rasterio.open(out, "w", **profile) as dst:
        dst.write(band, 1)
        tags = {SOURCE_TAG: SOURCE_VALUE, "STORMWATER_DEM_CONTOURS": str(c.lines), "STORMWATER_DEM_METHOD": "linear TIN over densified contour vertices",
                "STORMWATER_DEM_PACKAGE": package.name}
        if z_units is not None:
            dst.set_band_unit(1, z_units)
            tags["VERTICAL_UNITS"] = z_units
        dst.update_tags(**tags)
    covered = int(np.isfinite(z).sum())
    return {"cells": width * height, "covered": covered, "width": width, "height": height, "cell_ft": cell_ft, "contours": c.lines, "z_units": z_units}


def compare_contours(package: Path, dem: Path, dem_z_units: str | None = None, contour_z_units: str | None = None) -> Warning_ | None:
    """A warning when the package's contours and ``dem`` disagree (median |dz| above :data:`CONTOUR_DEM_TOLERANCE_FT`).

    The contours' elevations are taken in ``contour_z_units``, else in their
    CRS's horizontal unit. The DEM is read as a check reads it
    (:func:`~stormwater_plugin.services.dem_read.read_grid` over the contours'
    box: its unit, its nodata and fill values, its pixel limit) and sampled
    bilinearly at the contours' vertices. ``None`` when they agree; a
    ``contours_dem_uncompared`` warning when the DEM has no data at any vertex
    or its window is over the read limit.
    """
    from pyproj import Transformer  # lazy: only when a DEM is given

    c = read_contours(package)
    cz_unit = contour_z_units or length_unit_key(float(c.crs.axis_info[0].unit_conversion_factor)) or "m"
    xyz = c.xyz[:: max(1, len(c.xyz) // MAX_COMPARE_POINTS)]
    with DemFile(dem) as band:
        try:
            refuse_non_dem(band, dem.name)
            zu = dem_unit(band, dem_z_units, HOW_TO_DECLARE)
        except ValueError as exc:  # NotAnElevationBand, or an unknown declared unit
            raise InputError(str(exc)) from exc
        tx, ty = Transformer.from_crs(c.crs, band.crs, always_xy=True).transform(xyz[:, 0], xyz[:, 1])
        x, y = np.asarray(tx, dtype=np.float64), np.asarray(ty, dtype=np.float64)
        ok = np.isfinite(x) & np.isfinite(y)
        read: list[Warning_] = []
        grid = read_grid(band, (float(x[ok].min()), float(y[ok].min()), float(x[ok].max()), float(y[ok].max())), zu, read) if ok.any() else None
    if grid is None and any(w.code == "dem_too_large" for w in read):
        too = next(w for w in read if w.code == "dem_too_large")
        return Warning_("contours_dem_uncompared", f"the plan's contours were not compared with {dem.name}: {too.message}", CONTOURS_LAYER)
    dem_ft = grid.sample(x, y) * zu.z_to_ft if grid is not None else np.full(len(xyz), np.nan)
    dz = np.abs(xyz[:, 2] * z_unit_to_ft(cz_unit) - dem_ft)
    dz = dz[np.isfinite(dz)]
    if dz.size == 0:
        return Warning_("contours_dem_uncompared", f"the DEM {dem.name} does not cover the plan's contours: they were not compared", CONTOURS_LAYER)
    med = float(np.median(dz))
    if med > CONTOUR_DEM_TOLERANCE_FT:
        return Warning_(
            "contours_dem_disagree",
            f"the plan's existing-grade contours and the DEM {dem.name} disagree: median |dz| {med:.1f} ft over {dz.size} vertices "
            f"(threshold {CONTOUR_DEM_TOLERANCE_FT:g} ft; contours in {cz_unit}, DEM {zu.note}): a wrong datum, unit or survey, or regraded ground",
            CONTOURS_LAYER,
        )
    return None


def dem_notes(
    site: Path | None, dem_path: str | None, compare_dem: Path | None = None, dem_z_units: str | None = None, dem_tags: dict[str, str] | None = None
) -> list[Warning_]:
    """The check's notes on its DEM: built from the plan's contours (say so); a package with contours compared with the DEM.

    A package with existing-grade contours checked on another DEM says which
    DEM was used (``dem_used``), and the contours are compared with it (or with
    ``compare_dem``, as ``--compare-dem``).

    Parameters
    ----------
    site : Path or None
        The site package (``check``'s SITE).
    dem_path : str or None
        The DEM the check read.
    compare_dem : Path, optional
        The DEM to compare the contours with instead (``--compare-dem``).
    dem_z_units : str, optional
        The elevation unit given for the check's DEM (``--dem-z-units``), used when the contours are compared with it.
    dem_tags : dict, optional
        The DEM's dataset tags as the read took them from the file it opened; else they are read here.
    """
    out: list[Warning_] = []
    site_path = Path(site) if site is not None else None
    has_contours = site_path is not None and site_path.exists() and CONTOURS_LAYER in fiona.listlayers(str(site_path))
    built_from_contours = False
    if dem_path:
        tags = dem_tags if dem_tags is not None else _tags(dem_path)
        if tags.get(SOURCE_TAG) == SOURCE_VALUE:
            built_from_contours = True
            out.append(
                Warning_(
                    "dem_from_plan_contours",
                    f"DEM used: {Path(dem_path).name}, built from the plan's existing-grade contours ({tags.get('STORMWATER_DEM_CONTOURS', '?')} lines, "
                    f"{tags.get('STORMWATER_DEM_METHOD', 'linear TIN')}): slopes between contours are the surveyor's interpolation, and no cell outside them has data",
                )
            )
        elif has_contours:
            out.append(Warning_("dem_used", f"DEM used: {Path(dem_path).name}, not the plan's existing-grade contours"))
    target = Path(compare_dem) if compare_dem else (Path(dem_path) if dem_path and not built_from_contours else None)
    if has_contours and site_path is not None and target is not None:
        try:
            w = compare_contours(site_path, target, None if compare_dem else dem_z_units)
        except InputError as exc:
            w = Warning_("contours_dem_uncompared", f"the plan's contours were not compared with {target.name}: {exc}", CONTOURS_LAYER)
        if w is not None:
            out.append(w)
    return out


def _tags(dem_path: str) -> dict[str, str]:
    import rasterio  # lazy: a DEM was given

    with rasterio.open(dem_path) as src:
        return dict(src.tags())


@click.command(cls=Command, help="Build a DEM (GeoTIFF, linear TIN) from the site package's existing-grade contours (layer 'contours'), "
               "for a check when no lidar is given; optionally compare the contours with a lidar DEM. SITE: the site package (GeoPackage) "
               "with a 'contours' layer (e.g. from import-cad).")
@click.argument("site", type=Path)
@out_option("the GeoTIFF to write")
@click.option("--cell-ft", type=float, default=2.0, metavar="FT", help="cell size in feet (default 2)")
@click.option("--z-units", type=Choice(("ft", "us-ft", "m")), help="the contours' elevation unit (written as the band's unit; default: none declared)")
@click.option("--compare-dem", type=Path, metavar="LIDAR.tif", help="also compare the contours with this DEM")
@click.option("--compare-dem-z-units", type=Choice(("ft", "us-ft", "m")), help="elevation unit of --compare-dem (default: read from the file)")
def command(**values: Any) -> int:
    """``stormwater-check contours-dem SITE.gpkg --out dem.tif [--cell-ft 2] [--z-units ft|us-ft|m] [--compare-dem LIDAR.tif]``."""
    return main(namespace(values))


def main(args: SimpleNamespace) -> int:
    """``stormwater-check contours-dem SITE.gpkg --out dem.tif [--cell-ft 2] [--z-units ft|us-ft|m] [--compare-dem LIDAR.tif]``."""
    try:
        s = contours_to_dem(args.site, args.out, args.cell_ft, args.z_units)
        lines = [
            f"{args.out}: {s['width']} x {s['height']} cells of {s['cell_ft']:g} ft from {s['contours']} contours, "
            f"{s['covered']} with data (nodata outside the contours' hull); elevations in "
            + (s["z_units"] if s["z_units"] else "an undeclared unit (give --z-units; a check will assume the CRS's unit)")
        ]
        if args.compare_dem:
            w = compare_contours(args.site, args.compare_dem, args.compare_dem_z_units, args.z_units)
            lines.append(f"warning: {w.message}" if w else f"the contours agree with {args.compare_dem.name} (median |dz| within {CONTOUR_DEM_TOLERANCE_FT:g} ft)")
    except (InputError, MissingLibrary) as exc:
        fail("stormwater-check contours-dem", str(exc))
    print("\n".join(lines))
    return 0
