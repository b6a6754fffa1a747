"""Read every vector source of a site into one layer per role, in the working CRS.

fiona reads each layer once; the plan is read whole and the context roles
through a spatial filter of the site plus the pack's reach; a source that
cannot lie where its CRS says, or lies beyond every rule's reach, is
misplaced (its features undetermined). Mirrors ``qgis_bridge.vectors``.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field
from typing import Any

import fiona
import numpy as np
import shapely
from shapely.geometry import shape

from ..core.model import FeatureLayer, Warning_
from ..core.printable import printable_text
from ..core.roles import CONTEXT_ROLES, ROLES
from ..core.units import feet_per_unit
from ..services.intake import MAX_LISTED, match_fields, outside_area_of_use, unplaceable_feature_problem
from ..services.placement import plan_placement_problem
from ..services.placement_layers import (
    SourcePlace,
    all_features_entry,
    crs_misfit_reason,
    unplaceable_features,
)
from ..services.reading_policy import ReadingReach, decide_placement, screened_feature_by_feature
from ..services.role_merge import ReadSource, merge_role
from ..services.run_warnings import reprojected_warnings
from .crs import _transform_box, _transformer, _wgs84, area_of_use, choose_working_crs, crs_from_wkt
from .dem import DemFile
from .errors import InputError
from .frames import ROLE_ID_FIELDS, VectorFrame, _clean_attr, _identity, _mark_non_finite
from .layer_budget import LayerBudgetError, ReadBudget, check_sql_view
from .sources import EXTRA_READ_DRIVERS, LayerSource, _enable_read_drivers, _exists, _is_virtual, _short

#: Angle between the vertices GDAL puts on a circular arc when it strokes a curve, degrees.
ARC_STEP_DEG: float = 0.25


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
    path = src.gdal
    return fiona.open(path, layer=src.layer, **kwargs) if src.layer else fiona.open(path, **kwargs)


def _probe(src: LayerSource, stack: contextlib.ExitStack | None = None) -> _Probe:
    """Open ``src`` and read its declarations (no feature); :class:`InputError` for a missing file or layer, or no CRS.

    With ``stack`` the layer stays open on it (``_Probe.coll``) for :func:`_read_frame`: opening a
    GeoPackage layer costs several milliseconds.
    """
    if not _exists(src.path):
        raise InputError(f"{src.path}: file not found (for the '{src.role}' layer)")
    if not src.text:
        check_sql_view(src.path, src.layer, src.role, src.describe())  # before GDAL's own unbounded queries on a view
    kept = None
    try:
        with contextlib.ExitStack() as own:
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
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{src.describe()}: cannot read the '{src.role}' layer ({_short(exc)})") from exc
    crs = crs_from_wkt(wkt) if wkt else None
    if crs is None or str(crs.name).lower().startswith("undefined"):
        raise InputError(
            f"{src.describe()}: the '{src.role}' layer has no CRS; assign one (e.g. in QGIS: Layer > Set CRS, or ogr2ogr -a_srs EPSG:xxxx) and run again"
        )
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
    try:
        # Curves (CurvePolygon, CompoundCurve from a GeoPackage or a CAD export) are stroked by GDAL every
        # ARC_STEP_DEG degrees: a chord then lies at most r * 2.4e-6 inside its arc (0.0024 ft at r = 1,000 ft).
        kwargs: dict[str, Any] = {"ignore_fields": list(skipped)} if skipped else {}
        with (fiona.Env(OGR_ARC_STEPSIZE=str(ARC_STEP_DEG)) if opened is None else contextlib.nullcontext()), contextlib.ExitStack() as stack:
            coll = opened if opened is not None else stack.enter_context(_open(src, **kwargs))
            wkt = coll.crs_wkt
            try:
                columns: list[str] | None = [c for c in coll.schema.get("properties", {}).keys() if c not in skipped]
            except Exception:  # fiona 1.9 has no name for a curved layer type (CurvePolygon is 10); its features still read, stroked
                columns = None
            geoms: list[Any] = []
            records: list[dict[str, Any]] = []
            fids: list[Any] = []
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
            for feat in budget.guard(feats, src.role, where_read, start):
                geoms.append(_feature_geometry(feat["geometry"], shape))
                records.append({k: v for k, v in dict(feat["properties"]).items() if k not in skipped})
                fids.append(feat.id)
            if columns is None:
                columns = list(records[0].keys()) if records else []
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{src.describe()}: cannot read the '{src.role}' layer ({_short(exc)})") from exc
    arr = np.empty(len(geoms), dtype=object)
    arr[:] = geoms
    crs = crs_from_wkt(wkt) if wkt else None
    frame = VectorFrame(arr, records, columns, crs)
    if driver == "GPKG" and src.layer and not _is_virtual(src.path):
        frame.restored = _restore_cut_at_nul(src, records, fids)
    _mark_non_finite(frame, "has a coordinate that is not a number (NaN or infinite)")
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


def _read_ids(src: LayerSource, columns: list[str], role: str, skipped: list[str]) -> list[str]:
    """The identities of every feature of ``src`` (attributes only, no geometry): for a layer that cannot be measured."""
    cols = {c.lower(): c for c in columns}
    wanted = [cols[n.lower()] for n in ("id",) + ROLE_ID_FIELDS.get(role, ()) if n.lower() in cols]
    ignore = [c for c in columns if c not in wanted]
    try:
        with _open(src, ignore_fields=ignore, ignore_geometry=True) as coll:
            records = [dict(f["properties"]) for f in ReadBudget.current().guard(coll, role, src.describe())]
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{src.describe()}: cannot read the '{src.role}' layer ({_short(exc)})") from exc
    frame = VectorFrame(np.empty(len(records), dtype=object), records, wanted, None)
    return _identity(frame, role, [str(i + 1) for i in range(len(records))])


def _without_empty_parts(g: Any) -> Any:
    """A GeoJSON-like geometry with its empty parts dropped (``MULTIPOLYGON (EMPTY, ((…)))`` from a CAD export)."""
    kind = g["type"] if isinstance(g, dict) or hasattr(g, "__getitem__") else None
    if kind == "GeometryCollection":
        return {"type": kind, "geometries": [_without_empty_parts(x) for x in g["geometries"] if x is not None]}
    coords = g["coordinates"]
    if kind == "MultiPolygon":
        coords = [[ring for ring in part if len(ring)] for part in coords]
        coords = [part for part in coords if part]
    elif kind in ("MultiLineString", "Polygon"):
        coords = [part for part in coords if len(part)]
    elif kind == "MultiPoint":
        coords = [p for p in coords if p is not None and len(p)]
    return {"type": kind, "coordinates": coords}


def _feature_geometry(g: Any, shape: Any) -> Any:
    """One feature's geometry as shapely: empty parts dropped; unreadable → ``None`` (reported as no geometry, never a lost layer)."""
    if g is None:
        return None
    try:
        return shape(g)
    except Exception:  # noqa: BLE001 - fiona hands over what GDAL read; a broken part must not lose the layer
        try:
            return shape(_without_empty_parts(g))
        except Exception:  # noqa: BLE001
            return None


@dataclass
class _Piece:
    """One source of a role as read: its features in the working CRS, or why they cannot be measured."""

    probe: _Probe
    frame: VectorFrame | None = None
    misplaced: str | None = None
    filtered: bool = False
    #: Read whole at the start, its features screened one by one (its extent does not fit its CRS): not read again.
    screened: bool = False
    #: A large context layer whose extent does not fit its CRS, read through the window: the features beyond it that
    #: cannot be placed are one entry.
    stray_beyond: bool = False
    #: Reasons of features excluded one by one (:func:`_screen_crs`, the stray plan features): worded as such.
    unplaceable: set[str] = field(default_factory=set)


@dataclass
class VectorLayers:
    """Every role's features in the working CRS, with the CRS, why it was chosen and the warnings of reading."""

    layers: dict[str, FeatureLayer]
    crs: Any
    why: str
    warnings: list[Warning_]


def _pack_fields(pack: Any) -> set[str]:
    """Field names the pack's rules read (``params.field``)."""
    if pack is None:
        return set()
    return {str(r.params["field"]) for r in pack.rules if isinstance(r.params.get("field"), str)}


def _outside_crs(probe: _Probe) -> bool:
    """Whether the layer's declared extent cannot lie where its CRS says (see :func:`~stormwater_plugin.services.intake.outside_area_of_use`)."""
    if probe.bounds is None or probe.count == 0:
        return False
    raw = probe.bounds if probe.crs.is_geographic else None
    lonlat = _transform_box(probe.bounds, probe.crs, _wgs84())
    return outside_area_of_use(lonlat, area_of_use(probe.crs), raw)


def read_vectors(sources: dict[str, list[LayerSource]], dem: DemFile | None, pack: Any = None, site_parcel_id: str | None = None) -> VectorLayers:
    """Read every source into one layer per role, in the working CRS.

    The plan (parcels, building sites, devices, clearing, disturbance, impervious) is read whole; with a
    pack, the context roles (:data:`CONTEXT_ROLES`) are then read through a spatial filter: the box of the
    site and the plan grown by the pack's reach (a role a rule of unlimited reach reads is read whole),
    so a county layer costs what its features near the site cost; a role a flow trace of unlimited length
    reads is read over the extent of ``dem`` (the DEM the read opened: the trace cannot leave the raster)
    and the site, and whole without a DEM. Binary fields are never read.

    A source whose coordinates do not fit its CRS, or whose whole extent lies farther from the site than
    the rules reach, is misplaced: its features are listed as without usable geometry, with the reason,
    so every rule reading them is undetermined for them (see :mod:`~stormwater_plugin.services.intake`).
    """
    with fiona.Env(OGR_ARC_STEPSIZE=str(ARC_STEP_DEG)), contextlib.ExitStack() as stack:  # one GDAL environment; layers open once
        return _read_vectors(stack, sources, dem, pack, site_parcel_id)


def _read_vectors(stack: contextlib.ExitStack, sources: dict[str, list[LayerSource]], dem: DemFile | None, pack: Any, site_parcel_id: str | None) -> VectorLayers:
    warnings: list[Warning_] = []
    probes = {role: [_probe(s, stack) for s in srcs] for role, srcs in sources.items()}
    reach = ReadingReach.of(pack, dem)
    dem_crs = dem.crs if dem is not None else None
    plan_present = any(r not in CONTEXT_ROLES for r in probes)
    deferred = reach is not None and plan_present
    pieces: dict[str, list[_Piece]] = {}
    for role, ps in probes.items():
        for p in ps:
            piece = _Piece(p)
            if _outside_crs(p) and screened_feature_by_feature(role, p.count):  # misplaced only when none of its features fits (a wrong .prj)
                whole = _read_frame(p.src, skipped=p.skipped, opened=p.coll)
                if _screen_crs(whole, p, piece):
                    piece.frame, piece.screened = whole, True
                else:
                    piece.misplaced = crs_misfit_reason(p.src.describe(), str(p.crs.name))
                    piece.frame = whole if p.count <= MAX_LISTED else None  # read, so its features are named one by one
            elif _outside_crs(p) and not deferred:
                piece.misplaced = crs_misfit_reason(p.src.describe(), str(p.crs.name))
            elif _outside_crs(p):
                piece.stray_beyond = True  # read through the window below; misplaced when nothing there fits
            elif not (deferred and role in CONTEXT_ROLES):
                piece.frame = _read_frame(p.src, skipped=p.skipped, opened=p.coll)
            pieces.setdefault(role, []).append(piece)

    extra_fields = _pack_fields(pack)
    # Every usable source of each role, with the ids the check gives its features: the site is found by the engine's rule.
    for_crs = {role: [(fr, _piece_ids(role, k, pc.probe, fr)) for k, pc in enumerate(pcs)
                      if pc.misplaced is None and (fr := _renamed(pc.frame, role, extra_fields)) is not None]
               for role, pcs in pieces.items()}
    crs, why = choose_working_crs(dem_crs, {r: v for r, v in for_crs.items() if v}, site_parcel_id)
    ft_unit = feet_per_unit(float(crs.axis_info[0].unit_conversion_factor))
    moved: list[tuple[str, str]] = []

    def to_working(role: str, pc: _Piece) -> None:
        fr = pc.frame
        if fr is not None and fr.crs is not crs and not fr.crs.equals(crs):
            moved.append((role, fr.crs.to_string()))
            pc.frame = fr.to_crs(crs)

    for role, pcs in pieces.items():
        for pc in pcs:
            to_working(role, pc)

    def usable(role_pieces: dict[str, list[_Piece]]) -> dict[str, FeatureLayer]:
        # the features with a geometry, under the ids the check gives them (:func:`_piece_ids`)
        out: dict[str, FeatureLayer] = {}
        for role, pcs in role_pieces.items():
            gs: list[Any] = []
            ids: list[str] = []
            recs: list[dict[str, Any]] = []
            for k, pc in enumerate(pcs):
                fr = _renamed(pc.frame, role, extra_fields) if pc.misplaced is None else None
                if fr is None:
                    continue
                for g, fid, rec in zip(fr.geoms, _piece_ids(role, k, pc.probe, fr), fr.records):
                    if g is not None:
                        gs.append(g)
                        ids.append(fid)
                        recs.append(rec)
            if gs:
                out[role] = FeatureLayer.from_sequences(role, gs, ids, recs)
        return out

    # a plan none of whose features lands on its parcel is refused, never checked (services.placement)
    off = plan_placement_problem(usable({r: v for r, v in pieces.items() if r not in CONTEXT_ROLES}), ft_unit, site_parcel_id)
    if off is not None:
        raise InputError(off)
    if reach is not None:
        # Which sources are misplaced, and which plan features lie far from the site while their layer is there
        order = [(role, pc) for role, pcs in pieces.items() for pc in pcs]
        for (_, pc), d in zip(order, decide_placement([_place(role, pc, crs, deferred) for role, pc in order], reach, ft_unit, site_parcel_id)):
            pc.misplaced = d.misplaced
            if d.stray and d.stray_reason is not None and pc.frame is not None:
                present = [i for i, g in enumerate(pc.frame.geoms) if g is not None]
                for k in d.stray:
                    pc.frame.geoms[present[k]] = None
                    pc.frame.unusable[present[k]] = d.stray_reason
                pc.unplaceable.add(d.stray_reason)
    if deferred:
        assert reach is not None
        plan_layers = usable({r: v for r, v in pieces.items() if r not in CONTEXT_ROLES})
        # A trace of unlimited length runs over the DEM only: no target beyond the raster's edge can be reached.
        dem_box = _transform_box(dem.extent, dem_crs, crs) if dem is not None else None
        for role, pcs in pieces.items():
            if role not in CONTEXT_ROLES:
                continue
            for pc in pcs:
                p = pc.probe
                if pc.misplaced is not None:
                    if pc.frame is None and p.count <= MAX_LISTED:  # read, so its features are named one by one
                        pc.frame = _read_frame(p.src, skipped=p.skipped, opened=p.coll)
                        to_working(role, pc)
                    continue
                if pc.screened:  # read whole already
                    continue
                box = reach.context_box(role, p.count, plan_layers, site_parcel_id, ft_unit, dem_box)  # the one window both readers use
                window = _transform_box(box, crs, p.crs) if box is not None else None
                pc.frame = _read_frame(p.src, bbox=window, skipped=p.skipped, opened=p.coll)
                pc.filtered = window is not None
                if pc.stray_beyond and not _screen_crs(pc.frame, p, pc):
                    # nothing read fits the CRS: the layer is misplaced as a whole (a wrong .prj), never "none within reach"
                    pc.misplaced, pc.frame = crs_misfit_reason(p.src.describe(), str(p.crs.name)), None
                    continue
                to_working(role, pc)

    layers: dict[str, FeatureLayer] = {}
    for role in [r for r in ROLES if r in pieces]:
        layers[role], merged = merge_role(role, [_read_source(role, k, pc, extra_fields) for k, pc in enumerate(pieces[role])])
        warnings.extend(merged)
    warnings.extend(reprojected_warnings(moved, crs.to_string()))
    return VectorLayers(layers, crs, why, warnings)


def _screen_crs(fr: VectorFrame, p: _Probe, pc: _Piece) -> bool:
    """Exclude, one by one, the features of ``fr`` (in its own CRS) that lie where that CRS cannot place them; whether any fits.

    :func:`~stormwater_plugin.services.placement_layers.unplaceable_features` on each feature's box in degrees;
    the excluded features keep their ids, with the reason (:func:`~stormwater_plugin.services.intake.unplaceable_feature_problem`).
    """
    present = [i for i, g in enumerate(fr.geoms) if g is not None and not g.is_empty]
    if not present:
        return False
    b = shapely.bounds(np.array([fr.geoms[i] for i in present], dtype=object))
    xs, ys = b[:, [0, 2, 0, 2]], b[:, [1, 1, 3, 3]]
    with np.errstate(invalid="ignore", over="ignore"):
        try:
            lon, lat = _transformer(p.crs.to_wkt(), _wgs84().to_wkt()).transform(xs.ravel(), ys.ravel())
            lon, lat = np.asarray(lon, dtype=float).reshape(-1, 4), np.asarray(lat, dtype=float).reshape(-1, 4)
            lonlat = np.column_stack([lon.min(axis=1), lat.min(axis=1), lon.max(axis=1), lat.max(axis=1)])
        except Exception:  # noqa: BLE001 - pyproj refuses some coordinates outright: none of them can be placed
            lonlat = np.full((len(present), 4), np.nan)
    bad = unplaceable_features(lonlat, area_of_use(p.crs), b if p.crs.is_geographic else None)
    if bool(bad.all()):
        return False
    why = unplaceable_feature_problem(p.src.describe(), str(p.crs.name))
    for k in np.flatnonzero(bad):
        fr.geoms[present[int(k)]] = None
        fr.unusable[present[int(k)]] = why
    if bool(bad.any()):
        pc.unplaceable.add(why)
    return True


def _piece_ids(role: str, k: int, p: _Probe, fr: VectorFrame) -> list[str]:
    """The ids the check gives the features of a role's ``k``-th source (its fields already renamed, :func:`_renamed`)."""
    fids = [str(i + 1) if k == 0 else f"{p.src.layer or p.src.path.stem}:{i + 1}" for i in range(len(fr))]
    # KML: the placemark's <name> is its label; GDAL's LIBKML driver (GDAL 3.10 reads .kml with it too) exposes the
    # placemark's XML id as an "id" field, which writers fill with "layer.1", "layer.2"
    kml_first = ("name",) if p.driver in EXTRA_READ_DRIVERS else ()
    return _identity(fr, role, fids, first=kml_first)


def _renamed(fr: VectorFrame | None, role: str, extra_fields: set[str]) -> VectorFrame | None:
    """``fr`` with its fields named as the check reads them (:func:`~stormwater_plugin.services.intake.match_fields`), unchanged."""
    if fr is None:
        return None
    renames, _ = match_fields(fr.columns, role, extra_fields)
    if not renames:
        return fr
    return VectorFrame(fr.geoms, [{renames.get(c, c): v for c, v in r.items()} for r in fr.records], [renames.get(c, c) for c in fr.columns],
                       fr.crs, fr.unusable)


def _usable_layer(role: str, fr: VectorFrame) -> FeatureLayer:
    """The features of one source with a geometry, as a layer (they locate the site for the other roles' sources)."""
    recs = [fr.records[i] for i, g in enumerate(fr.geoms) if g is not None]
    gs = [g for g in fr.geoms if g is not None]
    ids_frame = VectorFrame(np.empty(len(recs), dtype=object), recs, sorted({k for r in recs for k in r}), None)
    return FeatureLayer.from_sequences(role, gs, _identity(ids_frame, role, [str(i + 1) for i in range(len(recs))]), recs)


def _place(role: str, pc: _Piece, crs: Any, deferred: bool) -> SourcePlace:
    """What :func:`~stormwater_plugin.services.placement_layers.misplaced_sources` needs of a source, in the working CRS ``crs``.

    A plan source: the box of its features and the features themselves; a context source read later
    (``deferred``): its declared extent transformed.
    """
    p = pc.probe
    place = SourcePlace(role, p.src.describe(), str(p.crs.name), fits_crs=pc.misplaced is None)
    if pc.misplaced is not None:
        return place
    if role in CONTEXT_ROLES and pc.screened and pc.frame is not None:  # its features that fit the CRS, not its declared extent
        b = pc.frame.total_bounds
        place.bounds = (float(b[0]), float(b[1]), float(b[2]), float(b[3])) if np.all(np.isfinite(b)) else None
        return place
    if role in CONTEXT_ROLES:
        if deferred and p.count and not pc.stray_beyond:
            place.bounds = _transform_box(p.bounds, p.crs, crs)
        return place
    if pc.frame is not None:
        b = pc.frame.total_bounds
        place.bounds = (float(b[0]), float(b[1]), float(b[2]), float(b[3])) if np.all(np.isfinite(b)) else None
        place.layer = _usable_layer(role, pc.frame)
    return place


def _read_source(role: str, k: int, pc: _Piece, extra_fields: set[str]) -> ReadSource:
    """The ``k``-th source of a role as read, for :func:`~stormwater_plugin.services.role_merge.merge_role`: ids, fields renamed, values cleaned."""
    p = pc.probe
    name = p.src.layer or p.src.path.name
    if pc.frame is None:  # misplaced before reading: its ids only
        assert pc.misplaced is not None
        if p.count > MAX_LISTED:
            fids = [all_features_entry(p.count, name)]
        else:
            with fiona.Env():
                fids = _read_ids(p.src, p.columns, role, p.skipped)
        return ReadSource(p.src.describe(), name, str(p.crs.name), p.count, fids, misplaced=pc.misplaced)
    fr = pc.frame
    renames, near = match_fields(fr.columns, role, extra_fields)
    if renames:
        fr.records = [{renames.get(c, c): v for c, v in r.items()} for r in fr.records]
        fr.columns = [renames.get(c, c) for c in fr.columns]
    return ReadSource(p.src.describe(), name, str(p.crs.name), p.count, _piece_ids(role, k, p, fr), list(fr.geoms),
                      [{c: _clean_attr(v) for c, v in r.items()} for r in fr.records], fr.unusable, pc.misplaced, renames, near, fr.restored,
                      pc.filtered, pc.stray_beyond, pc.unplaceable)
