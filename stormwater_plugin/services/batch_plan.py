"""Batch screening, the plan: find the sites of a town, give each its features, tile them into partitions.

The use case's first half (:func:`plan_batch`); :mod:`.batch_run` checks a
partition's sites with :func:`~stormwater_plugin.services.site_source.check_site`. The
file side (reading the package, the executors, the writers) is
:mod:`stormwater_plugin.headless.batch`, which describes the outputs.

Plan features (:data:`~stormwater_plugin.core.roles.PLAN_ROLES`: devices, building sites, clearing,
disturbance, impervious areas) belong to the site parcel that contains their
``point_on_surface``; every other role is context, shared by all the sites
near it: the context features within the *halo* of a site's footprint (the
largest horizontal distance any rule of the pack looks at,
:func:`~stormwater_plugin.services.reach.pack_reach_ft`), plus the nearest
feature of each role (and of each named target) to each footprint part, plus
the features that set each layer's extent. The DEM is cut to the partition's
footprints plus the DEM halo and :data:`DEM_MARGIN_FT`, and to the nearest
points of far features.

QGIS-free and file-free: the core, numpy and shapely. The DEM's coordinate
transforms arrive as picklable callables (the adapter's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence, TypeVar

import numpy as np
import shapely

from ..core.checks.context import truthy
from ..core.checks.setbacks import feature_name
from ..core.dem_source import DemSource, InMemoryDemSource
from ..core.errors import StormwaterError
from ..core.model import FeatureLayer, Warning_
from ..core.raster import CoordTransform, ElevationGrid
from ..core.roles import PLAN_ROLES, SHARED_ROLES
from ..core.rulepack import RulePack
from ..core.units import feet_per_unit
from ..core.vocabulary import name_matches
from . import site_crs
from .backend import CrsBackend
from .reach import pack_dem_reach_ft, pack_reach_ft, rule_grows_dem_window
from .site_source import ReviewOptions
from .working_crs import site_parcel_indices

#: The reader's CRS object (``pyproj.CRS``).
C = TypeVar("C")

#: DEM margin around what a site needs, feet (as :func:`~stormwater_plugin.headless.reader.read_dem` reads).
DEM_MARGIN_FT: float = 150.0

def site_units(crs_ops: CrsBackend[C], crs: C, why: str, layers: dict[str, FeatureLayer]) -> dict[str, tuple[float, str]]:
    """Each site parcel's (unit_to_ft, crs_name), the scale factor at that site: what a single-site check of it uses.

    The sites are the parcels with ``is_site`` set, by id; ``layers`` are in ``crs`` (the read's working CRS, chosen
    for ``why``), whose scale factor at each site is :func:`~stormwater_plugin.services.site_crs.site_scale`.
    """
    parcels = layers.get("parcels")
    if parcels is None:
        return {}
    info = crs_ops.describe(crs)
    ft_per_unit = feet_per_unit(info.metres_per_unit)
    out: dict[str, tuple[float, str]] = {}
    for i in site_parcel_indices({"parcels": parcels}, None):  # the rule without the plan: is_site, else the only parcel
        sid = parcels.ids[i]
        if sid not in out:
            k = site_crs.site_scale(crs_ops, crs, layers, sid)
            out[sid] = (ft_per_unit / k, site_crs.working_crs_text(info.name, info.authority, why, k))
    return out


class BatchError(StormwaterError):
    """Unusable batch input; the message says what and where."""


# --------------------------------------------------------------------------- what a worker gets


@dataclass
class DemSlice:
    """A window of the town's DEM, with what is needed to rebuild an :class:`ElevationGrid`.

    ``values`` are in the band's unit (float32 when that is lossless);
    ``geotransform`` is GDAL order in the DEM's CRS; ``to_raster`` and
    ``from_raster`` transform working-CRS coordinates to the DEM's CRS and
    back (picklable, e.g. the headless adapter's ``WktTransform``).
    """

    values: np.ndarray
    geotransform: tuple[float, float, float, float, float, float]
    z_to_ft: float
    z_unit_note: str
    cell_size_ft: tuple[float, float] | None
    name: str
    to_raster: CoordTransform
    from_raster: CoordTransform | None
    z_unit_declared: bool = True

    def grid(self) -> ElevationGrid:
        return ElevationGrid(
            values=self.values,
            geotransform=self.geotransform,
            z_to_ft=self.z_to_ft,
            to_raster=self.to_raster,
            z_unit_note=self.z_unit_note,
            cell_size_ft=self.cell_size_ft,
            name=self.name,
            from_raster=self.from_raster,
            z_unit_declared=self.z_unit_declared,
        )


@dataclass
class Partition:
    """A tile of sites and everything their checks need; picklable, sent to a worker.

    ``layers`` hold the features of the partition (each role in the town's
    order); ``sites`` is a list of (site parcel id, role -> indices into
    ``layers[role]``).
    """

    number: int
    #: The rule pack every site is checked with (the object the batch was planned with, not its name reloaded).
    pack: RulePack
    layers: dict[str, FeatureLayer]
    sites: list[tuple[str, dict[str, np.ndarray]]]
    dem: DemSlice | None
    unit_to_ft: float
    crs_name: str
    warnings: list[Warning_]
    inputs_doc: dict[str, object]
    #: Site id -> (unit_to_ft, crs_name) with the scale factor taken at that site (as a single-site check takes it).
    site_units: dict[str, tuple[float, str]] = field(default_factory=dict)
    #: The town's whole DEM, read in windows (a picklable :class:`~stormwater_plugin.core.dem_source.DemSource`):
    #: the flow trace grows its windows from it exactly as a single-site check does.
    dem_source: DemSource | None = None
    #: Output folder the worker writes each site's findings.json into (``sites/<folders[id]>/``); ``None``: the
    #: worker returns the document and the batch process writes it (a Dask scheduler on other machines).
    write_to: str | None = None
    #: Site id -> its folder name under ``write_to/sites``.
    folders: dict[str, str] = field(default_factory=dict)
    #: The review's options for every site (picklable: no callables), as :func:`~.site_source.check_site` takes them.
    options: ReviewOptions = field(default_factory=lambda: ReviewOptions(moves=False))

    @property
    def jurisdiction(self) -> str:
        """The pack's jurisdiction name."""
        return self.pack.jurisdiction


# --------------------------------------------------------------------------- planning (the batch process)


def _query_geoms(layer: FeatureLayer) -> np.ndarray:
    """Geometries fit for spatial queries: invalid ones repaired, null and empty ones as None."""
    geoms = np.asarray(layer.geoms, dtype=object).copy()
    missing = shapely.is_missing(geoms)
    ok = ~missing
    ok[ok] = ~shapely.is_empty(geoms[ok])
    geoms[~ok] = None
    bad = np.zeros(len(geoms), dtype=bool)
    bad[ok] = ~shapely.is_valid(geoms[ok])
    if bad.any():
        geoms[bad] = shapely.make_valid(geoms[bad])
    return geoms


def _truthy(value: object) -> bool:
    return bool(truthy(value))


@dataclass
class BatchPlan:
    """Sites, their features and their partitions (before anything runs)."""

    site_ids: list[str]
    site_parcels: list[list[int]]
    partitions: list[Partition]
    halo_ft: float
    unassigned: dict[str, list[str]]
    site_bounds: np.ndarray


def _pairs_unique(site: np.ndarray, feat: np.ndarray, n_feat: int) -> tuple[np.ndarray, np.ndarray]:
    key = np.unique(site.astype(np.int64) * max(n_feat, 1) + feat.astype(np.int64))
    return key // max(n_feat, 1), key % max(n_feat, 1)


def _hull_features(geoms: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``index`` of the features holding a vertex of the convex hull of ``geoms``: with them, any subset has the whole layer's hull."""
    hull = shapely.convex_hull(shapely.multipoints(shapely.get_coordinates(geoms)))
    if hull.geom_type == "Polygon":
        verts = shapely.points(np.asarray(hull.exterior.coords)[:-1])
    else:
        verts = shapely.points(shapely.get_coordinates(hull))
    vi, fi = shapely.STRtree(geoms).query(verts, predicate="intersects")
    _, first = np.unique(vi, return_index=True)
    return np.unique(index[fi[first]])


def _name_subsets(pack: RulePack, role: str, layer: FeatureLayer) -> list[np.ndarray]:
    """Index subsets of ``layer`` that rules target by name (e.g. the Lake George shoreline)."""
    specs = [spec for rule in pack.rules for spec in rule.params.get("targets", []) if isinstance(spec, dict)]
    matches = sorted({str(spec["name_matches"]).lower() for spec in specs if spec.get("role") == role and spec.get("name_matches")})
    if not matches:
        return []
    names = [feature_name(a).lower() for a in layer.attrs]
    return [np.array([k for k, n in enumerate(names) if name_matches(n, m)], dtype=np.int64) for m in matches]


def plan_batch(
    layers: dict[str, FeatureLayer],
    dem: ElevationGrid | None,
    pack: RulePack,
    unit_to_ft: float,
    *,
    dem_transforms: tuple[CoordTransform, CoordTransform | None] | None = None,
    crs_name: str = "",
    warnings: Sequence[Warning_] = (),
    inputs_doc: dict[str, object] | None = None,
    sites_per_partition: int | None = None,
    workers: int = 2,
    site_units: dict[str, tuple[float, str]] | None = None,
    dem_source: DemSource | None = None,
    options: ReviewOptions | None = None,
) -> BatchPlan:
    """Find the sites, give each its features, and tile them into partitions.

    Parameters
    ----------
    layers : dict of FeatureLayer
        The town's layers in the working CRS (as a
        :class:`~stormwater_plugin.services.site_source.SiteSource` reads them).
    dem : ElevationGrid or None
        The town's DEM window.
    pack : RulePack
        The jurisdiction's rules (they set the halo).
    unit_to_ft : float
        Working-CRS unit in feet.
    dem_transforms : (callable, callable), optional
        Working CRS to the DEM's CRS and back, picklable (they travel with
        each partition's :class:`DemSlice`); by default the DEM's own.
    sites_per_partition : int, optional
        Sites per tile; by default about a quarter of the sites per worker,
        between 4 and 200.
    workers : int
        Worker count, for the default tile size.
    site_units : dict, optional
        Site id -> (unit_to_ft, crs_name) with the scale factor at that site
        (as the adapter takes it for a single-site check); sites not in
        it use ``unit_to_ft`` and ``crs_name``.
    dem_source : DemSource, optional
        The whole DEM in windows, for rules that read further than their
        fixed window (the flow trace); by default, when the pack has one, an
        in-memory source over ``dem``.
    options : ReviewOptions, optional
        The review's options for every site (stated accuracy, project class; no callables: they travel to the workers);
        by default none, and no moves (a screening suggests none).

    Raises
    ------
    BatchError
        No parcels layer, or no parcel with ``is_site`` set.
    """
    parcels = layers.get("parcels")
    if parcels is None or len(parcels) == 0:
        raise BatchError("the package has no parcels layer (or it is empty): batch screening needs the site parcels, with is_site set on each")
    pgeoms = _query_geoms(parcels)
    site_ids, site_parcels, flagged_arr, site_of_flagged = _find_sites(parcels, pgeoms)
    n_sites = len(site_ids)

    cell_ft = max(dem.cell_size_ft) if dem is not None and dem.cell_size_ft else 0.0
    halo_ft = pack_reach_ft(pack, cell_ft)
    # The smallest unit of any site gives the widest halo in grid units: every site's reach is inside it.
    site_units = dict(site_units or {})
    halo = halo_ft / min([unit_to_ft] + [u for u, _ in site_units.values()])
    # The DEM's halo is finite: a rule that reads further (the flow trace) reads windows from the source.
    dem_halo = pack_dem_reach_ft(pack, cell_ft) / min([unit_to_ft] + [u for u, _ in site_units.values()])
    if dem_source is None and dem is not None and any(rule_grows_dem_window(r) for r in pack.rules):
        dem_source = InMemoryDemSource(dem)
    margin = DEM_MARGIN_FT / unit_to_ft
    if dem is not None and dem_transforms is None:
        dem_transforms = (dem.to_raster, dem.from_raster)

    plan_pairs, unassigned, fpg, fps = _plan_footprints(layers, pgeoms, flagged_arr, site_of_flagged)
    sb = _site_bounds(fpg, fps, n_sites)
    site_box = shapely.box(sb[:, 0] - halo, sb[:, 1] - halo, sb[:, 2] + halo, sb[:, 3] + halo)
    # What the DEM must cover, per site: footprint + halo + margin, and far nearest points.
    need = np.column_stack(
        [sb[:, 0] - dem_halo - margin, sb[:, 1] - dem_halo - margin, sb[:, 2] + dem_halo + margin, sb[:, 3] + dem_halo + margin]
    )
    ctx_pairs = _context_pairs(layers, pack, site_box, fpg, fps, need, margin, n_sites)
    tiles = _tiles(sb, n_sites, sites_per_partition, workers)

    all_pairs = {**plan_pairs, **ctx_pairs}
    splits = {role: np.searchsorted(s, np.arange(n_sites + 1)) for role, (s, _) in all_pairs.items()}
    partitions: list[Partition] = []
    for number_, members in enumerate(tiles):
        part_layers, part_sites = _partition_layers(layers, all_pairs, splits, members, site_ids)
        box_ = (float(need[members, 0].min()), float(need[members, 1].min()), float(need[members, 2].max()), float(need[members, 3].max()))
        partitions.append(
            Partition(
                number=number_,
                pack=pack,
                layers=part_layers,
                sites=part_sites,
                dem=_dem_slice(dem, box_, dem_transforms) if dem is not None and dem_transforms is not None else None,
                unit_to_ft=unit_to_ft,
                crs_name=crs_name,
                warnings=list(warnings),
                inputs_doc=dict(inputs_doc or {}),
                site_units={site_ids[m]: site_units[site_ids[m]] for m in members if site_ids[m] in site_units},
                dem_source=dem_source,
                options=options if options is not None else ReviewOptions(moves=False),
            )
        )
    return BatchPlan(site_ids, site_parcels, partitions, halo_ft, unassigned, sb)


def _find_sites(parcels: FeatureLayer, pgeoms: np.ndarray) -> tuple[list[str], list[list[int]], np.ndarray, np.ndarray]:
    """The site parcels (``is_site`` set, with a geometry): ids, their parcel indices, the flagged indices and their site numbers."""
    flagged = [k for k, a in enumerate(parcels.attrs) if _truthy({str(key).lower(): v for key, v in a.items()}.get("is_site"))]
    flagged = [k for k in flagged if pgeoms[k] is not None]
    if not flagged:
        raise BatchError("no parcel has is_site set: mark each site parcel with is_site = 1 (or true) and run again")
    site_ids: list[str] = []
    site_parcels: list[list[int]] = []
    number: dict[str, int] = {}
    for k in flagged:
        pid = parcels.ids[k]
        if pid not in number:
            number[pid] = len(site_ids)
            site_ids.append(pid)
            site_parcels.append([])
        site_parcels[number[pid]].append(k)
    flagged_arr = np.array(flagged, dtype=np.int64)
    site_of_flagged = np.array([number[parcels.ids[k]] for k in flagged], dtype=np.int64)
    return site_ids, site_parcels, flagged_arr, site_of_flagged


def _plan_footprints(
    layers: dict[str, FeatureLayer], pgeoms: np.ndarray, flagged_arr: np.ndarray, site_of_flagged: np.ndarray
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[str, list[str]], np.ndarray, np.ndarray]:
    """Footprints: the site parcels and the plan features they hold (by point on surface); (pairs, unassigned, geoms, site numbers)."""
    fp_geoms: list[np.ndarray] = [pgeoms[flagged_arr]]
    fp_site: list[np.ndarray] = [site_of_flagged]
    plan_pairs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    unassigned: dict[str, list[str]] = {}
    site_tree = shapely.STRtree(pgeoms[flagged_arr])
    for role in PLAN_ROLES:
        layer = layers.get(role)
        if layer is None:
            continue
        g = _query_geoms(layer)
        pos = shapely.point_on_surface(g)
        f, t = site_tree.query(pos, predicate="intersects")
        order = np.lexsort((flagged_arr[t], f))
        f, t = f[order], t[order]
        first = np.unique(f, return_index=True)[1]
        f, s = f[first].astype(np.int64), site_of_flagged[t[first]]
        plan_pairs[role] = _pairs_unique(s, f, len(layer))
        lost = np.setdiff1d(np.arange(len(layer)), f)
        # a feature without a usable location (a stray far off its drawing) lies in no site parcel either: listed, never dropped
        placeless = [fid for fid in layer.no_geometry if fid not in set(layer.ids)]
        if lost.size or placeless:
            unassigned[role] = [layer.ids[k] for k in lost] + placeless
        fp_geoms.append(g[f])
        fp_site.append(s)
    return plan_pairs, unassigned, np.concatenate(fp_geoms), np.concatenate(fp_site)


def _site_bounds(fpg: np.ndarray, fps: np.ndarray, n_sites: int) -> np.ndarray:
    """Each site's footprint bounds (xmin, ymin, xmax, ymax) in working-CRS units, one row per site."""
    b = shapely.bounds(fpg)
    sb = np.full((n_sites, 4), np.nan)
    sb[:, 0], sb[:, 1] = np.inf, np.inf
    sb[:, 2], sb[:, 3] = -np.inf, -np.inf
    np.minimum.at(sb[:, 0], fps, b[:, 0])
    np.minimum.at(sb[:, 1], fps, b[:, 1])
    np.maximum.at(sb[:, 2], fps, b[:, 2])
    np.maximum.at(sb[:, 3], fps, b[:, 3])
    return sb


def _context_pairs(
    layers: dict[str, FeatureLayer],
    pack: RulePack,
    site_box: np.ndarray,
    fpg: np.ndarray,
    fps: np.ndarray,
    need: np.ndarray,
    margin: float,
    n_sites: int,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Context: features whose envelope meets the site's grown envelope (a superset of those within the halo),
    plus the nearest of each role and each named target to each footprint part; grows ``need`` (the DEM box
    per site, working-CRS units) to the nearest points of far features."""
    ctx_pairs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for role in SHARED_ROLES:
        layer = layers.get(role)
        if layer is None:
            continue
        n = len(layer)
        g = _query_geoms(layer)
        if n == 0 or all(x is None for x in g):
            ctx_pairs[role] = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
            continue
        tree = shapely.STRtree(g)
        q, t = tree.query(site_box)
        sites_l, feats_l = [q], [t]
        # The features that set the layer's extent go to every site, so a check that looks at where
        # the layer ends (the notification list near the edge of the parcel data) sees the town's extent:
        # the layer's extent is its convex hull, so each hull vertex's feature goes to every site.
        present = np.flatnonzero(shapely.is_geometry(g))
        ext = _hull_features(g[present], present)
        # a feature without a usable geometry goes to every site, as a single-site check reads it: each rule reading
        # its role is undetermined for it there, never silent
        ext = np.union1d(ext, np.flatnonzero(~shapely.is_geometry(g)))
        sites_l.append(np.repeat(np.arange(n_sites, dtype=np.int64), len(ext)))
        feats_l.append(np.tile(ext, n_sites))
        subsets = [np.flatnonzero(shapely.is_geometry(g))] + _name_subsets(pack, role, layer)
        for sub in subsets:
            sub = sub[shapely.is_geometry(g[sub])] if sub.size else sub
            if sub.size == 0:
                continue
            subtree = shapely.STRtree(g[sub])
            qn, tn = subtree.query_nearest(fpg, all_matches=True)
            fn = sub[tn]
            sites_l.append(fps[qn])
            feats_l.append(fn)
            # Points sampled on far nearest features must lie on the DEM window.
            lines = shapely.shortest_line(fpg[qn], g[fn])
            lb = shapely.bounds(lines)
            np.minimum.at(need[:, 0], fps[qn], lb[:, 0] - margin)
            np.minimum.at(need[:, 1], fps[qn], lb[:, 1] - margin)
            np.maximum.at(need[:, 2], fps[qn], lb[:, 2] + margin)
            np.maximum.at(need[:, 3], fps[qn], lb[:, 3] + margin)
        ctx_pairs[role] = _pairs_unique(np.concatenate(sites_l), np.concatenate(feats_l), n)
    return ctx_pairs


def _tiles(sb: np.ndarray, n_sites: int, sites_per_partition: int | None, workers: int) -> list[np.ndarray]:
    """Square tiles of site parcels (by footprint centre), about ``sites_per_partition`` sites each, largest first."""
    workers = max(1, int(workers))
    target = sites_per_partition or int(min(200, max(4, math.ceil(n_sites / (4 * workers)))))
    cx = (sb[:, 0] + sb[:, 2]) / 2
    cy = (sb[:, 1] + sb[:, 3]) / 2
    w = float(cx.max() - cx.min())
    h = float(cy.max() - cy.min())
    area = max(w * h, max(w, h) ** 2 / n_sites)  # sites in a row: tiles along the row
    side = max(math.sqrt(area * target / n_sites), 1e-9)
    tx = np.floor((cx - cx.min()) / side).astype(np.int64)
    ty = np.floor((cy - cy.min()) / side).astype(np.int64)
    tile_key = ty * (int(tx.max()) + 1) + tx
    tiles = [np.flatnonzero(tile_key == k) for k in np.unique(tile_key)]
    tiles.sort(key=len, reverse=True)
    return tiles


def _partition_layers(
    layers: dict[str, FeatureLayer],
    all_pairs: dict[str, tuple[np.ndarray, np.ndarray]],
    splits: dict[str, np.ndarray],
    members: np.ndarray,
    site_ids: list[str],
) -> tuple[dict[str, FeatureLayer], list[tuple[str, dict[str, np.ndarray]]]]:
    """The features a tile's sites need (each role in the town's order) and each site's indices into them."""
    part_layers: dict[str, FeatureLayer] = {}
    part_sites: list[tuple[str, dict[str, np.ndarray]]] = [(site_ids[m], {}) for m in members]
    for role, layer in layers.items():
        if role not in all_pairs:
            part_layers[role] = layer
            for _, idx in part_sites:
                idx[role] = np.arange(len(layer))
            continue
        _, feats = all_pairs[role]
        cut = splits[role]
        chunks = [feats[cut[m] : cut[m + 1]] for m in members]
        used = np.unique(np.concatenate(chunks)) if chunks else np.empty(0, dtype=np.int64)
        part_layers[role] = FeatureLayer(role, layer.geoms[used], [layer.ids[k] for k in used], [layer.attrs[k] for k in used], dict(layer.no_geometry))
        for (_, idx), chunk in zip(part_sites, chunks):
            idx[role] = np.searchsorted(used, chunk)
    return part_layers, part_sites


def _dem_slice(dem: ElevationGrid, box_: tuple[float, float, float, float], transforms: tuple[CoordTransform, CoordTransform | None]) -> DemSlice:
    """The part of ``dem`` covering a working-CRS box (its edges densified), plus 2 pixels."""
    x0, y0, x1, y1 = box_
    t = np.linspace(0.0, 1.0, 33)
    xs = np.concatenate([x0 + (x1 - x0) * t, np.full_like(t, x1), x1 - (x1 - x0) * t, np.full_like(t, x0)])
    ys = np.concatenate([np.full_like(t, y0), y0 + (y1 - y0) * t, np.full_like(t, y1), y1 - (y1 - y0) * t])
    rx, ry = dem.to_raster(xs, ys)
    col, row = dem.raster_to_pixel(np.asarray(rx), np.asarray(ry))
    rows, cols = dem.shape
    ok = np.isfinite(col) & np.isfinite(row)
    if not ok.any():
        c0, r0, c1, r1 = 0, 0, cols, rows
    else:
        c0 = int(np.clip(np.floor(col[ok].min()) - 2, 0, cols))
        r0 = int(np.clip(np.floor(row[ok].min()) - 2, 0, rows))
        c1 = int(np.clip(np.ceil(col[ok].max()) + 2, 0, cols))
        r1 = int(np.clip(np.ceil(row[ok].max()) + 2, 0, rows))
        if c1 - c0 < 2 or r1 - r0 < 2:  # off the DEM: keep a tiny corner, every sample is NaN as before
            c0, r0, c1, r1 = 0, 0, min(2, cols), min(2, rows)
    values = dem.values[r0:r1, c0:c1]
    v32 = values.astype(np.float32)
    if np.array_equal(v32.astype(np.float64), values, equal_nan=True):
        values = v32
    else:
        values = values.copy()
    a, b, c, d, e, f = dem.geotransform
    gt = (a + c0 * b + r0 * c, b, c, d + c0 * e + r0 * f, e, f)
    return DemSlice(values, gt, dem.z_to_ft, dem.z_unit_note, dem.cell_size_ft, dem.name, transforms[0], transforms[1], dem.z_unit_declared)


__all__ = ["BatchError", "BatchPlan", "DEM_MARGIN_FT", "DemSlice", "Partition", "pack_reach_ft", "plan_batch"]
