"""Does a DEM's elevation unit look right? (metres read as feet, or the reverse)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..model import FeatureLayer, Warning_
from ..raster import ElevationGrid

FT_PER_M: float = 1.0 / 0.3048

#: Plausible ground elevations in the packs' region, feet: above the lowest lake
#: surface a pack states (``lake_surfaces``, read by :func:`lake_surfaces`) and
#: under the hills' tops at about 3,000 ft, with some slack either side. A sanity
#: range for the elevation unit, not a figure of the law.
LAKE_GEORGE_RANGE_FT: tuple[float, float] = (250.0, 3500.0)


def elevation_plausibility(
    values: np.ndarray,
    z_to_ft: float,
    expected_range_ft: tuple[float, float] = LAKE_GEORGE_RANGE_FT,
    *,
    name: str = "DEM",
) -> str | None:
    """A warning when the median elevation, in feet, falls outside the expected range.

    Parameters
    ----------
    values : numpy.ndarray
        Elevations in the band's unit (``NaN`` for nodata).
    z_to_ft : float
        The declared or assumed unit, in feet.
    expected_range_ft : (float, float)
        Plausible ground elevations in feet.
    name : str
        How to call the DEM in the message.

    Returns
    -------
    str or None
        ``None`` when plausible (or no data); otherwise one sentence that says
        which unit would make the elevations plausible, if any.
    """
    v = np.asarray(values)
    step_r = max(v.shape[0] // 256, 1) if v.ndim == 2 else 1
    step_c = max(v.shape[1] // 256, 1) if v.ndim == 2 else 1
    sub = v[::step_r, ::step_c] if v.ndim == 2 else v
    sub = sub[np.isfinite(sub)]
    if sub.size == 0:
        return None
    median_ft = float(np.median(sub)) * z_to_ft
    lo, hi = expected_range_ft
    if lo <= median_ft <= hi:
        return None
    metres_assumed = abs(z_to_ft - FT_PER_M) < 1e-3
    feet_assumed = abs(z_to_ft - 1.0) < 1e-3
    as_m = median_ft * FT_PER_M  # the band read as metres instead of feet
    as_ft = median_ft / FT_PER_M  # the band read as feet instead of metres
    if feet_assumed and lo <= as_m <= hi:
        hint = f" Read as metres instead of feet it would be {as_m:,.0f} ft, which fits: check --dem-z-units."
    elif metres_assumed and lo <= as_ft <= hi:
        hint = f" Read as feet instead of metres it would be {as_ft:,.0f} ft, which fits: check --dem-z-units."
    else:
        hint = " Check the DEM's elevation unit (--dem-z-units) and that it covers the site."
    return f"{name}: median ground elevation {median_ft:,.0f} ft is outside the {lo:,.0f}-{hi:,.0f} ft expected here.{hint}"


def plausibility_warning(grid: ElevationGrid, expected_range_ft: tuple[float, float] = LAKE_GEORGE_RANGE_FT) -> str | None:
    """A warning when ``grid``'s elevations look like the wrong unit (see :func:`elevation_plausibility`)."""
    return elevation_plausibility(grid.values, grid.z_to_ft, expected_range_ft, name=grid.name)


# --- a named lake whose surface elevation the pack knows ---------------------


@dataclass(frozen=True)
class LakeSurface:
    """A lake's known surface elevation, from the rule pack's ``lake_surfaces`` (feet)."""

    name: str
    elevation_ft: float
    tolerance_ft: float
    source: str


def lake_surfaces(pack_raw: Mapping[str, Any]) -> list[LakeSurface]:
    """The ``lake_surfaces`` entries of a pack's JSON form."""
    return [
        LakeSurface(str(d["name"]), float(d["elevation_ft"]), float(d["tolerance_ft"]), str(d["source"]))
        for d in pack_raw.get("lake_surfaces", []) or []
    ]


#: Most DEM samples taken along a shoreline.
MAX_SHORE_SAMPLES: int = 4000


def _named(layer: FeatureLayer | None, fields: tuple[str, ...], name: str) -> list[int]:
    if layer is None:
        return []
    want = name.strip().lower()
    out = []
    for i, a in enumerate(layer.attrs):
        low = {str(k).lower(): v for k, v in a.items()}
        if any(want in str(low.get(f) or "").strip().lower() for f in fields):
            out.append(i)
    return out


def _dem_footprint(grid: ElevationGrid) -> BaseGeometry | None:
    """The DEM window's outline in the working CRS (``None`` when the grid has no inverse transform)."""
    rows, cols = grid.shape
    c = np.array([0.0, cols - 1.0, cols - 1.0, 0.0])
    r = np.array([0.0, 0.0, rows - 1.0, rows - 1.0])
    xy = grid.pixel_centres_to_working(c, r)
    if xy is None or not (np.all(np.isfinite(xy[0])) and np.all(np.isfinite(xy[1]))):
        return None
    return shapely.Polygon(np.column_stack(xy)).buffer(0)


def shoreline_elevation_warning(
    grid: ElevationGrid, layers: Mapping[str, FeatureLayer], lakes: list[LakeSurface], unit_to_ft: float
) -> Warning_ | None:
    """A loud warning when the DEM puts a named lake's shoreline far from the lake's known surface.

    The DEM is sampled along the ``shoreline`` lines whose ``waterbody`` names
    the lake and along the outlines of the ``waterbodies`` whose ``name`` does
    (within the DEM window), every 10 ft or coarser; the median elevation, in
    feet under the DEM's declared or assumed unit, is compared with the
    pack's surface elevation. Metres read as feet put Lake George's shore
    near 97 ft, feet read as metres near 1,050 ft: no tolerance hides either.

    Returns
    -------
    Warning_ or None
        ``None`` when the shoreline sits at the lake's surface, or when no
        shoreline names a known lake or the DEM has no data along it.
    """
    footprint = _dem_footprint(grid)
    for lake in lakes:
        parts: list[BaseGeometry] = []
        refs: list[tuple[str, str]] = []
        for role, fields in (("shoreline", ("waterbody", "name")), ("waterbodies", ("name",))):
            layer = layers.get(role)
            for i in _named(layer, fields, lake.name):
                assert layer is not None
                g = layer.geoms[i]
                g = shapely.boundary(g) if g.geom_type in ("Polygon", "MultiPolygon") else g
                if footprint is not None:
                    g = shapely.intersection(g, footprint)
                if not g.is_empty:
                    parts.append(g)
                    refs.append((role, layer.ids[i]))
        if not parts:
            continue
        lines = shapely.union_all(parts)
        length = float(lines.length)
        step = max(10.0 / unit_to_ft, length / MAX_SHORE_SAMPLES) if length > 0 else 1.0
        xy = shapely.get_coordinates(shapely.segmentize(lines, step))
        z = grid.sample(xy[:, 0], xy[:, 1])
        z = z[np.isfinite(z)]
        if z.size == 0:
            continue
        median_ft = float(np.median(z))
        if abs(median_ft - lake.elevation_ft) <= lake.tolerance_ft:
            continue
        how = "declared" if grid.z_unit_declared else "assumed"
        fits = [
            name
            for name, f in (("metres", FT_PER_M), ("feet", 1.0))
            if abs(median_ft / grid.z_to_ft * f - lake.elevation_ft) <= lake.tolerance_ft and abs(f - grid.z_to_ft) > 1e-3
        ]
        hint = (
            f" Read in {fits[0]} it would be {median_ft / grid.z_to_ft * (FT_PER_M if fits[0] == 'metres' else 1.0):,.0f} ft, which fits: "
            "the DEM's elevation unit is almost certainly wrong; set it (--dem-z-units, or the plugin's DEM elevation-unit setting) and run again."
            if fits
            else " No elevation unit makes it fit: check the DEM's elevation unit and vertical datum, and that the shoreline is drawn where the water is."
        )
        names = ", ".join(f"{r} {i}" for r, i in refs)
        return Warning_(
            "dem_z_contradicts_lake",
            f"CHECK THE DEM'S ELEVATION UNIT: the DEM ({grid.name}; {grid.z_unit_note or 'elevation unit ' + how}) puts the {lake.name} "
            f"shoreline ({names}) at {median_ft:,.0f} ft, but the lake's surface is about {lake.elevation_ft:,.0f} ft ({lake.source}); "
            f"every elevation-dependent finding (gradients, slopes, depths) may be wrong.{hint}",
            refs[0][0],
            tuple(i for _, i in refs),
        )
    return None
