"""Read a site package and a DEM from files into the core's inputs (headless edge).

geopandas, rasterio and pyproj are imported here, lazily, and nowhere in the
core. Every layer is reprojected to one projected working CRS: the DEM's when
it is projected, else the local UTM zone of the site. Problems a user can fix
raise :class:`InputError` with a message naming the file, layer or field.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fiona
import numpy as np
import shapely
from pyproj import CRS, Geod, Proj, Transformer
from shapely.geometry import shape

from ..core.dem_policy import CleanStats, cleaning_warning
from ..core.engine import SiteInputs
from ..core.errors import StormwaterError
from ..core.model import ROLE_NOUN, ROLES, FeatureLayer, Warning_
from ..core.raster import ElevationGrid
from ..core.terrain import plausibility_warning
from ..core.units import FT_PER_METRE, feet_per_unit
from ..services.dem_window import dem_window
from ..services.intake import (
    CONTEXT_FLOOR_FT,
    CONTEXT_ROLES,
    FAR_FT,
    MAX_LISTED,
    NOT_LAYERS,
    match_fields,
    outside_area_of_use,
    placement_problem,
    role_for_layer_name,
    role_reaches_ft,
)
from ..services.placement import plan_placement_problem
from ..services.working_crs import PLAN_ROLES, CrsTraits, NoSiteLocation, plausible_scale, site_centre, site_geometries, site_parcel_indices
from ..services.working_crs import choose_working_crs as policy
from .dem_source import BandMeta, open_dem_source

#: Field used as identity when a layer has no ``id`` field, by role.
ROLE_ID_FIELDS: dict[str, tuple[str, ...]] = {"parcels": ("PRINT_KEY", "SBL")}


class InputError(StormwaterError):
    """Unusable input; the message says what and where, and what to do."""


@dataclass
class LayerSource:
    """Where a role's features come from."""

    role: str
    path: Path
    layer: str | None = None
    #: ``package`` (a layer of the site package by its name) or ``--layer``.
    origin: str = "--layer"
    #: The path as typed when it is a GDAL virtual path (``/vsizip//abs/plan.zip/septic.shp``), which a Path would change.
    text: str = ""

    def describe(self) -> str:
        return f"{self.text or self.path}{':' + self.layer if self.layer else ''}"

    @property
    def gdal(self) -> str:
        """The path GDAL opens (:func:`gdal_path`)."""
        return self.text or gdal_path(self.path)


@dataclass
class LoadedSite:
    inputs: SiteInputs
    crs: Any  # pyproj.CRS
    sources: dict[str, str] = field(default_factory=dict)
    dem_path: str | None = None
    #: Why the working CRS was chosen (the words of :func:`choose_working_crs`).
    crs_why: str = ""


def parse_layer_option(text: str) -> LayerSource:
    """Parse ``ROLE=PATH[:LAYER]`` from ``--layer``."""
    if "=" not in text:
        raise InputError(f"--layer {text}: expected ROLE=PATH[:LAYER], e.g. wells=wells.shp")
    role, rest = text.split("=", 1)
    role = role.strip()
    if role not in ROLES:
        raise InputError(f"--layer {text}: unknown role '{role}'; roles are {', '.join(ROLES)}")
    path, layer = rest, None
    # PATH may itself hold a colon (a Windows drive); split on the last colon only if what is before it exists
    # (a GDAL virtual path, /vsizip/…, is taken as existing: GDAL says whether it does).
    if ":" in rest:
        head, tail = rest.rsplit(":", 1)
        if head and (Path(head).exists() or head.startswith("/vsi")) and not Path(rest).exists() and "/" not in tail and "\\" not in tail:
            path, layer = head, tail
    return LayerSource(role, Path(path), layer, origin="--layer", text=path if _is_virtual(path) else "")


#: File names inside a zip archive that hold vector data (looked for when the archive's root holds none).
ZIP_DATA_SUFFIXES: tuple[str, ...] = (".shp", ".gpkg", ".geojson", ".json", ".kml", ".gml", ".fgb", ".tab", ".sqlite")
#: Drivers GDAL has that fiona does not list as supported; read only.
EXTRA_READ_DRIVERS: tuple[str, ...] = ("KML", "LIBKML")


def _enable_read_drivers() -> None:
    """Let fiona open KML and KMZ (GDAL's KML and LIBKML drivers, read only)."""
    from fiona import drvsupport

    for name in EXTRA_READ_DRIVERS:
        drvsupport.supported_drivers.setdefault(name, "r")


def _is_virtual(path: Path | str) -> bool:
    return str(path).replace("\\", "/").startswith("/vsi")


def gdal_path(path: Path) -> str:
    """The path GDAL opens for ``path``: a ``.zip`` archive becomes ``/vsizip/`` (its data file or folder inside)."""
    text = str(path)
    if _is_virtual(text) or path.suffix.lower() != ".zip":
        return text
    import posixpath
    import zipfile

    base = "/vsizip/" + str(path.resolve()).replace("\\", "/")
    try:
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist() if not n.startswith("__MACOSX") and not n.endswith("/")]
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: cannot be read as a zip archive ({_short(exc)})") from exc
    data = [n for n in names if n.lower().endswith(ZIP_DATA_SUFFIXES)]
    if not data:
        raise InputError(f"{path}: the archive holds no vector file (.shp, .gpkg, .geojson, .kml …); unzip it and give the file with --layer")
    shp_dirs = {posixpath.dirname(n) for n in data if n.lower().endswith(".shp")}
    others = [n for n in data if not n.lower().endswith(".shp")]
    if not others and len(shp_dirs) == 1:
        folder = shp_dirs.pop()
        return base if folder == "" else f"{base}/{folder}"
    if len(others) == 1 and not shp_dirs:
        return f"{base}/{others[0]}"
    return base


def _exists(path: Path) -> bool:
    return _is_virtual(path) or path.exists()


def _list_layers(path: Path, text: str = "") -> list[str]:
    _enable_read_drivers()
    try:
        return list(fiona.listlayers(text or gdal_path(path)))
    except InputError:
        raise
    except Exception as exc:  # fiona raises several driver-specific errors
        raise InputError(
            f"{path}: cannot be read as a vector data source ({_short(exc)}); check it is a GeoPackage or another OGR format"
        ) from exc


def _one_layer(src: LayerSource) -> LayerSource:
    """``src`` with its layer named: a source of one layer is that layer; a source of several is refused unless ``:LAYER`` names one."""
    if src.layer is not None:
        return src
    if not _exists(src.path):
        raise InputError(f"{src.path}: file not found (for the '{src.role}' layer)")
    names = _list_layers(src.path, src.text)
    if len(names) > 1:
        shown = ", ".join(names[:12]) + (f", … ({len(names)} in all)" if len(names) > 12 else "")
        raise InputError(
            f"{src.path} holds {len(names)} layers ({shown}): which one is the '{src.role}' layer?\n"
            f"name it: --layer {src.role}={src.path}:LAYER"
        )
    return LayerSource(src.role, src.path, names[0] if names else None, src.origin, src.text)


def collect_sources(package: Path | None, layer_options: list[str]) -> tuple[dict[str, list[LayerSource]], list[Warning_]]:
    """Every source of every role: the package's layers by name, then ``--layer`` options (see :mod:`~stormwater_plugin.services.intake`).

    Several ``--layer`` options for one role are all read and merged; a ``--layer`` role replaces the
    package's layer(s) of that role (said in a warning). A package layer whose name begins with a role's
    (``devices_proposed``) is read into that role, and a layer matching no role is listed, both in warnings.
    """
    sources: dict[str, list[LayerSource]] = {}
    notes: list[Warning_] = []
    if package is not None:
        if not _exists(package):
            raise InputError(f"{package}: site package not found")
        names = _list_layers(package)
        unmatched: list[str] = []
        for name in names:
            role, exact = role_for_layer_name(name, ROLES)
            if role is None:
                if name.strip().lower() not in NOT_LAYERS:
                    unmatched.append(name)
                continue
            sources.setdefault(role, []).append(LayerSource(role, package, name, origin="package"))
            if not exact:
                notes.append(Warning_("layer_name_prefix", f"package layer '{name}' was read as part of the '{role}' role (its name begins with "
                                      f"'{role}'); rename it if it is not {ROLE_NOUN.get(role, role)} data", role))
        if unmatched:
            notes.append(Warning_("layers_not_read", f"package layer(s) {', '.join(repr(n) for n in unmatched)} match no role and were not read; "
                                  f"rename each to a role ({', '.join(ROLES)}) or give it with --layer ROLE=PATH:LAYER"))
    given: dict[str, list[LayerSource]] = {}
    for opt in layer_options:
        src = parse_layer_option(opt)
        given.setdefault(src.role, []).append(src)
    if package is not None:
        # issue 27: a template's empty layer is not drawn (absent), not "none", until the applicant states none
        from .template_reading import template_reading

        undrawn, drawn_notes = template_reading(package, {r: [s.layer for s in ss] for r, ss in sources.items() if r not in given},
                                                refuse_empty=not given)
        for role in undrawn:
            sources.pop(role, None)
        notes.extend(drawn_notes)
    for role, srcs in given.items():
        replaced = sources.get(role, [])
        if replaced:
            notes.append(Warning_("layer_replaced", f"--layer {role} replaces the package's layer(s) {', '.join(repr(s.layer) for s in replaced)} "
                                  f"for the '{role}' role (give the package layer with --layer too to check both)", role))
        sources[role] = [_one_layer(s) for s in srcs]
    return sources, notes


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:160]


@dataclass
class VectorFrame:
    """One layer as read: geometries, attribute records and CRS (a light stand-in for a GeoDataFrame).

    Reading through fiona directly keeps pandas and geopandas out of a plain
    check (a fifth of a second at start-up). ``unusable`` holds the rows whose
    geometry cannot be measured (a NaN coordinate, a point the working CRS
    cannot hold) with the reason, in words that follow the feature's name.
    """

    geoms: np.ndarray
    records: list[dict[str, Any]]
    columns: list[str]
    crs: Any  # pyproj.CRS or None
    unusable: dict[int, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.records)

    @property
    def total_bounds(self) -> np.ndarray:
        present = [g for g in self.geoms if g is not None and not g.is_empty]
        if not present:
            return np.full(4, np.nan)
        return shapely.total_bounds(np.array(present, dtype=object))

    def to_crs(self, crs: Any) -> VectorFrame:
        """The same features in ``crs`` (always x, y order; Z kept out, as the engine measures in plan)."""
        tf = Transformer.from_crs(self.crs, crs, always_xy=True)

        def move(xy: np.ndarray) -> np.ndarray:
            x, y = tf.transform(xy[:, 0], xy[:, 1])
            return np.column_stack([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])

        out = np.empty(len(self.geoms), dtype=object)
        for i, g in enumerate(self.geoms):
            out[i] = None if g is None else shapely.transform(g, move)
        moved = VectorFrame(out, self.records, self.columns, crs, dict(self.unusable))
        _mark_non_finite(moved, "cannot be placed in the working CRS (a coordinate the transformation cannot map)")
        return moved


def _mark_non_finite(frame: VectorFrame, why: str) -> None:
    """Move geometries holding a non-finite coordinate out of ``frame.geoms`` into ``frame.unusable`` with ``why``."""
    present = [i for i, g in enumerate(frame.geoms) if g is not None]
    if not present:
        return
    arr = np.array([frame.geoms[i] for i in present], dtype=object)
    coords, index = shapely.get_coordinates(arr, return_index=True)
    if coords.size == 0 or bool(np.isfinite(coords).all()):
        return
    bad = np.unique(index[~np.isfinite(coords).all(axis=1)])
    for k in bad:
        i = present[int(k)]
        frame.geoms[i] = None
        frame.unusable.setdefault(i, why)


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
            count = len(coll)
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
            where = _no_geometry_where(src, str(coll.driver)) if bbox is not None else None
            feats: Any = None if where is not None else coll  # no way to find the features without geometry: read them all
            if where is not None:
                try:
                    # The features meeting the box, and those without geometry (no box finds them; each makes its rules
                    # undetermined). One OGR layer: each filter is set only once the previous one is read through.
                    feats = list(_unique_features(lambda: coll.filter(bbox=bbox), lambda: coll.filter(where=where)))
                except Exception:  # noqa: BLE001 - a driver refusing the filter: the layer is read whole, afresh
                    feats = stack.enter_context(_open(src, **kwargs))
            for feat in feats:
                geoms.append(_feature_geometry(feat["geometry"], shape))
                records.append({k: v for k, v in dict(feat["properties"]).items() if k not in skipped})
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
    _mark_non_finite(frame, "has a coordinate that is not a number (NaN or infinite)")
    return frame


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
            records = [dict(f["properties"]) for f in coll]
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


@functools.lru_cache(maxsize=32)
def crs_from_wkt(wkt: str) -> Any:
    """A pyproj CRS from WKT, parsed once per distinct text (a site package's layers share one; each parse costs ~5 ms)."""
    return CRS.from_wkt(wkt)


def _identity(frame: VectorFrame, role: str, fids: list[str], extra: tuple[str, ...] = (), first: tuple[str, ...] = ()) -> list[str]:
    cols = {str(c).lower(): c for c in frame.columns}
    def blank(v: Any) -> bool:
        return v is None or (isinstance(v, float) and math.isnan(v)) or str(v).strip() == ""

    for name in first + ("id",) + ROLE_ID_FIELDS.get(role, ()) + extra:
        col = cols.get(name.lower())
        if col is not None and name in first and all(blank(rec.get(col)) for rec in frame.records):
            continue  # a preferred field left empty by the writer (a KMZ's <name>): the next one names the features
        if col is not None:
            out = []
            for rec, fid in zip(frame.records, fids):
                v = rec.get(col)
                if v is None or (isinstance(v, float) and math.isnan(v)) or str(v).strip() == "":
                    out.append(fid)
                elif isinstance(v, float) and v.is_integer():
                    out.append(str(int(v)))
                else:
                    out.append(str(v))
            return out
    return fids


def _clean_attr(v: Any) -> Any:
    if isinstance(v, (np.generic,)):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


_CONFORMAL = ("transverse mercator", "conformal", "stereographic", "oblique mercator", "mercator (variant")


def is_conformal(crs: Any) -> bool:
    """True for projections whose scale does not depend on direction (TM, LCC, stereographic…).

    An equal-area projection such as CONUS Albers (EPSG:6350) stretches
    distances by up to a few tenths of a percent depending on direction, so
    it is never used to measure setbacks.
    """
    op = getattr(crs, "coordinate_operation", None)
    name = str(getattr(op, "method_name", "") or "").lower()
    return any(k in name for k in _CONFORMAL) and "pseudo" not in name


_LONLAT: dict[str, Any] = {}


def _to_lonlat(crs: Any) -> Any:
    """A cached transformer from ``crs`` to WGS 84 longitude/latitude (building one costs milliseconds)."""
    key = crs.to_wkt()
    if key not in _LONLAT:
        _LONLAT[key] = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    return _LONLAT[key]


def site_centre_lonlat(frames: list[Any]) -> tuple[float, float] | None:
    """Longitude and latitude (WGS 84) of the mean of the layers' bounding-box centres."""
    lons: list[float] = []
    lats: list[float] = []
    for fr in frames:
        if len(fr) == 0 or fr.crs is None:
            continue
        b = fr.total_bounds
        if not np.all(np.isfinite(b)):
            continue
        lon, lat = _to_lonlat(fr.crs).transform((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
        if math.isfinite(lon) and math.isfinite(lat):
            lons.append(lon)
            lats.append(lat)
    if not lons:
        return None
    return float(np.mean(lons)), float(np.mean(lats))


def _site_lonlat(frames: dict[str, Any], site_parcel_id: str | None) -> tuple[float, float] | None:
    """Longitude and latitude of the centre of the site's features (:func:`~stormwater_plugin.services.working_crs.site_geometries`)."""

    # The site parcel(s) in their own CRS: their lon/lat bounds.
    boxes: list[np.ndarray] = []
    fr = frames.get("parcels")
    if fr is not None and fr.crs is not None and len(fr):
        layer = FeatureLayer.from_sequences("parcels", list(fr.geoms), _identity(fr, "parcels", [str(i + 1) for i in range(len(fr))]), fr.records)
        picked = [fr.geoms[i] for i in site_parcel_indices(layer, site_parcel_id) if fr.geoms[i] is not None and not fr.geoms[i].is_empty]
        if picked:
            boxes.append(_lonlat_bounds(fr.crs, shapely.total_bounds(np.array(picked, dtype=object))))
    if not boxes:  # no site parcel: the plan, else everything
        for roles in (PLAN_ROLES, tuple(frames)):
            boxes = [_lonlat_bounds(frames[r].crs, frames[r].total_bounds) for r in roles if r in frames and frames[r].crs is not None and len(frames[r])]
            boxes = [b for b in boxes if np.all(np.isfinite(b))]
            if boxes:
                break
    boxes = [b for b in boxes if np.all(np.isfinite(b))]
    if not boxes:
        return None
    a = np.array(boxes)
    return float((a[:, 0].min() + a[:, 2].max()) / 2.0), float((a[:, 1].min() + a[:, 3].max()) / 2.0)


def _lonlat_bounds(crs: Any, b: np.ndarray) -> np.ndarray:
    """WGS 84 bounds of a box given in ``crs`` (corners and edge midpoints transformed)."""
    if not np.all(np.isfinite(b)):
        return np.full(4, np.nan)
    xs = np.array([b[0], b[2], b[0], b[2], (b[0] + b[2]) / 2, (b[0] + b[2]) / 2, b[0], b[2]])
    ys = np.array([b[1], b[1], b[3], b[3], b[1], b[3], (b[1] + b[3]) / 2, (b[1] + b[3]) / 2])
    lon, lat = _to_lonlat(crs).transform(xs, ys)
    lon, lat = np.asarray(lon, dtype=float), np.asarray(lat, dtype=float)
    if not (np.all(np.isfinite(lon)) and np.all(np.isfinite(lat))):
        return np.full(4, np.nan)
    return np.array([lon.min(), lat.min(), lon.max(), lat.max()])


def choose_working_crs(dem_crs: Any, frames: list[Any] | dict[str, Any], site_parcel_id: str | None = None) -> tuple[Any, str]:
    """The working CRS by the one policy (:func:`~stormwater_plugin.services.working_crs.choose_working_crs`).

    The DEM's CRS when projected and conformal, else the UTM zone of the
    site's centre. ``frames`` by role locate the site (its parcel, else the
    plan, else everything); a plain list is located by the centre of all
    its data.
    """

    traits = None if dem_crs is None else CrsTraits(bool(dem_crs.is_projected), is_conformal(dem_crs))
    needs_site = traits is None or not (traits.projected and traits.conformal)
    centre = None
    if needs_site:
        centre = _site_lonlat(frames, site_parcel_id) if isinstance(frames, dict) else site_centre_lonlat(frames)
    try:
        choice = policy(traits, centre)
    except NoSiteLocation as exc:
        raise InputError(str(exc)) from exc
    if choice.utm_epsg is None:
        return dem_crs, choice.why
    return CRS.from_epsg(choice.utm_epsg), choice.why


def scale_at(crs: Any, lonlat: tuple[float, float] | None) -> float:
    """Point scale factor of a projected CRS at a longitude/latitude (grid length / ellipsoid length).

    Dividing grid distances by it gives ellipsoidal ("ground at sea level")
    distances, so UTM, State Plane and any other projection report the same
    feet. Non-conformal projections use the mean of the meridional and
    parallel scales. 1 when it cannot be computed.
    """

    if lonlat is None:
        return 1.0
    try:
        f = Proj(crs).get_factors(*lonlat)
        k = (float(f.meridional_scale) + float(f.parallel_scale)) / 2.0
    except Exception:
        return 1.0
    return plausible_scale(k)


def ground_scale(crs: Any, frames: list[Any]) -> float:
    """Point scale factor at the centre of all the data of ``frames`` (see :func:`site_scale` for a site)."""
    return scale_at(crs, site_centre_lonlat(frames))


def site_scale(crs: Any, layers: dict[str, FeatureLayer], site_parcel_id: str | None = None) -> float:
    """Point scale factor at the site's centre, from its layers in the working CRS ``crs``.

    The site is its parcel (``site_parcel_id``, else ``is_site``, else the
    only parcel), else the plan, else everything
    (:func:`~stormwater_plugin.services.working_crs.site_geometries`). The
    single-site reader and the batch (per site parcel) both call it, so a
    site gets the same feet whichever command checks it: over a site the
    factor varies by well under a part in a million, so a pair within a few
    thousandths of a foot of a limit is decided as on the ellipsoid.
    """
    centre = site_centre(site_geometries(layers, site_parcel_id))
    if centre is None:
        return 1.0
    lon, lat = _to_lonlat(crs).transform(*centre)
    if not (math.isfinite(lon) and math.isfinite(lat)):
        return 1.0
    return scale_at(crs, (float(lon), float(lat)))


def site_units(loaded: LoadedSite) -> dict[str, tuple[float, str]]:
    """Each site parcel's (unit_to_ft, crs_name), the scale factor at that site: what a single-site check of it uses.

    For the batch: the sites are the parcels with ``is_site`` set, by id.
    """
    parcels = loaded.inputs.layers.get("parcels")
    if parcels is None:
        return {}
    ft_per_unit = feet_per_unit(float(loaded.crs.axis_info[0].unit_conversion_factor))
    why = loaded.crs_why
    out: dict[str, tuple[float, str]] = {}
    for i in site_parcel_indices(parcels, None):
        sid = parcels.ids[i]
        if sid not in out:
            k = site_scale(loaded.crs, loaded.inputs.layers, sid)
            out[sid] = (ft_per_unit / k, crs_description(loaded.crs, why, k))
    return out


def crs_description(crs: Any, why: str, scale: float) -> str:
    """The working CRS in words for findings.json (per site: the scale factor is the site's)."""
    return f"{crs.name} ({crs.to_string()}), {why}; distances on the ellipsoid (grid scale factor {scale:.6f})"


#: Context layers of up to this many features are read whole (two filtered queries cost more than reading them).
FILTER_MIN_FEATURES: int = 1000
#: Roles that are context of a site rather than its plan: read through a spatial filter of the site plus the pack's reach.


@dataclass
class _Piece:
    """One source of a role as read: its features in the working CRS, or why they cannot be measured."""

    probe: _Probe
    frame: VectorFrame | None = None
    misplaced: str | None = None
    filtered: bool = False


@dataclass
class VectorLayers:
    """Every role's features in the working CRS, with the CRS, why it was chosen and the warnings of reading."""

    layers: dict[str, FeatureLayer]
    crs: Any
    why: str
    warnings: list[Warning_]


def _role_reaches(pack: Any, cell_ft: float) -> dict[str, float] | None:
    """:func:`~stormwater_plugin.services.intake.role_reaches_ft` for every role; ``None`` without a pack."""
    return None if pack is None else role_reaches_ft(pack, cell_ft)


def _pack_fields(pack: Any) -> set[str]:
    """Field names the pack's rules read (``params.field``)."""
    if pack is None:
        return set()
    return {str(r.params["field"]) for r in pack.rules if isinstance(r.params.get("field"), str)}


def _transform_box(b: Any, src_crs: Any, dst_crs: Any) -> tuple[float, float, float, float] | None:
    """A box in ``src_crs`` as a box in ``dst_crs`` (its edges sampled); ``None`` when it cannot be transformed."""
    if b is None or not all(math.isfinite(float(v)) for v in b):
        return None
    if src_crs is dst_crs or src_crs.equals(dst_crs):
        return float(b[0]), float(b[1]), float(b[2]), float(b[3])
    t = np.linspace(0.0, 1.0, 11)
    xs = np.concatenate([b[0] + (b[2] - b[0]) * t, np.full(11, b[2]), b[0] + (b[2] - b[0]) * t, np.full(11, b[0])])
    ys = np.concatenate([np.full(11, b[1]), b[1] + (b[3] - b[1]) * t, np.full(11, b[3]), b[1] + (b[3] - b[1]) * t])
    try:
        x, y = _transformer(src_crs.to_wkt(), dst_crs.to_wkt()).transform(xs, ys)
    except Exception:  # noqa: BLE001 - pyproj refuses some coordinates outright
        return None
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return None
    return float(x.min()), float(y.min()), float(x.max()), float(y.max())


@functools.lru_cache(maxsize=64)
def _transformer(src_wkt: str, dst_wkt: str) -> Any:
    """A transformer between two CRSs given as WKT, built once per pair (each costs milliseconds)."""
    return Transformer.from_crs(crs_from_wkt(src_wkt), crs_from_wkt(dst_wkt), always_xy=True)


_WGS84 = None


def _wgs84() -> Any:
    global _WGS84
    if _WGS84 is None:
        _WGS84 = CRS.from_epsg(4326)
    return _WGS84


def _outside_crs(probe: _Probe) -> bool:
    """Whether the layer's declared extent cannot lie where its CRS says (see :func:`~stormwater_plugin.services.intake.outside_area_of_use`)."""
    if probe.bounds is None or probe.count == 0:
        return False
    raw = probe.bounds if probe.crs.is_geographic else None
    lonlat = _transform_box(probe.bounds, probe.crs, _wgs84())
    aou = probe.crs.area_of_use
    return outside_area_of_use(lonlat, aou.bounds if aou is not None else None, raw)


def _distance_ft(anchor: list[Any], box: tuple[float, float, float, float] | None, ft_per_unit: float) -> float | None:
    """Distance from the site's features to a box, feet; ``None`` when either is unknown."""
    if not anchor or box is None:
        return None
    x0, y0, x1, y1 = box
    # A point or a line when the layer is one point or lies on one axis-parallel line (a zero-area box measures NaN).
    if x1 > x0 and y1 > y0:
        target = shapely.box(x0, y0, x1, y1)
    elif x1 > x0 or y1 > y0:
        target = shapely.LineString([(x0, y0), (x1, y1)])
    else:
        target = shapely.Point(x0, y0)
    return float(np.min(shapely.distance(np.array(anchor, dtype=object), target))) * ft_per_unit


def read_vectors(
    sources: dict[str, list[LayerSource]], dem_crs: Any, pack: Any = None, site_parcel_id: str | None = None, cell_ft: float = 0.0,
    dem_extent: tuple[float, float, float, float] | None = None,
) -> VectorLayers:
    """Read every source into one layer per role, in the working CRS (issue 22).

    The plan (parcels, building sites, devices, clearing, disturbance, impervious) is read whole; with a
    pack, the context roles (:data:`CONTEXT_ROLES`) are then read through a spatial filter: the box of the
    site and the plan grown by the pack's reach (a role a rule of unlimited reach reads is read whole),
    so a county layer costs what its features near the site cost; a role a flow trace of unlimited length
    reads is read over ``dem_extent`` (the DEM's bounds in ``dem_crs``: the trace cannot leave the raster)
    and the site, and whole without a DEM. Binary fields are never read.

    A source whose coordinates do not fit its CRS, or whose whole extent lies farther from the site than
    the rules reach, is misplaced: its features are listed as without usable geometry, with the reason,
    so every rule reading them is undetermined for them (see :mod:`~stormwater_plugin.services.intake`).
    """
    with fiona.Env(OGR_ARC_STEPSIZE=str(ARC_STEP_DEG)), contextlib.ExitStack() as stack:  # one GDAL environment; layers open once
        return _read_vectors(stack, sources, dem_crs, pack, site_parcel_id, cell_ft, dem_extent)


def _read_vectors(
    stack: contextlib.ExitStack, sources: dict[str, list[LayerSource]], dem_crs: Any, pack: Any, site_parcel_id: str | None, cell_ft: float,
    dem_extent: tuple[float, float, float, float] | None,
) -> VectorLayers:
    warnings: list[Warning_] = []
    probes = {role: [_probe(s, stack) for s in srcs] for role, srcs in sources.items()}
    reaches = _role_reaches(pack, cell_ft)
    plan_present = any(r not in CONTEXT_ROLES for r in probes)
    deferred = reaches is not None and plan_present
    pieces: dict[str, list[_Piece]] = {}
    for role, ps in probes.items():
        for p in ps:
            piece = _Piece(p)
            if _outside_crs(p):
                piece.misplaced = placement_problem(p.src.describe(), str(p.crs.name), True, None, 0.0)
                if p.count <= MAX_LISTED:  # read, so its features are named one by one
                    piece.frame = _read_frame(p.src, skipped=p.skipped, opened=p.coll)
            elif not (deferred and role in CONTEXT_ROLES):
                piece.frame = _read_frame(p.src, skipped=p.skipped, opened=p.coll)
            pieces.setdefault(role, []).append(piece)

    for_crs = {role: next(pc.frame for pc in pcs if pc.frame is not None and pc.misplaced is None) for role, pcs in pieces.items()
               if any(pc.frame is not None and pc.misplaced is None for pc in pcs)}
    crs, why = choose_working_crs(dem_crs, for_crs, site_parcel_id)
    ft_unit = feet_per_unit(float(crs.axis_info[0].unit_conversion_factor))
    moved: dict[str, list[str]] = {}

    def to_working(role: str, pc: _Piece) -> None:
        fr = pc.frame
        if fr is not None and fr.crs is not crs and not fr.crs.equals(crs):
            moved.setdefault(fr.crs.to_string(), []).append(role)
            pc.frame = fr.to_crs(crs)

    for role, pcs in pieces.items():
        for pc in pcs:
            to_working(role, pc)

    def usable(role_pieces: dict[str, list[_Piece]]) -> dict[str, FeatureLayer]:
        out: dict[str, FeatureLayer] = {}
        for role, pcs in role_pieces.items():
            gs = [g for pc in pcs if pc.frame is not None and pc.misplaced is None for g in pc.frame.geoms if g is not None]
            recs = [pc.frame.records[i] for pc in pcs if pc.frame is not None and pc.misplaced is None
                    for i, g in enumerate(pc.frame.geoms) if g is not None]
            if gs:
                fr = VectorFrame(np.empty(len(recs), dtype=object), recs, sorted({k for r in recs for k in r}), None)
                out[role] = FeatureLayer.from_sequences(role, gs, _identity(fr, role, [str(i + 1) for i in range(len(recs))]), recs)
        return out

    # issue 27: a plan none of whose features lands on its parcel is refused, never checked (services.placement)
    off = plan_placement_problem(usable({r: v for r, v in pieces.items() if r not in CONTEXT_ROLES}), ft_unit, site_parcel_id)
    if off is not None:
        raise InputError(off)
    if reaches is not None:
        # A plan layer far from the rest of the plan (each judged against the others) is misplaced.
        for role, pcs in pieces.items():
            if role in CONTEXT_ROLES:
                continue
            others = usable({r: v for r, v in pieces.items() if r != role and r not in CONTEXT_ROLES})
            anchor = site_geometries(others, site_parcel_id)
            for pc in pcs:
                if pc.frame is None or pc.misplaced is not None:
                    continue
                b = pc.frame.total_bounds
                d = _distance_ft(anchor, tuple(b) if np.all(np.isfinite(b)) else None, ft_unit)
                pc.misplaced = placement_problem(pc.probe.src.describe(), str(pc.probe.crs.name), False, d, min(reaches[role], FAR_FT))
    if deferred:
        assert reaches is not None
        plan_layers = usable({r: v for r, v in pieces.items() if r not in CONTEXT_ROLES})
        anchor = site_geometries(plan_layers, site_parcel_id)
        near = anchor + [g for r, lay in plan_layers.items() if r != "parcels" for g in lay.geoms]
        box = shapely.total_bounds(np.array(near, dtype=object)) if near else None
        for role, pcs in pieces.items():
            if role not in CONTEXT_ROLES:
                continue
            reach_u = reaches[role] / ft_unit
            for pc in pcs:
                if pc.misplaced is not None:
                    continue
                p = pc.probe
                extent = _transform_box(p.bounds, p.crs, crs) if p.count else None
                pc.misplaced = placement_problem(p.src.describe(), str(p.crs.name), False, _distance_ft(anchor, extent, ft_unit),
                                                 min(reaches[role], FAR_FT)) if p.count else None
                if pc.misplaced is not None:
                    if p.count <= MAX_LISTED:  # read, so its features are named one by one
                        pc.frame = _read_frame(p.src, skipped=p.skipped, opened=p.coll)
                        to_working(role, pc)
                    continue
                window = None
                if box is not None and p.count > FILTER_MIN_FEATURES:
                    if math.isfinite(reach_u):
                        grown = (box[0] - reach_u, box[1] - reach_u, box[2] + reach_u, box[3] + reach_u)
                        window = _transform_box(grown, crs, p.crs)
                    elif dem_extent is not None:
                        # A trace of unlimited length runs over the DEM only: no target beyond the raster's edge can be reached.
                        dem_box = _transform_box(dem_extent, dem_crs, crs)
                        finite = max(CONTEXT_FLOOR_FT, *(v for v in reaches.values() if math.isfinite(v))) / ft_unit
                        if dem_box is not None:
                            grown = (min(dem_box[0], box[0] - finite), min(dem_box[1], box[1] - finite),
                                     max(dem_box[2], box[2] + finite), max(dem_box[3], box[3] + finite))
                            window = _transform_box(grown, crs, p.crs)
                pc.frame = _read_frame(p.src, bbox=window, skipped=p.skipped, opened=p.coll)
                pc.filtered = window is not None
                to_working(role, pc)

    extra_fields = _pack_fields(pack)
    layers: dict[str, FeatureLayer] = {}
    for role in [r for r in ROLES if r in pieces]:
        layers[role] = _merge_role(role, pieces[role], extra_fields, warnings)
    for src_crs, roles in moved.items():
        warnings.append(Warning_("reprojected", f"{', '.join(dict.fromkeys(roles))} reprojected from {src_crs} to the working CRS {crs.to_string()}"))
    return VectorLayers(layers, crs, why, warnings)


def _merge_role(role: str, pcs: list[_Piece], extra_fields: set[str], warnings: list[Warning_]) -> FeatureLayer:
    """One role's sources as one layer: ids kept, unusable and misplaced features listed as without usable geometry."""
    geoms: list[Any] = []
    ids: list[str] = []
    attrs: list[dict[str, Any]] = []
    no_geometry: dict[str, str] = {}
    seen: dict[str, int] = {}
    across: dict[str, set[str]] = {}
    for k, pc in enumerate(pcs):
        p = pc.probe
        where = p.src.describe()
        if pc.frame is None:  # misplaced before reading: its ids only
            assert pc.misplaced is not None
            if p.count > MAX_LISTED:
                fids = [f"(all {p.count:,} features of {p.src.layer or p.src.path.name})"]
            else:
                with fiona.Env():
                    fids = _read_ids(p.src, p.columns, role, p.skipped)
            for fid in fids:
                no_geometry.setdefault(fid, pc.misplaced)
            warnings.append(Warning_("layer_misplaced", f"{p.count:,} feature(s) of the '{role}' layer {pc.misplaced}: every rule reading "
                                     "it is undetermined for them", role, tuple(fids)))
            continue
        fr = pc.frame
        renames, near = match_fields(fr.columns, role, extra_fields)
        if renames:
            fr.records = [{renames.get(c, c): v for c, v in r.items()} for r in fr.records]
            fr.columns = [renames.get(c, c) for c in fr.columns]
            warnings.append(Warning_("fields_matched", f"{where}: read {', '.join(f'{a!r} as {b!r}' for a, b in renames.items())} "
                                     "(case, or a shapefile's 10-character field names)", role))
        for col, wanted in near:
            warnings.append(Warning_("field_near_match", f"{where}: no field '{wanted}', but a field '{col}' resembles it and was not read as it; "
                                     f"rename '{col}' to '{wanted}' if it is that field (findings that need {wanted} are undetermined)", role))
        fids = [str(i + 1) if k == 0 else f"{p.src.layer or p.src.path.stem}:{i + 1}" for i in range(len(fr))]
        # KML: the placemark's <name> is its label; GDAL's LIBKML driver (GDAL 3.10 reads .kml with it too) exposes the
        # placemark's XML id as an "id" field, which writers fill with "layer.1", "layer.2"
        kml_first = ("name",) if p.driver in EXTRA_READ_DRIVERS else ()
        piece_ids = _identity(fr, role, fids, first=kml_first)
        if pc.filtered and len(fr) < p.count:
            warnings.append(Warning_("context_filtered", f"{where}: {len(fr):,} of its {p.count:,} features lie within reach of the site and "
                                     "were read; the others lie beyond every rule's reach", role))
        bad: dict[str, list[str]] = {}
        for i, fid in enumerate(piece_ids):
            if fid in seen and seen[fid] != k:
                across.setdefault(fid, set()).update({pcs[seen[fid]].probe.src.describe(), where})
            seen.setdefault(fid, k)
            # a feature with no geometry at all keeps that reason (the cleaner reports it), wherever its layer lies
            why = pc.misplaced if pc.misplaced is not None and (fr.geoms[i] is not None or i in fr.unusable) else fr.unusable.get(i)
            if why is not None:
                no_geometry.setdefault(fid, why)
                bad.setdefault(why, []).append(fid)
                continue
            geoms.append(fr.geoms[i])
            ids.append(fid)
            attrs.append({c: _clean_attr(v) for c, v in fr.records[i].items()})
        for why, fids_bad in bad.items():
            code = "layer_misplaced" if why == pc.misplaced else "geometry_unusable"
            origin = "" if why == pc.misplaced else f" from {where}"
            warnings.append(Warning_(code, f"{len(fids_bad)} feature(s) of the '{role}' layer{origin} {why}: every rule reading it is "
                                     "undetermined for them", role, tuple(fids_bad[:MAX_LISTED])))
    if len(set(ids)) != len(ids):
        warnings.append(Warning_("duplicate_ids", "some features share an id; findings name them by that id", role))
    if across:
        shown = ", ".join(sorted(across)[:10])
        warnings.append(Warning_("duplicate_ids_across_sources", f"id(s) {shown} appear in more than one source of the '{role}' role "
                                 f"({' and '.join(sorted(set().union(*across.values())))}): each is checked; make sure one feature is not given twice",
                                 role, tuple(sorted(across))))
    return FeatureLayer.from_sequences(role, geoms, ids, attrs, no_geometry=no_geometry)


def _dem_extent(path: Path) -> tuple[float, float, float, float]:
    """The DEM's bounds in its own CRS (left, bottom, right, top)."""
    import rasterio  # lazy: 0.34 s, only when a DEM is given

    with rasterio.open(path) as src:
        b = src.bounds
    return float(b.left), float(b.bottom), float(b.right), float(b.top)


def read_site(
    package: Path | None,
    layer_options: list[str],
    dem_path: Path | None,
    dem_z_units: str | None = None,
    site_parcel_id: str | None = None,
    class_override: str | None = None,
    pack: Any = None,
) -> LoadedSite:
    """Read the site package, ``--layer`` overrides and the DEM into :class:`SiteInputs`.

    With ``pack`` the DEM is read over the window its rules need
    (:func:`~stormwater_plugin.services.dem_window.dem_window`: each DEM
    rule's features grown by its reach, and the site parcel grown by the
    envelope's reach); without it, over every feature but the parcels plus
    150 ft.
    """
    sources, warnings = collect_sources(package, layer_options)
    dem_crs = None
    if dem_path is not None:
        dem_crs = _dem_crs(dem_path)
    vectors = read_vectors(sources, dem_crs, pack, site_parcel_id, _dem_cell_ft(dem_path, dem_crs) if dem_path is not None and pack is not None else 0.0,
                           _dem_extent(dem_path) if dem_path is not None and pack is not None else None)
    crs, why, layers = vectors.crs, vectors.why, vectors.layers
    warnings.extend(vectors.warnings)
    metres_per_unit = float(crs.axis_info[0].unit_conversion_factor)

    # Grid distance / scale factor at the site = distance on the ellipsoid: the same feet in any projection.
    scale = site_scale(crs, layers, site_parcel_id)
    unit_to_ft = feet_per_unit(metres_per_unit) / scale
    dem = None
    dem_source = None
    if dem_path is not None:
        dem, dem_warnings = read_dem(dem_path, crs, layers, dem_z_units, area=_window(dem_path, dem_crs, layers, pack, unit_to_ft, site_parcel_id))
        warnings.extend(dem_warnings)
        # The same file in windows, with the same unit decision and transforms: the flow trace reads further as it proceeds.

        dem_source = open_dem_source(dem_path, dem, crs, dem_crs)
    inputs = SiteInputs(
        layers=layers,
        dem=dem,
        unit_to_ft=unit_to_ft,
        crs_name=crs_description(crs, why, scale),
        site_parcel_id=site_parcel_id,
        class_override=class_override,
        warnings=warnings,
        dem_source=dem_source,
    )
    return LoadedSite(inputs, crs, {r: " + ".join(x.describe() for x in srcs) for r, srcs in sources.items()}, str(dem_path) if dem_path else None, why)


class _Identity:
    """Stands in for a pyproj Transformer between equal CRSs."""

    @staticmethod
    def transform(x: Any, y: Any) -> tuple[Any, Any]:
        return x, y


_IDENTITY = _Identity()


def dem_crs(path: Path) -> Any:
    """The DEM's CRS (pyproj); :class:`InputError` when the file is missing, unreadable or has none."""
    return _dem_crs(path)


def _dem_crs(path: Path) -> Any:
    import rasterio  # lazy: 0.34 s, only when a DEM is given

    if not path.exists():
        raise InputError(f"{path}: DEM not found")
    try:
        with rasterio.open(path) as src:
            if src.crs is None:
                raise InputError(f"{path}: the DEM has no CRS; assign one (gdal_edit.py -a_srs EPSG:xxxx) and run again")
            return crs_from_wkt(src.crs.to_wkt())
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{path}: cannot be read as a raster ({_short(exc)})") from exc


def _window(path: Path, dem_crs: Any, layers: dict[str, FeatureLayer], pack: Any, unit_to_ft: float, site_parcel_id: str | None) -> tuple[float, float, float, float] | None:
    """Working-CRS bounds of the DEM the pack's rules need (``None``: the legacy window around the features)."""
    if pack is None:
        return None

    return dem_window(layers, pack, unit_to_ft=unit_to_ft, cell_ft=_dem_cell_ft(path, dem_crs), site_parcel_id=site_parcel_id).bounds


def _dem_cell_ft(path: Path, dem_crs: Any) -> float:
    """The DEM's larger pixel side, feet (degrees taken at 364,000 ft, an upper bound for New York's latitudes)."""
    import rasterio  # lazy: 0.34 s, only when a DEM is given

    with rasterio.open(path) as src:
        res = max(abs(float(src.res[0])), abs(float(src.res[1])))
    if dem_crs.is_projected:
        return res * feet_per_unit(float(dem_crs.axis_info[0].unit_conversion_factor))
    return res * 364_000.0


def read_dem(
    path: Path, working_crs: Any, layers: dict[str, FeatureLayer], z_units: str | None, area: tuple[float, float, float, float] | None = None
) -> tuple[ElevationGrid, list[Warning_]]:
    """Read the DEM in its own CRS over ``area`` (working-CRS bounds), else over the features plus a 150 ft margin."""
    import rasterio  # lazy: 0.34 s, only when a DEM is given
    from rasterio.windows import Window, from_bounds  # lazy: as above

    warnings: list[Warning_] = []
    dem_crs = _dem_crs(path)
    same_crs = dem_crs is working_crs or CRS.from_user_input(dem_crs).equals(working_crs)
    # no transformation when the DEM is in the working CRS (each transformer costs ~7 ms to build)
    to_raster_tf = _IDENTITY if same_crs else Transformer.from_crs(working_crs, dem_crs, always_xy=True)
    margin = 150.0 / feet_per_unit(float(working_crs.axis_info[0].unit_conversion_factor))
    bounds = _layers_bounds(layers)
    if area is not None:
        bounds, margin = area, 0.0
        if not all(math.isfinite(v) for v in area):  # a rule with unlimited reach: the whole raster
            bounds = None
    stats = CleanStats()
    with rasterio.open(path) as src:
        try:
            meta = BandMeta(src, str(path))
            zu = meta.z_unit(z_units, dem_crs)
        except ValueError as exc:  # NotAnElevationBand, or an unknown declared unit
            raise InputError(str(exc)) from exc
        if bounds is None:
            window = Window(0, 0, src.width, src.height)
        else:
            x0, y0, x1, y1 = bounds
            xs = np.array([x0 - margin, x1 + margin, x0 - margin, x1 + margin, (x0 + x1) / 2, (x0 + x1) / 2, x0 - margin, x1 + margin])
            ys = np.array([y0 - margin, y0 - margin, y1 + margin, y1 + margin, y0 - margin, y1 + margin, (y0 + y1) / 2, (y0 + y1) / 2])
            rx, ry = to_raster_tf.transform(xs, ys)
            window = from_bounds(float(np.min(rx)), float(np.min(ry)), float(np.max(rx)), float(np.max(ry)), transform=src.transform)
            window = window.round_offsets(op="floor").round_lengths(op="ceil")
            col0 = max(0, int(window.col_off) - 2)
            row0 = max(0, int(window.row_off) - 2)
            col1 = min(src.width, int(window.col_off + window.width) + 2)
            row1 = min(src.height, int(window.row_off + window.height) + 2)
            if col1 <= col0 or row1 <= row0:
                warnings.append(
                    Warning_(
                        "dem_no_cover", f"the DEM {path.name} does not cover the site: every elevation-dependent check is undetermined"
                    )
                )
                col0, row0, col1, row1 = 0, 0, min(2, src.width), min(2, src.height)
            window = Window(col0, row0, col1 - col0, row1 - row0)
        try:
            values = meta.read(src, zu.z_to_ft, stats, window=window)
        except Exception as exc:
            raise InputError(f"{path}: the DEM cannot be read ({_short(exc)})") from exc
        transform = src.window_transform(window)
    gt = (transform.c, transform.a, transform.b, transform.f, transform.d, transform.e)

    # one policy for every DEM read (core/dem_policy.py): declared, else the band's unit, else assumed
    z_declared, note, z_to_ft = zu.declared, zu.note, zu.z_to_ft
    if meta.scale != 1.0 or meta.offset != 0.0:
        note += f"; band scale {meta.scale:g} and offset {meta.offset:g} applied"
    if not z_declared:
        warnings.append(Warning_("dem_z_assumed", note))
    cleaned = cleaning_warning(path.name, stats)
    if cleaned:
        warnings.append(Warning_("dem_fill_values", cleaned))

    def to_raster(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rx, ry = to_raster_tf.transform(x, y)
        return np.asarray(rx, dtype=np.float64), np.asarray(ry, dtype=np.float64)

    from_raster_tf = _IDENTITY if same_crs else Transformer.from_crs(dem_crs, working_crs, always_xy=True)

    def from_raster(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        wx, wy = from_raster_tf.transform(x, y)
        return np.asarray(wx, dtype=np.float64), np.asarray(wy, dtype=np.float64)

    cell = _cell_size_ft(gt, dem_crs, working_crs, bounds)
    grid = ElevationGrid(
        values=values, geotransform=gt, z_to_ft=z_to_ft, to_raster=to_raster, z_unit_note=note, cell_size_ft=cell, name=path.name, from_raster=from_raster,
        z_unit_declared=z_declared,
    )
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        warnings.append(
            Warning_("dem_all_nodata", f"the DEM {path.name} has no data over the site: every elevation-dependent check is undetermined")
        )
    else:
        warnings.extend(_plausibility(grid, finite * z_to_ft))
    if not same_crs:
        warnings.append(
            Warning_(
                "dem_sampled_in_own_crs",
                f"the DEM stays in its own CRS ({dem_crs.to_string()}); points are projected into it and sampled bilinearly, never resampled",
            )
        )
    return grid, warnings


def _plausibility(grid: ElevationGrid, z_ft: np.ndarray) -> list[Warning_]:
    msg = plausibility_warning(grid)
    if msg:
        return [Warning_("dem_z_implausible", msg)]
    lo, hi = float(np.min(z_ft)), float(np.max(z_ft))
    if hi < 150 or lo > 6000:
        return [
            Warning_(
                "dem_z_implausible",
                f"DEM elevations span {lo:.0f}–{hi:.0f} ft, unlikely for the Lake George region (lake surface about 320 ft): check --dem-z-units",
            )
        ]
    return []


def _layers_bounds(layers: dict[str, FeatureLayer]) -> tuple[float, float, float, float] | None:
    geoms = [g for layer in layers.values() if layer.role != "parcels" for g in layer.geoms if g is not None and not g.is_empty]
    if not geoms:
        geoms = [g for layer in layers.values() for g in layer.geoms if g is not None and not g.is_empty]
    if not geoms:
        return None
    b = shapely.total_bounds(np.array(geoms, dtype=object))
    if not np.all(np.isfinite(b)):
        return None
    return float(b[0]), float(b[1]), float(b[2]), float(b[3])


def _cell_size_ft(gt: tuple[float, ...], dem_crs: Any, working_crs: Any, bounds: Any) -> tuple[float, float] | None:
    """Approximate pixel width and height in feet near the site."""
    if dem_crs.is_projected:
        f = feet_per_unit(float(dem_crs.axis_info[0].unit_conversion_factor))
        return abs(gt[1]) * f, abs(gt[5]) * f
    x = gt[0]
    y = gt[3]
    geod = Geod(ellps="GRS80")
    _, _, w = geod.inv(x, y, x + gt[1], y)
    _, _, h = geod.inv(x, y, x, y + gt[5])
    return abs(w) * FT_PER_METRE, abs(h) * FT_PER_METRE
