"""Read a site package and a DEM from files into the core's inputs (headless edge).

geopandas, rasterio and pyproj are imported here, lazily, and nowhere in the
core. Every layer is reprojected to one projected working CRS: the DEM's when
it is projected, else the local UTM zone of the site. Problems a user can fix
raise :class:`InputError` with a message naming the file, layer or field.
"""

from __future__ import annotations

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
from ..core.model import ROLES, FeatureLayer, Warning_
from ..core.raster import ElevationGrid
from ..core.terrain import plausibility_warning
from ..core.units import FT_PER_METRE, feet_per_unit
from ..services.dem_window import dem_window
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

    def describe(self) -> str:
        return f"{self.path}{':' + self.layer if self.layer else ''}"


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
    # PATH may itself hold a colon (a Windows drive); split on the last colon only if what is before it exists.
    if ":" in rest:
        head, tail = rest.rsplit(":", 1)
        if head and Path(head).exists() and not Path(rest).exists():
            path, layer = head, tail
    return LayerSource(role, Path(path), layer)


def _list_layers(path: Path) -> list[str]:
    try:
        return list(fiona.listlayers(str(path)))
    except Exception as exc:  # fiona raises several driver-specific errors
        raise InputError(
            f"{path}: cannot be read as a vector data source ({_short(exc)}); check it is a GeoPackage or another OGR format"
        ) from exc


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:160]


@dataclass
class VectorFrame:
    """One layer as read: geometries, attribute records and CRS (a light stand-in for a GeoDataFrame).

    Reading through fiona directly keeps pandas and geopandas out of a plain
    check (a fifth of a second at start-up).
    """

    geoms: np.ndarray
    records: list[dict[str, Any]]
    columns: list[str]
    crs: Any  # pyproj.CRS or None

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
        return VectorFrame(out, self.records, self.columns, crs)


#: Angle between the vertices GDAL puts on a circular arc when it strokes a curve, degrees.
ARC_STEP_DEG: float = 0.25


def _read_frame(src: LayerSource) -> VectorFrame:
    if not src.path.exists():
        raise InputError(f"{src.path}: file not found (for the '{src.role}' layer)")
    try:
        # Curves (CurvePolygon, CompoundCurve from a GeoPackage or a CAD export) are stroked by GDAL every
        # ARC_STEP_DEG degrees: a chord then lies at most r * 2.4e-6 inside its arc (0.0024 ft at r = 1,000 ft).
        with fiona.Env(OGR_ARC_STEPSIZE=str(ARC_STEP_DEG)), (fiona.open(str(src.path), layer=src.layer) if src.layer else fiona.open(str(src.path))) as coll:
            wkt = coll.crs_wkt
            try:
                columns: list[str] | None = list(coll.schema.get("properties", {}).keys())
            except Exception:  # fiona 1.9 has no name for a curved layer type (CurvePolygon is 10); its features still read, stroked
                columns = None
            geoms: list[Any] = []
            records: list[dict[str, Any]] = []
            for feat in coll:
                geoms.append(_feature_geometry(feat["geometry"], shape))
                records.append(dict(feat["properties"]))
            if columns is None:
                columns = list(records[0].keys()) if records else []
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{src.describe()}: cannot read the '{src.role}' layer ({_short(exc)})") from exc
    arr = np.empty(len(geoms), dtype=object)
    arr[:] = geoms
    crs = crs_from_wkt(wkt) if wkt else None
    return VectorFrame(arr, records, columns, crs)


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


def _identity(frame: VectorFrame, role: str, fids: list[str]) -> list[str]:
    cols = {str(c).lower(): c for c in frame.columns}
    for name in ("id",) + ROLE_ID_FIELDS.get(role, ()):
        col = cols.get(name.lower())
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
    sources: dict[str, LayerSource] = {}
    if package is not None:
        if not package.exists():
            raise InputError(f"{package}: site package not found")
        names = _list_layers(package)
        lower = {n.lower(): n for n in names}
        for role in ROLES:
            if role in lower:
                sources[role] = LayerSource(role, package, lower[role])
    for opt in layer_options:
        src = parse_layer_option(opt)
        sources[src.role] = src


    frames: dict[str, VectorFrame] = {}
    warnings: list[Warning_] = []
    with fiona.Env():  # one GDAL environment for every layer
        for role, src in sources.items():
            fr = _read_frame(src)
            if fr.crs is None or str(fr.crs.name).lower().startswith("undefined"):
                raise InputError(
                    f"{src.describe()}: the '{role}' layer has no CRS; assign one (e.g. in QGIS: Layer > Set CRS, or ogr2ogr -a_srs EPSG:xxxx) and run again"
                )
            frames[role] = fr

    dem_crs = None
    if dem_path is not None:
        dem_crs = _dem_crs(dem_path)
    crs, why = choose_working_crs(dem_crs, frames, site_parcel_id)
    metres_per_unit = float(crs.axis_info[0].unit_conversion_factor)

    layers: dict[str, FeatureLayer] = {}
    moved: dict[str, list[str]] = {}
    for role, fr in frames.items():
        if fr.crs is not crs and not fr.crs.equals(crs):
            moved.setdefault(fr.crs.to_string(), []).append(role)
            fr = fr.to_crs(crs)
        fids = [str(i + 1) for i in range(len(fr))]
        ids = _identity(fr, role, fids)
        attrs = [{k: _clean_attr(v) for k, v in r.items()} for r in fr.records]
        geoms = list(fr.geoms)
        if len(set(ids)) != len(ids):
            warnings.append(Warning_("duplicate_ids", "some features share an id; findings name them by that id", role))
        layers[role] = FeatureLayer.from_sequences(role, geoms, ids, attrs)

    for src_crs, roles in moved.items():
        warnings.append(Warning_("reprojected", f"{', '.join(roles)} reprojected from {src_crs} to the working CRS {crs.to_string()}"))
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
    return LoadedSite(inputs, crs, {r: s.describe() for r, s in sources.items()}, str(dem_path) if dem_path else None, why)


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
