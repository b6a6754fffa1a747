"""``stormwater-check slope-map``: the 100 ft any-direction slope of every DEM cell, as a GeoTIFF.

Usage::

    stormwater-check slope-map DEM.tif --out slope100.tif [--distance-ft 100]
        [--threshold 15 --mask-out steep.gpkg] [--dem-z-units {m,ft,us-ft}]

The map is on the DEM's own grid (never resampled). Each cell holds, in
percent, the maximum over all directions of the elevation difference between
the cell centre and the point ``distance`` feet away, divided by the
distance (see ``docs/terrain.md``); nodata (-9999) where the ring is
incomplete. ``--mask-out`` also writes polygons of the cells at or above
``--threshold``, decided at 0.1% as the building-site check decides (the map
is certified at the rounding edge: 14.95% for 15%). Defaults for the distance
and the threshold come from the building-site slope rule of the LGPC pack.

Exit status: 0 done, 2 bad input (one line on stderr, never a traceback).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Sequence

import click
import numpy as np

from ..core.dem_policy import CleanStats, cleaning_warning, scale_offset_note
from ..core.errors import StormwaterError
from ..core.rulepack import load_pack
from ..core.terrain import ring_kernel_numba
from ..core.terrain.plausibility import elevation_plausibility
from ..core.terrain.slope_map import MAX_AZIMUTHS
from ..core.units import USER_Z_UNITS
from ..services.slope import certified_at, compare_words, slope_params, slope_rule
from ..services.slope_map import run_slope_map
from .command_line import Command, dem_z_units_option, namespace, out_option, quiet_option
from .command_line import run as invoke
from .dem import BandMeta
from .errors import InputError
from .slope_raster import ground_to_pixel

PROG = "stormwater-check slope-map"

#: Cells per strip read (plus a halo of the ring's reach above and below): bounds the memory.
TILE_CELLS: int = 4_000_000

#: Progress lines (stderr) for DEMs larger than this.
PROGRESS_CELLS: int = 20_000_000

#: GDAL block cache (MB) while the map runs: strips are read and written once, so a small cache costs nothing
#: and keeps the peak memory independent of the machine's RAM.
GDAL_CACHE_MB: int = 256
NODATA_OUT: float = -9999.0

#: Smallest DEM (cells) for the optional compiled sweep: ``import numba`` and loading its cached code cost ~0.5-1 s of
#: CPU, which the sweep saves back (~0.2 µs per cell on 1 m pixels) from about this size.
COMPILED_MIN_CELLS: int = 4_000_000


class SlopeMapError(StormwaterError):
    """Bad input: reported on one line, exit status 2."""


def _pack_defaults() -> tuple[float | None, float | None]:
    """Distance (ft) and threshold (%) of the LGPC building-site slope rule, if the pack has one."""
    dist, thr, _ = _lgpc_slope()
    return dist, thr


def _lgpc_slope() -> tuple[float | None, float | None, str]:
    """Distance, threshold and comparison of the LGPC ``building_site_slope`` rule (``gte`` when there is none)."""
    try:
        rule = slope_rule(load_pack("lgpc"))
    except Exception:  # pragma: no cover - the bundled pack always loads
        rule = None
    if rule is None:  # pragma: no cover
        return None, None, "gte"
    return slope_params(rule)


_DIST, _THR = _pack_defaults()


@click.command(cls=Command, help="Slope over a distance in any direction from every DEM cell, in percent, on the DEM's own grid. "
               "DEM: a raster (GeoTIFF or anything GDAL reads), projected or in degrees.")
@click.argument("dem")
@out_option("output GeoTIFF (float32 percent, nodata -9999)", path=False)
@click.option("--distance-ft", type=float, default=_DIST,
              help=f"ring radius in feet (default {_DIST:g}, from the LGPC pack)" if _DIST else "ring radius in feet")
@click.option("--threshold", type=float, default=_THR, help=f"percent for --mask-out (default {_THR:g}, at or above)" if _THR else "percent for --mask-out")
@click.option("--mask-out", help="also write polygons of cells at or above --threshold (GeoPackage)")
@dem_z_units_option("elevation unit of the DEM (default: the band's declared unit, else the horizontal unit, metres for degrees)",
                    choices=sorted(USER_Z_UNITS))
@click.option("--azimuths", type=int, default=None, help="accepted for compatibility (4 to 256) and ignored: every ring breakpoint is sampled")
@click.option("--tile-cells", type=int, default=TILE_CELLS, help=f"cells per strip read and written (memory bound; default {TILE_CELLS:,})")
@quiet_option("print nothing but errors")
def command(**values: Any) -> int:
    """``stormwater-check slope-map``: the map, or one line on stderr and exit 2."""
    args = namespace(values)
    try:
        import rasterio

        with rasterio.Env(GDAL_CACHEMAX=GDAL_CACHE_MB):  # GDAL's block cache defaults to 5 % of RAM: bound it
            return run(args)
    except SlopeMapError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 2
    except MemoryError:
        sys.stderr.write(f"{PROG}: error: the DEM is too large for memory\n")
        return 2
    except Exception as exc:  # one line, never a traceback
        sys.stderr.write(f"{PROG}: error: {type(exc).__name__}: {_short(exc)}\n")
        return 2


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def run(args: SimpleNamespace) -> int:
    import rasterio
    from pyproj import CRS
    from rasterio.transform import Affine
    from rasterio.windows import Window

    dem = Path(args.dem)
    out = Path(args.out)
    if args.distance_ft is None or not args.distance_ft > 0:
        raise SlopeMapError("--distance-ft must be a positive number of feet")
    if args.mask_out and args.threshold is None:
        raise SlopeMapError("--mask-out needs --threshold")
    if args.azimuths is not None and not 4 <= args.azimuths <= MAX_AZIMUTHS:
        raise SlopeMapError(f"--azimuths must be between 4 and {MAX_AZIMUTHS}")
    if not dem.exists():
        raise SlopeMapError(f"{dem}: DEM not found")
    if not out.parent.exists():
        raise SlopeMapError(f"{out.parent}: output folder does not exist")
    if args.mask_out and not Path(args.mask_out).parent.exists():
        raise SlopeMapError(f"{Path(args.mask_out).parent}: output folder does not exist")
    t0 = time.perf_counter()
    try:
        src = rasterio.open(dem)
    except Exception as exc:
        raise SlopeMapError(f"{dem}: cannot be read as a raster ({_short(exc)})") from exc
    with src:
        if src.count < 1:
            raise SlopeMapError(f"{dem}: the raster has no band")
        if src.crs is None:
            raise SlopeMapError(f"{dem}: the DEM has no CRS; assign one (gdal_edit.py -a_srs EPSG:xxxx) and run again")
        try:
            crs = CRS.from_wkt(src.crs.to_wkt())
        except Exception as exc:
            raise SlopeMapError(f"{dem}: the DEM's CRS cannot be read ({_short(exc)})") from exc
        try:
            meta = BandMeta(src, str(dem))
            zu = meta.z_unit(args.dem_z_units, crs)
        except ValueError as exc:  # NotAnElevationBand, or an unknown declared unit
            raise SlopeMapError(str(exc)) from exc
        profile = src.profile
        t = src.transform
        rows, cols = src.height, src.width
        gt = (t.c, t.a, t.b, t.f, t.d, t.e)
        unit, note, z_to_ft = zu.unit, zu.note, zu.z_to_ft
        note += scale_offset_note(meta.scale, meta.offset)
        cleaned = CleanStats()
        try:
            jac_all, how = ground_to_pixel(crs, gt, rows, cols)
        except InputError as exc:
            raise SlopeMapError(str(exc)) from exc
        messages = [note, how]
        try:
            preview = meta.elevations(src, z_to_ft, out_shape=(min(rows, 512), min(cols, 512)))
        except Exception as exc:
            raise SlopeMapError(f"{dem}: the DEM cannot be read ({_short(exc)})") from exc
        warn = elevation_plausibility(preview, z_to_ft, name=dem.name)
        if warn:
            messages.append(f"warning: {warn}")
        compare = _lgpc_slope()[2]
        messages.append("every ring breakpoint sampled exactly (and points inside the longer or twisted arcs)" + _certified(args.threshold, compare))
        # the optional compiled sweep (same values as numpy's), only where it repays importing numba
        compiled = rows * cols >= COMPILED_MIN_CELLS and ring_kernel_numba.kernel() is not None
        messages.append(f"sweep: {ring_kernel_numba.describe()}" if rows * cols >= COMPILED_MIN_CELLS else
                        f"sweep: numpy (under {COMPILED_MIN_CELLS:,} cells the compiled sweep does not repay importing numba)")
        if not args.quiet:
            for m in messages:
                print(m, file=sys.stderr)

        profile.update(driver="GTiff", dtype="float32", count=1, nodata=NODATA_OUT, compress=None, tiled=True, blockxsize=256, blockysize=256,
                       BIGTIFF="IF_SAFER")
        for key in ("interleave", "photometric"):
            profile.pop(key, None)
        if cols < 256 or rows < 256:
            for key in ("tiled", "blockxsize", "blockysize"):
                profile.pop(key, None)
        stats: dict[str, int] = {}
        n_valid = 0
        mask_writer = _MaskWriter(Path(args.mask_out), args.threshold, compare, args.distance_ft, crs) if args.mask_out else None

        def read_rows(ra: int, rb: int, r0: int, r1: int) -> np.ndarray:
            try:
                return meta.elevations(src, z_to_ft, cleaned, (r0 - ra, r1 - ra), window=Window(0, ra, cols, rb - ra))
            except Exception as exc:
                raise SlopeMapError(f"{dem}: rows {ra} to {rb} cannot be read ({_short(exc)})") from exc

        try:
            dst = rasterio.open(out, "w", **profile)
        except Exception as exc:
            raise SlopeMapError(f"{out}: cannot be written ({_short(exc)})") from exc

        def write_slope(r0: int, slope: np.ndarray) -> None:
            nonlocal n_valid
            valid = np.isfinite(slope)
            n_valid += int(valid.sum())
            dst.write(np.where(valid, slope, np.float32(NODATA_OUT)).astype(np.float32), 1, window=Window(0, r0, cols, slope.shape[0]))

        def write_steep(r0: int, steep: np.ndarray) -> None:
            if mask_writer is not None:
                mask_writer.add(steep, t * Affine.translation(0, r0))

        last_report = time.perf_counter()

        def progress(r1: int) -> None:
            nonlocal last_report
            now = time.perf_counter()
            if not args.quiet and (now - last_report > 5.0 or r1 == rows) and rows * cols > PROGRESS_CELLS:
                print(f"{100.0 * r1 / rows:5.1f}% ({r1:,} of {rows:,} rows, {now - t0:.0f} s)", file=sys.stderr)
                last_report = now

        try:
            with dst:
                dst.set_band_description(1, f"slope over {args.distance_ft:g} ft in any direction, percent")
                dst.update_tags(distance_ft=f"{args.distance_ft:g}", z_units=unit, method="ring slope, see docs/terrain.md",
                                certified_threshold_pct="" if args.threshold is None else f"{args.threshold:g}")
                run_slope_map(jac_all, rows, cols, read_rows, args.distance_ft, z_to_ft=z_to_ft, threshold_pct=args.threshold, compare=compare,
                              n_azimuths=args.azimuths, strip_cells=int(args.tile_cells), min_rows=16, write=write_slope,
                              write_steep=write_steep if mask_writer is not None else None, stats=stats, progress=progress,
                              compiled=compiled, prefetch=True)
        finally:
            if mask_writer is not None:
                mask_writer.close()
    filled = cleaning_warning(dem.name, cleaned)
    if filled:
        print(f"warning: {filled}", file=sys.stderr)
    if not args.quiet:
        share = f"{n_valid:,} of {rows * cols:,} cells have a value"
        edge = certified_at(args.threshold, compare) if args.threshold is not None else None
        cert = f"; {stats.get('certified', 0):,} cells decided on every arc at {edge:g}%" if edge is not None else ""
        if stats.get("conservative"):
            cert += f" ({stats['conservative']:,} left within rounding of it, given {edge:g}%)"
        steep = f"; {mask_writer.count if mask_writer else 0} polygon(s) at or above {args.threshold:g}% written to {args.mask_out}" if args.mask_out else ""
        print(f"{out}: {share}{cert}{steep} ({time.perf_counter() - t0:.1f} s)")
    return 0


def _certified(threshold: float | None, compare: str) -> str:
    """``"; certified at 14.95% (15% or more, decided at 0.1%)"``: the rounding edge the map is certified at."""
    edge = None if threshold is None else certified_at(threshold, compare)
    if threshold is None or edge is None:
        return ""
    return f"; certified at {edge:g}% ({compare_words(compare, threshold)}, decided at 0.1%)"


class _MaskWriter:
    """Polygons of steep cells (the pack rule's comparison, as :func:`~stormwater_plugin.services.slope_map.run_slope_map` decides them).

    Written strip by strip: a polygon crossing strips is split there.
    """

    def __init__(self, path: Path, threshold: float, compare: str, distance_ft: float, crs: Any) -> None:
        import fiona

        schema = {"geometry": "Polygon", "properties": {"threshold_pct": "float", "distance_ft": "float"}}
        self.threshold = float(threshold)
        self.compare = compare
        self.props = {"threshold_pct": float(threshold), "distance_ft": float(distance_ft)}
        self.count = 0
        self.path = path
        try:
            self.dst = fiona.open(path, "w", driver="GPKG", schema=schema, crs_wkt=crs.to_wkt(), layer="steep_slopes")
        except Exception as exc:
            raise SlopeMapError(f"{path}: cannot be written ({_short(exc)})") from exc

    def add(self, steep: np.ndarray, transform: Any) -> int:
        """Write the polygons of one strip's steep cells (:func:`~stormwater_plugin.services.slope_map.run_slope_map`); their count of cells."""
        from rasterio.features import shapes
        from shapely.geometry import mapping, shape

        if steep.any():
            try:
                for geom, _ in shapes(steep.astype(np.uint8), mask=steep, transform=transform, connectivity=8):
                    self.dst.write({"geometry": mapping(shape(geom)), "properties": self.props})
                    self.count += 1
            except Exception as exc:
                raise SlopeMapError(f"{self.path}: cannot be written ({_short(exc)})") from exc
        return int(steep.sum())

    def close(self) -> None:
        self.dst.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``stormwater-check slope-map ...`` (``argv`` without the command's name); the exit status."""
    try:
        return invoke(command, PROG, sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # a usage error (2, already reported on one line)
        return exc.code if isinstance(exc.code, int) else 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
