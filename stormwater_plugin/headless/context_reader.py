"""Read a town's context catalog around one site: only what the pack's rules can reach, never a whole county.

The site's own package (and ``--layer`` options) give the plan; the catalog
(:mod:`stormwater_plugin.services.context_catalog`) names the statewide layers. What is read and in what
order (the search area: the plan's bounds, grown to the site parcel's when the parcels come from the catalog,
plus the pack's largest reach; which roles; the notes) is :mod:`~stormwater_plugin.services.context_read`.
This module fetches for it (:class:`_FileFetch`): each source through OGR's spatial filter (fiona ``bbox=``)
and its ``where``, its fields renamed to the role's, and the few features found written to a scratch GeoPackage
that the ordinary reader (:func:`~stormwater_plugin.headless.reader.read_site`) then takes as ``--layer`` options.
A role the package or a ``--layer`` gives is never taken from the catalog (a note says so), except a CAD plan's
own property line (a package ``import-cad`` wrote without ``--parcels``): it must land on a catalog tax parcel,
as ``--parcels`` tests it (:func:`~stormwater_plugin.headless.cad_import.land_property_line`; refused with one
line otherwise), and takes that parcel's record and the parcels around it.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import fiona
import numpy as np
import shapely
from pyproj import CRS, Transformer
from shapely.geometry import mapping, shape

from ..services.cad_plan import SEARCH_FT, is_property_line
from ..services.context_area import grow_box
from ..services.context_catalog import CatalogError, ContextCatalog, ContextSource
from ..services.context_catalog import load_catalog as read_catalog_file
from ..services.context_notes import ContextRead
from ..services.context_read import read_catalog, start_search, take_property_line
from ..services.context_rows import check_fields, merged_types, numbers_features, role_record, role_types, scratch_row
from ..services.feature_ids import ROLE_ID_FIELDS
from ..services.optional import require
from ..services.read_budget import ReadBudget
from .cad_import import land_property_line
from .crs import PYPROJ, crs_from_wkt
from .errors import InputError
from .layer_budget import check_sql_view
from .sources import collect_sources


def load_catalog(path: Path) -> ContextCatalog:
    """The catalog in ``path`` (:func:`~stormwater_plugin.services.context_catalog.load_catalog`, its words); :class:`InputError`."""
    try:
        return read_catalog_file(path)
    except CatalogError as exc:
        raise InputError(str(exc)) from exc


def _resolve(path_text: str, base: Path) -> Path:
    p = Path(path_text).expanduser()
    return p if p.is_absolute() else base / p


def _where(path: Path, layer: str | None) -> str:
    """A source in the reader's words: ``PATH[:LAYER]``."""
    return f"{path}{':' + layer if layer else ''}"


def _layer_bounds(path: Path, layer: str | None, role: str) -> tuple[tuple[float, float, float, float], CRS] | None:
    check_sql_view(path, layer, role, _where(path, layer))  # GDAL's count and extent of an endless view never return
    with fiona.open(str(path), layer=layer) if layer else fiona.open(str(path)) as coll:
        if len(coll) == 0 or not coll.crs_wkt:
            return None
        b = coll.bounds
        return (float(b[0]), float(b[1]), float(b[2]), float(b[3])), crs_from_wkt(coll.crs_wkt)


def _plan_layers(package: Path | None, layer_options: Iterable[str]) -> dict[str, list[tuple[Path, str | None]]]:
    """Each role's layers as the check reads them (:func:`~stormwater_plugin.headless.sources.collect_sources`, one matcher)."""
    return {role: [(s.path, s.layer) for s in srcs] for role, srcs in collect_sources(package, list(layer_options))[0].items()}


def _bounds_in(b: tuple[float, float, float, float], src: CRS, dst: CRS) -> tuple[float, float, float, float]:
    if src.equals(dst):
        return b
    x0, y0, x1, y1 = Transformer.from_crs(src, dst, always_xy=True).transform_bounds(*b, densify_pts=21)
    return float(x0), float(y0), float(x1), float(y1)


@dataclass
class _Rows:
    geoms: list[Any]
    props: list[dict[str, Any]]
    crs: CRS | None
    types: dict[str, str]
    #: The source's extent holds the whole search area (no feature found then means none within reach).
    covers: bool = False


def _dem_path(src: ContextSource, base: Path, scratch: Path) -> Path:
    """The catalog's DEM: its file (a GeoTIFF or a VRT) or, for a glob over tiles, a VRT over them in ``scratch``."""
    text = str(_resolve(src.path, base))
    if not any(c in text for c in "*?["):
        return Path(text)
    tiles = sorted(glob.glob(text))
    if not tiles:
        raise InputError(f"context catalog: {src.name}: no DEM tile matches {text}")
    if len(tiles) == 1:
        return Path(tiles[0])
    gdal = require("osgeo.gdal", "a context catalog's DEM tiles")  # only for a catalog of tiles

    vrt = scratch / "context_dem.vrt"
    ds = gdal.BuildVRT(str(vrt), tiles)
    if ds is None:
        raise InputError(f"context catalog: {src.name}: cannot build a VRT over {len(tiles)} tiles ({text})")
    ds = None
    return vrt


@functools.lru_cache(maxsize=32)
def _transformer(src: CRS, dst: CRS) -> Transformer:
    return Transformer.from_crs(src, dst, always_xy=True)


def _reproject(g: Any, src: CRS, dst: CRS) -> Any:
    """``g`` from ``src`` into ``dst`` (x, y order)."""
    if src is dst or src.equals(dst):
        return g
    tf = _transformer(src, dst)
    return shapely.transform(g, lambda xy: np.column_stack(tf.transform(xy[:, 0], xy[:, 1])))


class _FileFetch:
    """The files' side of a context read (:class:`~stormwater_plugin.services.context_read.ContextFetch`), its layers written to ``scratch``."""

    def __init__(self, catalog_dir: Path, scratch: Path, plan: Mapping[str, Sequence[tuple[Path, str | None]]]) -> None:
        self.catalog_dir, self.scratch, self.plan = catalog_dir, scratch, plan

    bounds_in = staticmethod(_bounds_in)
    to_area = staticmethod(_reproject)

    def dem(self, src: ContextSource) -> Path:
        return _dem_path(src, self.catalog_dir, self.scratch)

    def read(self, src: ContextSource, area: tuple[float, float, float, float], area_crs: CRS) -> _Rows:
        """The source's features within ``area`` (``area_crs`` bounds), filtered by ``where``, fields renamed."""
        path = _resolve(src.path, self.catalog_dir)
        if not path.exists():
            raise InputError(f"context catalog: {src.name}: {path} not found")
        where_read = _where(path, src.layer)
        check_sql_view(path, src.layer, src.role, where_read)
        budget, start = ReadBudget.current(), time.monotonic()
        try:
            opener = fiona.open(str(path), layer=src.layer) if src.layer else fiona.open(str(path))
            with opener as coll:
                if not coll.crs_wkt:
                    raise InputError(f"context catalog: {src.name} ({path}) has no CRS; assign one and run again")
                crs = crs_from_wkt(coll.crs_wkt)
                bbox = _bounds_in(area, area_crs, crs)
                schema = dict(coll.schema.get("properties", {}))
                check_fields(src, schema, path.name)
                numbered, driver = numbers_features(src, schema), str(coll.driver)
                kwargs: dict[str, Any] = {"bbox": bbox}
                if src.where:
                    kwargs["where"] = src.where
                b = coll.bounds
                covers = bool(len(coll)) and b[0] <= bbox[0] and b[1] <= bbox[1] and b[2] >= bbox[2] and b[3] >= bbox[3]
                geoms, props = [], []
                for feat in budget.guard(coll.filter(**kwargs), src.role, where_read, start):
                    if feat["geometry"] is None:
                        continue
                    geoms.append(shape(feat["geometry"]))
                    props.append(role_record(src, feat["properties"], feat.id, numbered, driver))
        except InputError:
            raise
        except Exception as exc:  # fiona raises driver-specific errors (a bad where among them)
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InputError(f"context catalog: {src.name} ({path}): cannot be read ({text[:160]})") from exc
        return _Rows(geoms, props, crs, role_types(src, schema, numbered), covers)

    def write(self, role: str, parts: Sequence[Any]) -> str:
        """Merge a role's sources (the rows :meth:`read` gave, in the first one's CRS) into layer ``role`` of the scratch GeoPackage; its ``ROLE=PATH:LAYER``."""
        out = self.scratch / "context.gpkg"
        crs = next(p.crs for p in parts if p.crs is not None)
        types = merged_types([p.types for p in parts])
        with fiona.open(str(out), "w", driver="GPKG", layer=role, crs_wkt=crs.to_wkt(), schema={"geometry": "Unknown", "properties": types}) as dst:
            for p in parts:
                for g, props in zip(p.geoms, p.props):
                    if p.crs is not None:
                        g = _reproject(g, p.crs, crs)
                    dst.write({"geometry": mapping(g), "properties": scratch_row(props, types)})
        return f"{role}={out}:{role}"

    def plan_geometries(self, area_crs: CRS) -> dict[str, list[Any]]:
        """The plan's own features (not parcels) by role, in ``area_crs``, for locating the site parcel."""
        out: dict[str, list[Any]] = {}
        for role, path, layer in ((r, p, lyr) for r, ls in self.plan.items() for p, lyr in ls):
            if role == "parcels":
                continue
            check_sql_view(path, layer, role, _where(path, layer))
            with fiona.open(str(path), layer=layer) if layer else fiona.open(str(path)) as coll:
                if not coll.crs_wkt:
                    continue
                crs = crs_from_wkt(coll.crs_wkt)
                for feat in ReadBudget.current().guard(coll, role, _where(path, layer)):
                    if feat["geometry"] is not None:
                        out.setdefault(role, []).append(_reproject(shape(feat["geometry"]), crs, area_crs))
        return out


def read_context(
    catalog: ContextCatalog,
    catalog_dir: Path,
    package: Path | None,
    layer_options: list[str],
    pack: Any,
    scratch: Path,
    *,
    dem_given: bool = False,
    site_parcel_id: str | None = None,
) -> ContextRead:
    """Read the catalog's sources around the site into ``scratch`` (see the module's docstring).

    Parameters
    ----------
    catalog : ContextCatalog
    catalog_dir : Path
        Folder relative paths in the catalog are taken from (the catalog file's).
    package : Path or None
        The site package.
    layer_options : list of str
        ``--layer ROLE=PATH[:LAYER]`` options (they win over the catalog).
    pack : RulePack
        The jurisdiction's pack: its largest reach, feet, grows the search area.
    scratch : Path
        A folder for the clipped layers (``context.gpkg``) and a tile VRT.
    dem_given : bool
        A ``--dem`` was given: the catalog's DEM is not used.
    site_parcel_id : str, optional
        The site parcel's id, when the user gave it.
    """
    res = ContextRead(site_parcel_id=site_parcel_id)
    plan = _plan_layers(package, layer_options)
    fetch = _FileFetch(catalog_dir, scratch, plan)

    def plan_bounds() -> list[tuple[tuple[float, float, float, float], CRS]]:
        found = [b for b in (_layer_bounds(p, layer, r) for r, ls in plan.items() for p, layer in ls) if b is not None]
        if not found:
            raise InputError("context catalog: the site package has no features to read context around; give the plan's own layers")
        return found

    given = {r: "the site package" if package is not None and ls[0][0] == package else "--layer" for r, ls in plan.items()}
    try:
        search = start_search(catalog, pack, PYPROJ, fetch, plan_bounds, {**given, **({"dem": "--dem"} if dem_given else {})}, res)
    except CatalogError as exc:
        raise InputError(str(exc)) from exc

    # a CAD plan's own property line must land on a tax parcel of the catalog, as import-cad --parcels tests it
    parcels = plan.get("parcels", [])
    if len(parcels) == 1 and package is not None and parcels[0][0] == package and catalog.for_role("parcels"):
        if is_property_line(package, parcels[0][1]):
            sources = list(catalog.for_role("parcels"))
            rows = [fetch.read(s, grow_box(search.area, search.units(SEARCH_FT)), search.crs) for s in sources]
            scratch.mkdir(parents=True, exist_ok=True)
            opt, site_id, note = land_property_line(package, parcels[0][1], [(g, p, r.crs) for r in rows for g, p in zip(r.geoms, r.props)],
                                                " + ".join(s.describe() for s in sources), scratch / "property_line.gpkg")
            take_property_line(res, opt, [(s, len(r.geoms)) for s, r in zip(sources, rows)], site_id, note, site_parcel_id)
    scratch.mkdir(parents=True, exist_ok=True)
    return read_catalog(catalog, search, fetch, list(plan), ("id",) + ROLE_ID_FIELDS.get("parcels", ()), res, site_parcel_id, dem_given)


def read_context_for_check(args: Any, pack: Any, stack: contextlib.ExitStack) -> ContextRead:
    """The catalog's part of one ``check`` run (``args`` from its parser); empty when ``--context`` is not given.

    The clipped layers go to a scratch folder that lives as long as ``stack``
    (the check reads further DEM windows as it proceeds).
    """
    if getattr(args, "context", None) is None:
        return ContextRead()
    scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="swc-context-")))
    catalog_path = Path(args.context)
    catalog = load_catalog(catalog_path)
    return read_context(
        catalog,
        catalog_path.resolve().parent,
        args.site,
        list(args.layer),
        pack,
        scratch,
        dem_given=args.dem is not None,
        site_parcel_id=args.site_parcel,
    )
