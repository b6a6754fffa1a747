"""The file reader's layers: fiona fetches each layer's features for the one read (:mod:`~stormwater_plugin.services.site_read`).

:class:`FileLayers` is the files' :class:`~stormwater_plugin.services.backend.LayerBackend`: each layer is
opened once and probed (CRS, extent, fields, count), its features read whole or through a box (and those
without geometry), curves stroked, text cut at a NUL by GDAL restored, binary fields skipped; the read decides
the rest.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

import fiona
import numpy as np

from ..core.printable import printable_text
from ..core.units import feet_per_unit
from ..services.backend import Box, SourceInfo
from ..services.feature_geometry import ARC_STEP_DEG, NOT_A_NUMBER
from ..services.feature_rows import feature_rows
from ..services.input_errors import short_reason as _short
from ..services.layer_sources import LayerSource
from ..services.layer_sources import is_virtual as _is_virtual
from ..services.placement_layers import crs_declared
from ..services.read_budget import LayerBudgetError, ReadBudget
from ..services.unplaceable import extent_fits_crs, unplaceable_positions
from .crs import PYPROJ, _transform_box, _transformer, _wgs84, choose_working_crs, crs_from_wkt
from .dem import DemFile
from .errors import InputError
from .frames import VectorFrame, _mark_non_finite
from .layer_budget import check_sql_view
from .sources import EXTRA_READ_DRIVERS, _enable_read_drivers, _exists, gdal_path

#: Field types never read (photographs and other attachments: a field-collection package's wells may carry hundreds of MB).
SKIPPED_FIELD_TYPES: tuple[str, ...] = ("bytes",)


@dataclass
class _Probe:
    """What a layer declares before its features are read: CRS, extent, fields, size and driver."""

    src: LayerSource
    crs: Any
    bounds: tuple[float, float, float, float] | None
    columns: list[str]
    skipped: list[str]
    count: int
    driver: str
    #: The layer, still open, when no field is to be skipped (fiona skips fields only as it opens a layer).
    coll: Any = None


def _open(src: LayerSource, **kwargs: Any) -> Any:
    _enable_read_drivers()
    path = src.text or gdal_path(src.path)
    return fiona.open(path, layer=src.layer, **kwargs) if src.layer else fiona.open(path, **kwargs)


@contextlib.contextmanager
def _reading(src: LayerSource) -> Iterator[None]:
    """Reading ``src``: an error of the driver (fiona raises its own, by driver) as one :class:`InputError` naming the layer."""
    try:
        yield
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{src.describe()}: cannot read the '{src.role}' layer ({_short(exc)})") from exc


def _probe(src: LayerSource, stack: contextlib.ExitStack | None = None) -> _Probe:
    """Open ``src`` and read its declarations (no feature); :class:`InputError` for a missing file or layer (no CRS: ``crs`` ``None``).

    With ``stack`` the layer stays open on it (``_Probe.coll``) for :func:`_read_frame`: opening a
    GeoPackage layer costs several milliseconds.
    """
    if not _exists(src.path):
        raise InputError(f"{src.path}: file not found (for the '{src.role}' layer)")
    if not src.text:
        check_sql_view(src.path, src.layer, src.role, src.describe())  # before GDAL's own unbounded queries on a view
    kept = None
    with _reading(src), contextlib.ExitStack() as own:
        coll = (stack or own).enter_context(_open(src))
        kept = coll if stack is not None else None
        wkt = coll.crs_wkt
        try:
            props = dict(coll.schema.get("properties", {}))
            columns = list(props.keys())
            skipped = [k for k, t in props.items() if str(t).split(":")[0] in SKIPPED_FIELD_TYPES]
        except Exception:  # fiona 1.9 has no name for a curved layer type (CurvePolygon is 10); its features still read
            columns, skipped = [], []
        try:
            b = tuple(float(v) for v in coll.bounds)
            bounds: tuple[float, float, float, float] | None = (b[0], b[1], b[2], b[3]) if all(math.isfinite(v) for v in b) else None
        except Exception:  # noqa: BLE001 - a driver that cannot give an extent: the features are read whole
            bounds = None
        try:
            count = len(coll)
        except TypeError:  # GML, and other drivers that cannot count without reading: counted by reading, within the budget
            count = sum(1 for _ in ReadBudget.current().guard(iter(coll), src.role, src.describe()))
        driver = str(coll.driver)
    crs = crs_from_wkt(wkt) if wkt else None
    crs = crs if crs_declared(crs is not None, str(getattr(crs, "name", ""))) else None  # none: the read lists the layer as misplaced
    return _Probe(src, crs, bounds, columns, skipped, count, driver, kept if not skipped else None)


def _read_frame(
    src: LayerSource, bbox: tuple[float, float, float, float] | None = None, skipped: tuple[str, ...] | list[str] = (), opened: Any = None
) -> VectorFrame:
    """The features of ``src`` (those meeting ``bbox``, in the layer's CRS, when given), without the ``skipped`` fields.

    ``opened``: the layer already open (from :func:`_probe`), read instead of opening it again.
    """
    if not _exists(src.path):
        raise InputError(f"{src.path}: file not found (for the '{src.role}' layer)")
    budget, start, where_read = ReadBudget.current(), time.monotonic(), src.describe()
    with _reading(src):
        # Curves are stroked by GDAL every ARC_STEP_DEG degrees (services.feature_geometry).
        kwargs: dict[str, Any] = {"ignore_fields": list(skipped)} if skipped else {}
        with (fiona.Env(OGR_ARC_STEPSIZE=str(ARC_STEP_DEG)) if opened is None else contextlib.nullcontext()), contextlib.ExitStack() as stack:
            coll = opened if opened is not None else stack.enter_context(_open(src, **kwargs))
            wkt = coll.crs_wkt
            try:
                columns: list[str] | None = [c for c in coll.schema.get("properties", {}).keys() if c not in skipped]
            except Exception:  # fiona 1.9 has no name for a curved layer type (CurvePolygon is 10); its features still read, stroked
                columns = None
            driver = str(coll.driver)
            where = _no_geometry_where(src, str(coll.driver)) if bbox is not None else None
            feats: Any = None if where is not None else coll  # no way to find the features without geometry: read them all
            if where is not None:
                try:
                    # The features meeting the box, and those without geometry (no box finds them; each makes its rules
                    # undetermined). One OGR layer: each filter is set only once the previous one is read through.
                    feats = list(_unique_features(lambda: budget.guard(coll.filter(bbox=bbox), src.role, where_read, start),
                                                  lambda: budget.guard(coll.filter(where=where), src.role, where_read, start)))
                except LayerBudgetError:
                    raise
                except Exception:  # noqa: BLE001 - a driver refusing the filter: the layer is read whole, afresh
                    feats = stack.enter_context(_open(src, **kwargs))
            geoms, records, fids = feature_rows(budget.guard(feats, src.role, where_read, start), skipped)
            if columns is None:
                columns = list(records[0].keys()) if records else []
    arr = np.empty(len(geoms), dtype=object)
    arr[:] = geoms
    crs = crs_from_wkt(wkt) if wkt else None
    frame = VectorFrame(arr, records, columns, crs)
    if driver == "GPKG" and src.layer and not _is_virtual(src.path):
        frame.restored = _restore_cut_at_nul(src, records, fids)
    _mark_non_finite(frame, NOT_A_NUMBER)
    return frame


def _restore_cut_at_nul(src: LayerSource, records: list[dict[str, Any]], fids: list[Any]) -> list[tuple[int, str]]:
    """Text values of a GeoPackage that GDAL cut at a NUL, read whole from SQLite with the NUL taken out.

    "Hartwell\\0 Family Trust" reaches fiona as "Hartwell"; SQLite keeps the whole value, so it is read again
    (its NUL removed, :func:`~stormwater_plugin.core.printable.printable_text`) and the change is warned.
    Returns the (row, field) pairs restored.
    """
    import sqlite3

    by_fid = {str(f): i for i, f in enumerate(fids)}
    if not records or not by_fid:
        return []
    out: list[tuple[int, str]] = []
    try:
        con = sqlite3.connect(f"file:{src.path}?mode=ro", uri=True)
        try:
            table = '"' + str(src.layer).replace('"', '""') + '"'
            cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})") if str(r[2]).upper().startswith("TEXT")]
            pk = next((r[1] for r in con.execute(f"PRAGMA table_info({table})") if r[5]), None)
            if pk is None:
                return []
            for col in cols:
                if col not in records[0]:
                    continue
                q = '"' + col.replace('"', '""') + '"'
                rows = con.execute(f'SELECT "{pk}", CAST({q} AS BLOB) FROM {table} WHERE instr(CAST({q} AS BLOB), X\'00\') > 0 LIMIT 10000')  # nosec B608 - identifiers of the file's own schema, quoted; read-only
                for fid, raw in rows:
                    i = by_fid.get(str(fid))
                    if i is None or raw is None:
                        continue
                    records[i][col] = printable_text(bytes(raw).decode("utf-8", errors="replace"))
                    out.append((i, col))
        finally:
            con.close()
    except sqlite3.Error:  # not readable as SQLite here: GDAL's values stand
        return []
    return out


def _no_geometry_where(src: LayerSource, driver: str) -> str | None:
    """An attribute filter selecting the features of ``src`` without geometry, or ``None`` when none is known for its driver."""
    if driver != "GPKG":
        return "OGR_GEOMETRY IS NULL"  # OGR SQL, which the drivers without a SQL engine of their own use
    if _is_virtual(src.path) or not src.layer:
        return None
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{src.path}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT column_name FROM gpkg_geometry_columns WHERE lower(table_name) = lower(?)", (src.layer,)).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    if not row:
        return None
    col = '"' + str(row[0]).replace('"', '""') + '"'
    return f"{col} IS NULL OR ST_IsEmpty({col})"


def _unique_features(*groups: Any) -> Any:
    """The features of each group (a callable giving an iterator) in turn, each feature once (by its feature id)."""
    seen: set[Any] = set()
    for group in groups:
        for feat in list(group()):
            key = feat.id
            if key in seen:
                continue
            seen.add(key)
            yield feat


def _to_lonlat(crs: Any, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of ``crs`` in WGS 84 degrees; not finite where they cannot be transformed."""
    with np.errstate(invalid="ignore", over="ignore"):
        try:
            return _transformer(crs.to_wkt(), _wgs84().to_wkt()).transform(xs, ys)  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - pyproj refuses some coordinates outright: none of them can be placed
            return np.full(np.shape(xs), np.nan), np.full(np.shape(ys), np.nan)


def _info(p: _Probe) -> SourceInfo:
    """What the one read (:mod:`~stormwater_plugin.services.site_read`) knows of a probed layer."""
    src = p.src
    # KML: the placemark's <name> is its label; GDAL's LIBKML driver (GDAL 3.10 reads .kml with it too) exposes the
    # placemark's XML id as an "id" field, which writers fill with "layer.1", "layer.2"
    fits = p.crs is None or extent_fits_crs(p.bounds, p.count, lambda b: _transform_box(b, p.crs, _wgs84()), PYPROJ.area_of_use(p.crs), p.crs.is_geographic)
    return SourceInfo(src.role, src.describe(), src.layer or src.path.name, p.crs, str(p.crs.name) if p.crs is not None else "none", p.count, p.columns,
                      p.bounds, fits, src.layer or src.path.stem, ("name",) if p.driver in EXTRA_READ_DRIVERS else (), p, crs_known=p.crs is not None)


def _probe_of(source: SourceInfo) -> _Probe:
    assert isinstance(source.handle, _Probe)
    return source.handle


class FileLayers:
    """The files' layers as :class:`~stormwater_plugin.services.backend.LayerBackend` (fiona; CRSs are ``pyproj.CRS``).

    Each layer is opened once, on ``stack``, when it is probed; binary fields are never read.
    """

    def __init__(self, stack: contextlib.ExitStack, sources: dict[str, list[LayerSource]]) -> None:
        self._stack = stack
        self._sources = sources

    def sources(self) -> dict[str, list[SourceInfo]]:
        return {role: [_info(_probe(s, self._stack)) for s in srcs] for role, srcs in self._sources.items()}

    def fetch(self, source: SourceInfo, box: Box | None = None) -> VectorFrame:
        p = _probe_of(source)
        return _read_frame(p.src, bbox=box, skipped=p.skipped, opened=p.coll)

    def to_working(self, source: SourceInfo, features: Any, working: Any) -> tuple[VectorFrame, str | None]:
        fr = features
        if fr.crs is working or fr.crs.equals(working):
            return fr, None
        return fr.to_crs(working), fr.crs.to_string()

    def fetch_records(self, source: SourceInfo, columns: Sequence[str]) -> list[dict[str, Any]]:
        src = _probe_of(source).src
        ignore = [c for c in source.columns if c not in columns]
        with _reading(src), fiona.Env(), _open(src, ignore_fields=ignore, ignore_geometry=True) as coll:
            return [dict(f["properties"]) for f in ReadBudget.current().guard(coll, src.role, src.describe())]

    def unplaceable(self, source: SourceInfo, features: Any) -> list[int] | None:
        crs = _probe_of(source).crs
        return unplaceable_positions(features.geoms, functools.partial(_to_lonlat, crs), PYPROJ.area_of_use(crs), crs.is_geographic)

    def box_in(self, box: Box | None, src: Any, dst: Any) -> Box | None:
        return _transform_box(box, src, dst)

    def working_crs(self, parts: Mapping[str, Sequence[tuple[Any, Sequence[str]]]], site_parcel_id: str | None) -> tuple[Any, str]:
        return choose_working_crs(self.dem.crs if self.dem is not None else None, parts, site_parcel_id)

    crs_ops = PYPROJ

    def ft_per_unit(self, crs: Any) -> float:
        return feet_per_unit(float(crs.axis_info[0].unit_conversion_factor))

    def crs_text(self, crs: Any) -> str:
        return str(crs.to_string())

    #: The DEM the read opened (set by the site's reader, :class:`~stormwater_plugin.headless.reader.FileSite`).
    dem: DemFile | None = None


    def dem_extent(self, working: Any) -> Box | None:
        return _transform_box(self.dem.extent, self.dem.crs, working) if self.dem is not None else None
