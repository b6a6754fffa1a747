"""The slope map use case: one plan of strips and one strip loop for every front end.

``stormwater-check slope-map`` (rasterio) and the Processing algorithm "Slope over
100 ft" (the QGIS provider) read and write rasters their own way; what they
compute is decided here once:

* the **ground-to-pixel scale**: a projected DEM's unit in feet divided by the
  projection's point scale factor at the DEM's centre (grid feet to ellipsoid
  feet, as the check measures), a geographic DEM's ellipsoid row by row;
* the **strips**: rows mapped at once (about ``strip_cells`` cells, never fewer
  than ``min_rows``) and the **halo** read around them (the ring's reach in
  pixels, from the largest ground-to-pixel scale, plus 4 rows), so strips give
  the values of one pass over the whole raster;
* the **map** of each strip: :func:`~stormwater_plugin.core.terrain.ring_slope_map`
  on the halo-padded rows, computed for the strip's own rows only, certified at
  the rule's rounding edge (:func:`~stormwater_plugin.services.slope.certified_at`:
  14.95% for "15% or more"), and the steep cells by the pack rule's comparison
  (:func:`~stormwater_plugin.services.slope.steep_cells`): no cell whose slope
  rounds to the threshold is missed, as a building site there is steep.

The front ends give a reader (rows ``ra`` to ``rb`` as elevations in the band's
unit, NaN for nodata) and writers to :func:`run_slope_map`, the one entry they call:
each strip's slope and steep cells are handed to them, the steep cells counted
(and kept as a mask when asked).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..core.geometry import clean_layer
from ..core.model import FeatureLayer, Warning_
from ..core.raster import ElevationGrid
from ..core.terrain import ring_slope_at
from ..core.terrain.checks import exceeds
from ..core.terrain.ring import ring_extent_px
from ..core.terrain.slope_map import auto_azimuths, ground_to_pixel_geographic, ground_to_pixel_projected, ring_slope_map
from .slope import certified_at, compare_words, steep_cells

#: Rows of the halo beyond the ring's reach (interpolation and rounding of the reach).
HALO_EXTRA_ROWS: int = 4

#: Reader of DEM rows: ``read(ra, rb, r0, r1)`` gives rows ``ra`` to ``rb`` (the strip ``r0``..``r1`` and its halo).
RowReader = Callable[[int, int, int, int], np.ndarray]


def geographic_ground_to_pixel(geotransform: tuple[float, float, float, float, float, float], rows: int, semi_major_m: float,
                               inverse_flattening: float) -> np.ndarray:
    """Pixels per ground foot of a DEM in degrees, row by row on its ellipsoid (``(rows, 2, 2)``)."""
    return ground_to_pixel_geographic(geotransform, rows, float(semi_major_m), float(inverse_flattening))


def projected_ground_to_pixel(geotransform: tuple[float, float, float, float, float, float], unit_ft: float, scale: float) -> np.ndarray:
    """Pixels per ground foot of a projected DEM.

    Parameters
    ----------
    geotransform : tuple of float
        GDAL order ``(x0, px_w, row_rot, y0, col_rot, px_h)``, CRS units.
    unit_ft : float
        Feet per CRS unit.
    scale : float
        The projection's point scale factor at the DEM (grid length / ellipsoidal length); 1 for grid feet.

    Returns
    -------
    numpy.ndarray
        ``(2, 2)``: pixels per foot of (east, north) ground offset.
    """
    k = float(scale) if scale and math.isfinite(scale) and scale > 0 else 1.0
    return ground_to_pixel_projected(geotransform, unit_ft / k)


@dataclass(frozen=True)
class StripPlan:
    """How a DEM of ``rows`` x ``cols`` cells is mapped: strips of ``strip`` rows read with ``halo`` rows each side."""

    rows: int
    cols: int
    halo: int
    strip: int
    n_azimuths: int

    def strips(self) -> Iterator[tuple[int, int, int, int]]:
        """``(r0, r1, ra, rb)``: the strip's rows and the rows read for it (halo included, clipped to the raster)."""
        for r0 in range(0, self.rows, self.strip):
            r1 = min(r0 + self.strip, self.rows)
            yield r0, r1, max(r0 - self.halo, 0), min(r1 + self.halo, self.rows)


def plan_strips(ground_to_pixel: np.ndarray, rows: int, cols: int, distance_ft: float, *, strip_cells: int, min_rows: int,
                n_azimuths: int | None = None) -> StripPlan:
    """The strips and halo for a ring of ``distance_ft`` feet.

    Parameters
    ----------
    ground_to_pixel : numpy.ndarray
        ``(2, 2)`` or ``(rows, 2, 2)`` pixels per foot.
    rows, cols : int
        Raster size, cells.
    distance_ft : float
        Ring radius, feet.
    strip_cells : int
        About how many cells a strip holds.
    min_rows : int
        Fewest rows per strip.
    n_azimuths : int, optional
        Fixed azimuth count; default (``None`` or 0): decided once for the whole raster, so every strip is computed alike.
    """
    per_row = ground_to_pixel.ndim == 3
    probe = list(ground_to_pixel[:: max(rows // 64, 1)]) if per_row else [ground_to_pixel]
    halo = int(math.ceil(max(ring_extent_px(j, distance_ft)[1] for j in probe))) + HALO_EXTRA_ROWS
    strip = max(int(strip_cells) // max(cols, 1), int(min_rows))
    k = int(n_azimuths) if n_azimuths else auto_azimuths(rows * cols)
    return StripPlan(rows=int(rows), cols=int(cols), halo=halo, strip=strip, n_azimuths=k)


@dataclass(frozen=True)
class SlopeStrip:
    """One strip of the map: rows ``r0`` to ``r1``, slope in percent (NaN unknown) and the steep cells (``None`` without a threshold)."""

    r0: int
    r1: int
    slope_pct: np.ndarray
    steep: np.ndarray | None


def map_strips(plan: StripPlan, ground_to_pixel: np.ndarray, read: RowReader, distance_ft: float, *, z_to_ft: float,
               threshold_pct: float | None = None, compare: str = "gte", stats: dict[str, int] | None = None,
               cancelled: Callable[[], bool] | None = None, compiled: bool = False, prefetch: bool = False) -> Iterator[SlopeStrip]:
    """Map the DEM strip by strip.

    Parameters
    ----------
    plan : StripPlan
        From :func:`plan_strips`.
    ground_to_pixel : numpy.ndarray
        As given to :func:`plan_strips`.
    read : callable
        ``read(ra, rb, r0, r1)`` -> rows ``ra`` to ``rb`` of elevations (band unit, NaN nodata).
    distance_ft : float
        Ring radius, feet.
    z_to_ft : float
        Feet per elevation unit.
    threshold_pct : float, optional
        The rule's threshold (percent): the map decides every cell near it on every arc against its rounding edge
        (:func:`~stormwater_plugin.services.slope.certified_at`), and ``steep`` is given.
    compare : str
        The pack rule's comparison (``gte`` or ``gt``).
    stats : dict, optional
        Counts of the certification, summed over strips.
    cancelled : callable, optional
        Asked before each strip; ``True`` stops the map (the strips yielded so far are complete).
    compiled : bool
        Use the optional compiled sweep when it is available (the same values; the command line asks for it on large DEMs,
        the plugin never does).
    prefetch : bool
        Read the next strip in a second thread while this one is mapped (the command line: the file reader releases
        the GIL). Same strips, same values; ``read`` is then called from that thread, one call at a time.
    """
    per_row = ground_to_pixel.ndim == 3
    strips = list(plan.strips())
    pool = ThreadPoolExecutor(max_workers=1) if prefetch and len(strips) > 1 else None
    ahead: Future[np.ndarray] | None = None
    try:
        for i, (r0, r1, ra, rb) in enumerate(strips):
            if cancelled is not None and cancelled():
                return
            values = ahead.result() if ahead is not None else read(ra, rb, r0, r1)
            ahead = None
            if pool is not None and i + 1 < len(strips):
                n0, n1, na, nb = strips[i + 1]
                ahead = pool.submit(read, na, nb, n0, n1)
            yield _map_one(values, ground_to_pixel[ra:rb] if per_row else ground_to_pixel, (r0, r1, ra), plan, distance_ft, z_to_ft,
                           threshold_pct, compare, stats, compiled)
            del values
    finally:
        if pool is not None:
            pool.shutdown(wait=True)


@dataclass(frozen=True)
class SlopeMapRun:
    """A mapped DEM: the steep cells (``None`` unless asked for), how many, and the rows mapped (fewer than all when cancelled)."""

    steep: np.ndarray | None
    n_steep: int
    rows_done: int


def run_slope_map(ground_to_pixel: np.ndarray, rows: int, cols: int, read: RowReader, distance_ft: float, *, z_to_ft: float,
                  threshold_pct: float | None, compare: str, n_azimuths: int | None, strip_cells: int, min_rows: int,
                  write: Callable[[int, np.ndarray], None] | None = None, want_mask: bool = False,
                  write_steep: Callable[[int, np.ndarray], None] | None = None, stats: dict[str, int] | None = None,
                  cancelled: Callable[[], bool] | None = None, progress: Callable[[int], None] | None = None,
                  compiled: bool = False, prefetch: bool = False) -> SlopeMapRun:
    """Map a ``rows`` x ``cols`` DEM strip by strip (:func:`plan_strips`, :func:`map_strips`).

    Parameters
    ----------
    ground_to_pixel : numpy.ndarray
        Pixels per ground foot (:func:`projected_ground_to_pixel` or its geographic twin).
    read : callable
        ``read(ra, rb, r0, r1)``: elevations of rows ``ra`` to ``rb`` (band unit, NaN nodata).
    distance_ft : float
        Ring radius (ft).
    threshold_pct : float or None
        The rule's threshold (%), compared by ``compare`` and certified at its rounding edge (:func:`map_strips`);
        ``None``: no steep cells (none counted, no mask).
    z_to_ft : float
        Feet per elevation unit.
    n_azimuths : int or None
        0 or ``None``: every ring breakpoint (automatic).
    strip_cells, min_rows : int
        About how many cells a strip holds, and its fewest rows.
    write : callable, optional
        ``write(r0, slope_pct)`` for each strip (NaN unknown).
    want_mask : bool
        Keep the steep cells of the whole DEM.
    write_steep : callable, optional
        ``write_steep(r0, steep)`` for each strip's steep cells (after ``write``; with a threshold only).
    stats : dict, optional
        Counts of the certification, summed over strips (:func:`map_strips`).
    cancelled : callable, optional
        Asked before each strip.
    progress : callable, optional
        ``progress(rows_done)`` after each strip.
    compiled, prefetch : bool
        The optional compiled sweep and the read-ahead of the next strip (:func:`map_strips`; the command
        line asks for them, the plugin never does).
    """
    plan = plan_strips(ground_to_pixel, rows, cols, distance_ft, strip_cells=strip_cells, min_rows=min_rows, n_azimuths=n_azimuths or None)
    steep_all = np.zeros((rows, cols), dtype=bool) if want_mask and threshold_pct is not None else None
    n_steep = 0
    done = 0
    for part in map_strips(plan, ground_to_pixel, read, distance_ft, z_to_ft=z_to_ft, threshold_pct=threshold_pct, compare=compare,
                           stats=stats, cancelled=cancelled, compiled=compiled, prefetch=prefetch):
        steep = part.steep
        if steep is not None:
            n_steep += int(steep.sum())
        if steep_all is not None and steep is not None:
            steep_all[part.r0:part.r1] = steep
        if write is not None:
            write(part.r0, part.slope_pct)
        if write_steep is not None and steep is not None:
            write_steep(part.r0, steep)
        done = part.r1
        if progress is not None:
            progress(done)
    return SlopeMapRun(steep_all, n_steep, done)


def _map_one(values: np.ndarray, jac: np.ndarray, rows: tuple[int, int, int], plan: StripPlan, distance_ft: float, z_to_ft: float,
             threshold_pct: float | None, compare: str, stats: dict[str, int] | None, compiled: bool) -> SlopeStrip:
    """One strip of :func:`map_strips` (``rows``: its first and end row, and the first row read with its halo)."""
    r0, r1, ra = rows
    certify = certified_at(threshold_pct, compare) if threshold_pct is not None else None
    with np.errstate(invalid="ignore"):
        slope = ring_slope_map(values, jac, distance_ft, z_to_ft=z_to_ft, n_azimuths=plan.n_azimuths, threshold_pct=certify,
                               stats=stats, row_range=(r0 - ra, r1 - ra), compiled=compiled)
    steep = steep_cells(slope, threshold_pct, compare) if threshold_pct is not None else None
    return SlopeStrip(r0=r0, r1=r1, slope_pct=slope, steep=steep)


@dataclass(frozen=True)
class SiteSlope:
    """The ring slope at one building site's centre, as the map's algorithm reports it.

    Attributes
    ----------
    site_id : str
        The site's id.
    centre : tuple of float or None
        Working-CRS centre; ``None`` for a site with no geometry.
    slope_pct, azimuth_deg : float or None
        The steepest slope over the distance (percent) and its direction (degrees from grid north); ``None`` when undetermined.
    status : str
        ``advisory`` when steep by the rule's comparison (the rule reclassifies the project: "may be considered major"),
        ``pass`` under it, ``undetermined`` when the ring is incomplete, off the DEM or the site has no geometry.
    z_centre_ft : float or None
        Ground at the centre, feet.
    message : str
        One sentence for the reviewer.
    rays : tuple
        ``(azimuth_deg, slope_pct)`` of the displayed rays (the rose).
    steepest_end : tuple of float or None
        Working-CRS end of the steepest ray.
    """

    site_id: str
    centre: tuple[float, float] | None
    slope_pct: float | None
    azimuth_deg: float | None
    status: str
    z_centre_ft: float | None
    message: str
    rays: tuple[tuple[float, float], ...] = ()
    steepest_end: tuple[float, float] | None = None


def site_slopes(sites: FeatureLayer | None, grid: ElevationGrid | None, distance_ft: float, unit_to_ft: float, threshold_pct: float, compare: str, *,
                n_azimuths: int, display_rays: int, cancelled: Callable[[], bool] | None = None, warnings: list[Warning_] | None = None) -> list[SiteSlope]:
    """The ring slope at each building site's centre, its status and message.

    Parameters
    ----------
    sites : FeatureLayer or None
        Building sites in the working CRS, cleaned here as by the check
        (:func:`~stormwater_plugin.core.geometry.clean_layer`: degenerate geometry kept where it lies; a site with no
        geometry is undetermined, never skipped).
    grid : ElevationGrid or None
        The DEM; ``None`` when it does not cover the sites (every site undetermined).
    distance_ft : float
        Ring radius, feet.
    unit_to_ft : float
        Feet per working-CRS unit (ground feet).
    threshold_pct : float
        Percent; the rule's comparison ``compare`` (``gte``, ``gt``) decides "steep".
    n_azimuths, display_rays : int
        Azimuths of the measure and rays of the displayed rose (the pack rule's).
    cancelled : callable, optional
        Asked before each site.
    warnings : list, optional
        Receives the cleaning's warnings (repaired geometry, features without one).
    """

    out: list[SiteSlope] = []
    if sites is None:
        return out
    sites = clean_layer(sites, warnings if warnings is not None else [])
    for sid, why in sites.no_geometry.items():
        out.append(SiteSlope(sid, None, None, None, "undetermined", None, f"{sid} {why}, so the slope over {distance_ft:g} ft from its centre is undetermined."))
    for i in range(len(sites)):
        if cancelled is not None and cancelled():
            break
        g = sites.geoms[i]
        c = g.centroid if not g.centroid.is_empty else g.representative_point()
        x, y = float(c.x), float(c.y)
        sid = str(sites.ids[i])
        if grid is None:
            out.append(SiteSlope(sid, (x, y), None, None, "undetermined", None,
                                 f"{sid}: the DEM does not cover the site, so the slope over {distance_ft:g} ft is undetermined."))
            continue
        rs = ring_slope_at(grid, x, y, distance_ft, unit_to_ft, n_azimuths=n_azimuths, profile_azimuths=display_rays)
        if rs.slope_pct is None or rs.azimuth_deg is None:
            out.append(SiteSlope(sid, (x, y), None, None, "undetermined", rs.z_centre_ft,
                                 f"{sid}: the slope over {distance_ft:g} ft from its centre is undetermined: {rs.reason}."))
            continue
        steep = bool(exceeds(rs.slope_pct, threshold_pct, compare))
        words = compare_words(compare, threshold_pct) if steep else f"under {threshold_pct:g}%"
        msg = f"{sid}: the steepest slope over {distance_ft:g} ft from its centre is {rs.slope_pct:.2f}% toward {rs.azimuth_deg:.1f}°, {words}."
        out.append(SiteSlope(sid, (x, y), float(rs.slope_pct), float(rs.azimuth_deg), "advisory" if steep else "pass", rs.z_centre_ft, msg,
                             tuple((float(az), float(s)) for az, s in rs.profile), None if rs.end is None else (float(rs.end[0]), float(rs.end[1]))))
    return out
