"""Batch screening: check every site parcel of a town in one run, over spatial partitions.

The input is a site package like the one ``stormwater-check check`` reads,
holding many site parcels (``is_site`` set on each). Plan features
(:data:`PLAN_ROLES`: devices, building sites, clearing, disturbance,
impervious areas) belong to the site parcel that contains their
``point_on_surface``; every other role is context (wells, septic systems,
shoreline, parcels…) and is shared by all the sites near it.

How a site is checked
---------------------
Each site gets its own :class:`~stormwater_plugin.core.engine.SiteInputs`:
its own plan features, and the context features within the *halo* of its
footprint (the site parcel and its plan features). The halo is the largest
horizontal distance any rule of the pack looks at (:func:`pack_reach_ft`,
500 ft for the Lake George packs), so every feature a rule could count is
there; the nearest feature of each role (and of each named target such as
"Lake George") to each footprint part is added too, because setback rules
also report a pass against the nearest feature however far it lies. The
DEM is cut to the partition's footprints plus the DEM halo (the halo,
except that a flow trace of no declared length counts its first window's
reach: it reads further windows from the DEM source, the same file a
single-site check reads) plus the 150 ft margin the single-site reader
uses, and to the nearest points of those far features. The result is the same as checking the site alone with the whole
town as context (``tests/headless/test_batch.py`` checks it, document for
document). Two limits: repair warnings about invalid context geometries
name only those within the halo, and where a rule unions many features of a
role (all shorelines, all wetlands) the union of the nearby ones may differ
from the union of all in the last floating-point digits.

Where the work runs
-------------------
Sites are grouped into partitions: square tiles of site parcels, each
shipped with the features and the DEM window its sites need. Partitions
run on a :class:`concurrent.futures.ProcessPoolExecutor` (``workers``
processes, 2 by default), in this process when ``workers`` is 1, or on
Dask's distributed scheduler (``scheduler="local"`` for a
:class:`distributed.LocalCluster`, or a scheduler address, or a
:class:`distributed.Client`). Workers that share this file system (the
process pool, this process, a LocalCluster) write their sites'
findings.json themselves; with another scheduler the documents come back
and this process writes them. findings.gpkg is written at the end, in bulk
(each layer in one SQLite transaction, see :func:`_bulk_layer`).

Outputs (in ``out``)
--------------------
``findings.gpkg``
    Layers ``findings_points``, ``findings_lines`` and ``findings_areas``
    with a ``site_parcel`` column and the columns of the single-site
    output, and ``site_parcels`` (each site parcel with its counts and worst
    status), in the working CRS.
``summary.csv``
    One row per site: :data:`SUMMARY_COLUMNS`.
``sites/<id>/findings.json``
    The single-site ``findings.json`` document of each site (compact JSON;
    ``inputs.site_parcel`` names the site; no move suggestions, no review
    report).
``batch.json``
    The run: sites, partitions, halo, engine, timings, warnings, and its
    ``status``: ``incomplete`` from the start of a screening until its
    summary is written, then ``complete``.
``progress.jsonl``
    The input hash of the screening, then one line per site checked (its
    outcome and the hash of its findings.json). A screening run again into
    the same folder with the same inputs resumes: the sites already checked
    are not checked again. With other inputs, the earlier screening's files
    are removed first, so the folder never mixes two screenings.

Workers watch their parent: when the batch process dies (even by
``kill -9``) they exit within a second.
"""

from __future__ import annotations

import concurrent.futures
import csv
import dataclasses
import hashlib
import json
import logging
import math
import multiprocessing
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np
import shapely

from ..__about__ import __version__
from ..core.checks.context import truthy
from ..core.checks.setbacks import feature_name
from ..core.dem_source import InMemoryDemSource
from ..core.engine import SiteInputs, run_check
from ..core.errors import StormwaterError
from ..core.model import ROLES, FeatureLayer, Finding, Status, Warning_
from ..core.raster import ElevationGrid
from ..core.rulepack import PACK_DIR, RulePack, load_pack
from ..core.serialize import result_to_dict
from ..core.vocabulary import name_matches
from ..services.reach import pack_dem_reach_ft, pack_reach_ft, rule_grows_dem_window
from .dem_source import WktTransform
from .writer import _MULTI, FAMILY, _field_type, finding_row, write_layer

#: Roles whose features belong to one site (the parcel holding their point on surface).
PLAN_ROLES: tuple[str, ...] = ("building_sites", "devices", "clearing", "disturbance", "impervious")
#: Roles shared by every site near them.
CONTEXT_ROLES: tuple[str, ...] = tuple(r for r in ROLES if r not in PLAN_ROLES)
#: DEM margin around what a site needs, feet (as :func:`~stormwater_plugin.headless.reader.read_dem` reads).
DEM_MARGIN_FT: float = 150.0
#: Columns of ``summary.csv``.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "site_parcel",
    "project_class",
    "class_source",
    "violation",
    "undetermined",
    "advisory",
    "pass",
    "worst_status",
    "worst_rule_id",
    "worst_citation",
    "worst_message",
    "findings_json",
    "error",
)
class BatchError(StormwaterError):
    """Unusable batch input; the message says what and where."""


# --------------------------------------------------------------------------- the halo


# --------------------------------------------------------------------------- what a worker gets


@dataclass
class DemSlice:
    """A window of the town's DEM, with what is needed to rebuild an :class:`ElevationGrid`.

    ``values`` are in the band's unit (float32 when that is lossless);
    ``geotransform`` is GDAL order in the DEM's CRS; ``working_wkt`` and
    ``dem_wkt`` name the two CRSs (equal WKT: the DEM is in the working CRS).
    """

    values: np.ndarray
    geotransform: tuple[float, float, float, float, float, float]
    z_to_ft: float
    z_unit_note: str
    cell_size_ft: tuple[float, float] | None
    name: str
    working_wkt: str
    dem_wkt: str
    z_unit_declared: bool = True

    def grid(self) -> ElevationGrid:
        return ElevationGrid(
            values=self.values,
            geotransform=self.geotransform,
            z_to_ft=self.z_to_ft,
            to_raster=WktTransform(self.working_wkt, self.dem_wkt),
            z_unit_note=self.z_unit_note,
            cell_size_ft=self.cell_size_ft,
            name=self.name,
            from_raster=WktTransform(self.dem_wkt, self.working_wkt),
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
    jurisdiction: str
    layers: dict[str, FeatureLayer]
    sites: list[tuple[str, dict[str, np.ndarray]]]
    dem: DemSlice | None
    unit_to_ft: float
    crs_name: str
    class_override: str | None
    warnings: list[Warning_]
    inputs_doc: dict[str, Any]
    #: Site id -> (unit_to_ft, crs_name) with the scale factor taken at that site (as a single-site check takes it).
    site_units: dict[str, tuple[float, str]] = field(default_factory=dict)
    #: The town's whole DEM, read in windows (a picklable :class:`~stormwater_plugin.core.dem_source.DemSource`):
    #: the flow trace grows its windows from it exactly as a single-site check does.
    dem_source: Any = None
    #: Output folder the worker writes each site's findings.json into (``sites/<folders[id]>/``); ``None``: the
    #: worker returns the document and the batch process writes it (a Dask scheduler on other machines).
    write_to: str | None = None
    #: Site id -> its folder name under ``write_to/sites``.
    folders: dict[str, str] = field(default_factory=dict)


@dataclass
class SiteOutcome:
    """What a worker returns for one site: the summary, the findings.json text and the map rows."""

    site_id: str
    partition: int
    project_class: str | None = None
    class_source: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    worst: dict[str, str] | None = None
    has_violation: bool = False
    error: str | None = None
    document: str = ""
    rows: list[tuple[str, dict[str, Any], bytes]] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    #: sha256 of the findings.json the worker wrote ("" when it wrote none).
    sha256: str = ""


# --------------------------------------------------------------------------- the worker side


@lru_cache(maxsize=8)
def _pack(jurisdiction: str) -> RulePack:
    return load_pack(jurisdiction)


def site_inputs(part: Partition, site: tuple[str, dict[str, np.ndarray]], dem: ElevationGrid | None) -> SiteInputs:
    """The :class:`SiteInputs` of one site of a partition (its features, in the town's order)."""
    site_id, index = site
    unit_to_ft, crs_name = part.site_units.get(site_id, (part.unit_to_ft, part.crs_name))
    layers: dict[str, FeatureLayer] = {}
    for role, layer in part.layers.items():
        idx = index.get(role, np.empty(0, dtype=np.int64))
        layers[role] = FeatureLayer(role, layer.geoms[idx], [layer.ids[k] for k in idx], [layer.attrs[k] for k in idx])
    return SiteInputs(
        layers=layers,
        dem=dem,
        unit_to_ft=unit_to_ft,
        crs_name=crs_name,
        site_parcel_id=site_id,
        class_override=part.class_override,
        warnings=list(part.warnings),
        dem_source=part.dem_source,
    )


def _worst(findings: Sequence[Finding]) -> Finding | None:
    if not findings:
        return None
    return min(findings, key=lambda f: (f.status.rank, -(f.number("shortfall_ft") or 0.0)))


def run_partition(part: Partition) -> list[SiteOutcome]:
    """Check every site of a partition; one :class:`SiteOutcome` per site, errors included.

    Runs in a worker process (or Dask worker); imports only the core,
    numpy, shapely and pyproj.
    """
    pack = _pack(part.jurisdiction)
    dem = part.dem.grid() if part.dem is not None else None
    out: list[SiteOutcome] = []
    for site in part.sites:
        t0, c0 = time.perf_counter(), time.process_time()
        outcome = SiteOutcome(site_id=site[0], partition=part.number)
        try:
            inputs_ = site_inputs(part, site, dem)
            result = run_check(inputs_, pack)
            inputs = dict(part.inputs_doc, site_parcel=site[0])
            # Compact JSON: the C encoder (indent= falls back to pure Python, a third of the time per site).
            outcome.document = json.dumps(result_to_dict(result, crs_name=inputs_.crs_name, inputs=inputs), ensure_ascii=False, separators=(",", ":"))
            outcome.project_class = result.project_class
            outcome.class_source = result.class_source
            outcome.counts = result.counts()
            outcome.has_violation = result.has_violation
            w = _worst(result.findings)
            if w is not None:
                outcome.worst = {"status": w.status.value, "rule_id": w.rule_id, "citation": w.citation.text, "message": w.message}
            for f in result.findings:
                g = f.geometry
                fam = FAMILY.get(g.geom_type) if g is not None and not g.is_empty else None
                if fam is None:
                    continue
                row = {"site_parcel": site[0], **finding_row(f)}
                outcome.rows.append((fam, row, shapely.to_wkb(g)))
        except Exception as exc:  # one bad site must not sink the town
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            outcome.error = f"{type(exc).__name__}: {text}"[:300]
        outcome.seconds = time.perf_counter() - t0
        outcome.cpu_seconds = time.process_time() - c0
        if part.write_to is not None and outcome.document:
            outcome.sha256 = _write_site(Path(part.write_to), part.folders[outcome.site_id], outcome)
            outcome.document = ""
        out.append(outcome)
    return out


# --------------------------------------------------------------------------- planning (main process)


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


def _truthy(value: Any) -> bool:
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
    working_wkt: str = "",
    dem_wkt: str = "",
    crs_name: str = "",
    class_override: str | None = None,
    warnings: Sequence[Warning_] = (),
    inputs_doc: dict[str, Any] | None = None,
    sites_per_partition: int | None = None,
    workers: int = 2,
    site_units: dict[str, tuple[float, str]] | None = None,
    dem_source: Any = None,
) -> BatchPlan:
    """Find the sites, give each its features, and tile them into partitions.

    Parameters
    ----------
    layers : dict of FeatureLayer
        The town's layers in the working CRS (as read by
        :func:`~stormwater_plugin.headless.reader.read_site`).
    dem : ElevationGrid or None
        The town's DEM window.
    pack : RulePack
        The jurisdiction's rules (they set the halo).
    unit_to_ft : float
        Working-CRS unit in feet.
    sites_per_partition : int, optional
        Sites per tile; by default about a quarter of the sites per worker,
        between 4 and 200.
    workers : int
        Worker count, for the default tile size.
    site_units : dict, optional
        Site id -> (unit_to_ft, crs_name) with the scale factor at that site
        (:func:`~stormwater_plugin.headless.reader.site_scale`); sites not in
        it use ``unit_to_ft`` and ``crs_name``.
    dem_source : DemSource, optional
        The whole DEM in windows, for rules that read further than their
        fixed window (the flow trace); by default, when the pack has one, an
        in-memory source over ``dem``.

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
                jurisdiction=pack.jurisdiction,
                layers=part_layers,
                sites=part_sites,
                dem=_dem_slice(dem, box_, working_wkt, dem_wkt) if dem is not None else None,
                unit_to_ft=unit_to_ft,
                crs_name=crs_name,
                class_override=class_override,
                warnings=list(warnings),
                inputs_doc=dict(inputs_doc or {}),
                site_units={site_ids[m]: site_units[site_ids[m]] for m in members if site_ids[m] in site_units},
                dem_source=dem_source,
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
        if lost.size:
            unassigned[role] = [layer.ids[k] for k in lost]
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
    for role in CONTEXT_ROLES:
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
        part_layers[role] = FeatureLayer(role, layer.geoms[used], [layer.ids[k] for k in used], [layer.attrs[k] for k in used])
        for (_, idx), chunk in zip(part_sites, chunks):
            idx[role] = np.searchsorted(used, chunk)
    return part_layers, part_sites


def _dem_slice(dem: ElevationGrid, box_: tuple[float, float, float, float], working_wkt: str, dem_wkt: str) -> DemSlice:
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
    return DemSlice(values, gt, dem.z_to_ft, dem.z_unit_note, dem.cell_size_ft, dem.name, working_wkt, dem_wkt, dem.z_unit_declared)


# --------------------------------------------------------------------------- running


def _watch_parent(parent_pid: int, period_s: float = 0.5) -> None:
    """Pool initializer: exit this worker as soon as ``parent_pid`` is gone (the batch was killed, even by ``kill -9``)."""

    def watch() -> None:
        while True:
            time.sleep(period_s)
            if os.getppid() != parent_pid:
                os._exit(3)

    threading.Thread(target=watch, name="stormwater-parent-watch", daemon=True).start()


def _executor_map(partitions: Sequence[Partition], workers: int, scheduler: Any) -> tuple[Iterator[list[SiteOutcome]], Callable[[], None], str]:
    """Run ``run_partition`` on every partition; yields results as they complete.

    Returns the iterator, a close function and a description of the engine.
    """
    if scheduler is not None:
        return _dask_map(partitions, workers, scheduler)
    if workers <= 1 or len(partitions) <= 1:
        return (run_partition(p) for p in partitions), (lambda: None), "this process"
    # spawn: safe whatever threads this process runs (QGIS, Dask, a test runner).
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(partitions)), mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=_watch_parent, initargs=(os.getpid(),))
    futures = [pool.submit(run_partition, p) for p in partitions]

    def results() -> Iterator[list[SiteOutcome]]:
        for fut in concurrent.futures.as_completed(futures):
            yield fut.result()

    def close() -> None:
        for fut in futures:
            fut.cancel()
        pool.shutdown(wait=True)

    return results(), close, f"ProcessPoolExecutor, {min(workers, len(partitions))} processes"


def _dask_map(partitions: Sequence[Partition], workers: int, scheduler: Any) -> tuple[Iterator[list[SiteOutcome]], Callable[[], None], str]:
    try:  # optional: dask (the 'batch' extra)
        from distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise BatchError("--scheduler needs Dask's distributed scheduler: pip install 'dask[distributed]' (the 'batch' extra)") from exc
    cluster = None
    own_client = True
    if isinstance(scheduler, Client):
        client, own_client = scheduler, False
        what = f"Dask scheduler {client.scheduler.address if client.scheduler else '?'}"
    elif str(scheduler) == "local":
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        what = f"Dask LocalCluster, {max(1, workers)} worker processes"
    else:
        try:
            client = Client(str(scheduler), timeout=20)
        except Exception as exc:
            raise BatchError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({exc}); start one with 'dask scheduler' or use --scheduler local") from exc
        what = f"Dask scheduler {scheduler}"
    futures = [client.submit(run_partition, p, pure=False) for p in partitions]

    def results() -> Iterator[list[SiteOutcome]]:
        for fut in as_completed(futures):
            yield fut.result()

    def close() -> None:
        for fut in futures:
            fut.cancel()
        if own_client:
            client.close()
        if cluster is not None:
            cluster.close()

    return results(), close, what


#: Longest site folder name, characters (file systems allow 255 bytes; the rest of the path needs room too).
MAX_FOLDER_CHARS: int = 96


def _safe_name(site_id: str, taken: set[str]) -> str:
    """A unique, file-system-safe folder name for a site id (a long id is cut and keeps a hash of the whole)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", site_id).strip("._") or "site"
    if len(base) > MAX_FOLDER_CHARS:
        base = f"{base[: MAX_FOLDER_CHARS - 13].rstrip('._')}_{hashlib.sha256(site_id.encode('utf-8')).hexdigest()[:12]}"
    name, k = base, 2
    while name.lower() in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name.lower())
    return name


#: The screening's input hash and one line per site checked (see the module docstring).
PROGRESS_FILE = "progress.jsonl"
#: Files of a screening (an earlier screening's are removed before a screening with other inputs starts).
BATCH_FILES: tuple[str, ...] = ("summary.csv", "findings.gpkg", "batch.json", PROGRESS_FILE)


def _file_digest(h: Any, path: Path, whole: bool = True) -> None:
    """Add ``path`` to hash ``h``: its bytes (``whole``), else its size, modification time and first and last MiB."""
    st = path.stat()
    h.update(f"{path.name}:{st.st_size}".encode())
    with path.open("rb") as fh:
        if whole:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
            return
        h.update(str(st.st_mtime_ns).encode())
        h.update(fh.read(1 << 20))
        if st.st_size > 1 << 20:
            fh.seek(max(st.st_size - (1 << 20), 1 << 20))
            h.update(fh.read(1 << 20))


def batch_input_hash(package: Path, dem_path: Path | None, jurisdiction: str, class_override: str | None, layer_options: Sequence[str],
                     dem_z_units: str | None) -> str:
    """A hash of everything a screening's results depend on.

    The site package and every ``--layer`` file (with its sidecars) in full,
    the rule packs and their data files, the options and the checker's
    version; the DEM (often gigabytes) by size, modification time and its
    first and last MiB.
    """
    h = hashlib.sha256()
    h.update(json.dumps({"version": __version__, "jurisdiction": jurisdiction, "class": class_override, "layers": list(layer_options),
                         "z": dem_z_units}).encode())
    for pack_file in sorted(PACK_DIR.glob("*.json")):
        _file_digest(h, pack_file)
    files = [Path(package)] if package else []
    for opt in layer_options:
        path = Path(opt.split("=", 1)[-1])
        if not path.exists() and ":" in path.name:
            path = path.with_name(path.name.rsplit(":", 1)[0])
        if path.is_file():
            files.extend(sorted(p for p in path.parent.glob(path.stem + ".*") if p.is_file()))
    for f in files:
        if f.is_file():
            _file_digest(h, f)
    if dem_path is not None and Path(dem_path).is_file():
        _file_digest(h, Path(dem_path), whole=False)
    return h.hexdigest()


def _outcome_record(o: SiteOutcome, folder: str, digest: str) -> str:
    d = dataclasses.asdict(o)
    d.pop("document", None)
    d["rows"] = [[fam, row, wkb.hex()] for fam, row, wkb in o.rows]
    return json.dumps({"site": o.site_id, "folder": folder, "sha256": digest, "outcome": d}, ensure_ascii=False, separators=(",", ":"))


def _outcome_from_record(d: dict[str, Any]) -> SiteOutcome:
    o = dict(d)
    o["rows"] = [(fam, row, bytes.fromhex(wkb)) for fam, row, wkb in o.get("rows", [])]
    return SiteOutcome(**o)


def _start_screening(out: Path, input_hash: str, say: Callable[[str], None]) -> dict[str, SiteOutcome]:
    """Prepare ``out`` for a screening with ``input_hash``; the sites an interrupted run of the same screening already checked.

    A site counts as checked when ``progress.jsonl`` records it under the
    same input hash and its findings.json still has the recorded hash. With
    other inputs (or no record) the earlier screening's files and site
    folders are removed. Either way summary.csv and findings.gpkg go until
    this run writes them, and batch.json says ``incomplete``.
    """
    progress = out / PROGRESS_FILE
    done: dict[str, SiteOutcome] = {}
    records: list[str] = []
    same = False
    if progress.exists():
        try:
            lines = progress.read_text(encoding="utf-8").splitlines()
            same = bool(lines) and json.loads(lines[0]).get("input_hash") == input_hash
            for line in lines[1:] if same else []:
                try:
                    rec = json.loads(line)
                except ValueError:  # a line cut by the interruption
                    continue
                doc = out / "sites" / rec["folder"] / "findings.json"
                if doc.is_file() and hashlib.sha256(doc.read_bytes()).hexdigest() == rec["sha256"]:
                    done[rec["site"]] = _outcome_from_record(rec["outcome"])
                    records.append(line)
        except (OSError, ValueError, KeyError, TypeError):
            same, done, records = False, {}, []
    earlier = any((out / n).exists() for n in BATCH_FILES)
    try:
        if not same and earlier:
            say("removing the earlier screening's outputs from the folder (its inputs differ)")
            shutil.rmtree(out / "sites", ignore_errors=True)
        for name in ("summary.csv", "findings.gpkg") + (() if same else ("batch.json", PROGRESS_FILE)):
            (out / name).unlink(missing_ok=True)
        (out / "sites").mkdir(exist_ok=True)
        (out / "batch.json").write_text(json.dumps({
            "status": "incomplete", "input_hash": input_hash,
            "note": "this screening has not finished: summary.csv and findings.gpkg are written at its end; run the same command again to resume it",
        }, indent=2), encoding="utf-8")
        _replace_text(progress, "\n".join([json.dumps({"input_hash": input_hash})] + records) + "\n")
    except OSError as exc:
        raise BatchError(f"{out}: cannot write the output folder ({exc.strerror})") from exc
    if done:
        say(f"resuming: {len(done)} site(s) already checked by an interrupted run of the same screening")
    return done


def _replace_text(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a temporary file beside it, then a rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@dataclass
class BatchReport:
    """What a batch run did."""

    out: Path
    n_sites: int
    n_partitions: int
    engine: str
    halo_ft: float
    with_violation: int
    errors: list[tuple[str, str]]
    counts: dict[str, int]
    seconds: dict[str, float]
    unassigned: dict[str, list[str]]

    @property
    def exit_code(self) -> int:
        """2 when a site could not be checked, else 1 when any site has a violation, else 0."""
        if self.errors:
            return 2
        return 1 if self.with_violation else 0


def run_batch(
    package: Path,
    dem_path: Path | None,
    jurisdiction: str,
    out: Path,
    *,
    class_override: str | None = None,
    workers: int = 2,
    scheduler: Any = None,
    layer_options: Sequence[str] = (),
    dem_z_units: str | None = None,
    sites_per_partition: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> BatchReport:
    """Check every site parcel of ``package`` and write the batch outputs into ``out``.

    Parameters
    ----------
    package : Path
        A site package with many site parcels (``is_site`` set on each).
    dem_path : Path or None
        The DEM covering the town.
    jurisdiction : str
        Rule pack name.
    out : Path
        Output folder (created).
    class_override : str, optional
        Project class for every site (``--class``).
    workers : int, default 2
        Processes (process pool), or LocalCluster workers; 1 runs in this process.
    scheduler : None, "local", str or distributed.Client
        ``None``: the process pool. Otherwise Dask: a LocalCluster, a
        scheduler address (``tcp://host:8786``) or a connected client.
    sites_per_partition : int, optional
        Sites per tile (default: see :func:`plan_batch`).

    Raises
    ------
    InputError, BatchError, PackError
        Unusable input, before any site is checked.
    """
    # lazy: the reader loads geopandas, rasterio and fiona, which the spawned workers (they import this module) never need
    from .reader import dem_crs, read_site, site_units

    say = progress or (lambda _m: None)
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    pack = load_pack(jurisdiction)
    if not package.exists():
        raise BatchError(f"{package}: site package not found")
    loaded = read_site(package, list(layer_options), dem_path, dem_z_units, None, class_override, pack=pack)
    times["read_s"] = time.perf_counter() - t0
    inputs = loaded.inputs
    dem_wkt = ""
    if inputs.dem is not None:
        dem_wkt = dem_crs(Path(loaded.dem_path or "")).to_wkt()
    inputs_doc = {
        "site": str(package),
        "layers": loaded.sources,
        "dem": loaded.dem_path,
        "dem_z": inputs.dem.z_unit_note if inputs.dem else None,
        "batch": True,
    }
    t1 = time.perf_counter()
    plan = plan_batch(
        inputs.layers,
        inputs.dem,
        pack,
        inputs.unit_to_ft,
        working_wkt=loaded.crs.to_wkt(),
        dem_wkt=dem_wkt,
        crs_name=inputs.crs_name,
        class_override=class_override,
        warnings=inputs.warnings,
        inputs_doc=inputs_doc,
        sites_per_partition=sites_per_partition,
        workers=_worker_count(workers, scheduler),
        site_units=site_units(loaded),
        dem_source=inputs.dem_source,
    )
    times["plan_s"] = time.perf_counter() - t1
    say(f"{len(plan.site_ids)} site(s) in {len(plan.partitions)} partition(s); halo {plan.halo_ft:g} ft")
    for role, ids in plan.unassigned.items():
        say(f"warning: {len(ids)} {role} feature(s) lie in no site parcel and were not checked ({', '.join(ids[:5])}{'…' if len(ids) > 5 else ''})")

    folder = _make_output_folders(out, plan.site_ids)
    done = _start_screening(out, batch_input_hash(package, dem_path, jurisdiction, class_override, layer_options, dem_z_units), say)
    t2 = time.perf_counter()
    outcomes, engine = _run_partitions(plan, workers, scheduler, out, folder, say, done)
    times["check_s"] = time.perf_counter() - t2

    t3 = time.perf_counter()
    ordered = [outcomes[s] for s in plan.site_ids]
    try:
        tmp_csv, tmp_gpkg = out / ".summary.csv.tmp", out / ".findings.gpkg.tmp"
        _write_summary(tmp_csv, ordered, folder)
        _write_gpkg(tmp_gpkg, ordered, plan, inputs.layers["parcels"], loaded.crs)
        os.replace(tmp_csv, out / "summary.csv")
        os.replace(tmp_gpkg, out / "findings.gpkg")
    except OSError as exc:
        raise BatchError(f"{out}: cannot write the summary ({exc.strerror})") from exc
    times["write_s"] = time.perf_counter() - t3
    times["total_s"] = time.perf_counter() - t0
    totals = {s.value: 0 for s in Status}
    for o in ordered:
        for k, v in o.counts.items():
            totals[k] += v
    report = BatchReport(
        out=out,
        n_sites=len(ordered),
        n_partitions=len(plan.partitions),
        engine=engine,
        halo_ft=plan.halo_ft,
        with_violation=sum(1 for o in ordered if o.has_violation),
        errors=[(o.site_id, o.error) for o in ordered if o.error],
        counts=totals,
        seconds=times,
        unassigned=plan.unassigned,
    )
    meta = _batch_meta(report, plan, ordered, jurisdiction, package, dem_path, class_override, inputs.crs_name)
    meta["status"] = "complete"
    meta["sites_resumed"] = len([s for s in plan.site_ids if s in done])
    _replace_text(out / "batch.json", json.dumps(meta, indent=2, ensure_ascii=False))
    return report


def _worker_count(workers: int, scheduler: Any) -> int:
    """Workers, for the default tile size: a connected Dask client's thread count, else ``workers``."""
    n_workers = workers
    if scheduler is not None and not isinstance(scheduler, str):
        try:
            n_workers = max(1, sum(scheduler.nthreads().values()))
        except Exception:
            n_workers = workers
    return n_workers


def _make_output_folders(out: Path, site_ids: Sequence[str]) -> dict[str, str]:
    """Create ``out`` and ``out/sites``; each site's folder name (unique, file-system safe)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "sites").mkdir(exist_ok=True)
    except OSError as exc:
        raise BatchError(f"{out}: cannot create the output folder ({exc.strerror})") from exc
    taken: set[str] = set()
    return {sid: _safe_name(sid, taken) for sid in site_ids}


def _write_site(out: Path, name: str, o: SiteOutcome) -> str:
    """Write one site's findings.json whole or not at all; its sha256 (a failure becomes the site's error, not the batch's)."""
    d = out / "sites" / name
    try:
        d.mkdir(exist_ok=True)
        _replace_text(d / "findings.json", o.document)
    except OSError as exc:
        o.error = f"cannot write {d / 'findings.json'}: {exc.strerror or exc}"[:300]
        o.rows, o.counts, o.worst, o.has_violation = [], {}, None, False
        return ""
    return hashlib.sha256(o.document.encode("utf-8")).hexdigest()


def _run_partitions(
    plan: BatchPlan, workers: int, scheduler: Any, out: Path, folder: Mapping[str, str], say: Callable[[str], None],
    done: Mapping[str, SiteOutcome] | None = None,
) -> tuple[dict[str, SiteOutcome], str]:
    """Run every partition (less the sites ``done`` already), writing each site's findings.json and progress line as its partition completes.

    Returns the outcomes by site id and the engine's description.
    """
    outcomes: dict[str, SiteOutcome] = dict(done or {})
    todo = [dataclasses.replace(p, sites=[s for s in p.sites if s[0] not in outcomes]) for p in plan.partitions]
    todo = [p for p in todo if p.sites]
    if not todo:
        return outcomes, "nothing to run (every site resumed)"
    if scheduler is None or str(scheduler) == "local":  # the workers share this file system: each writes its sites' findings.json
        todo = [dataclasses.replace(p, write_to=str(out), folders={s[0]: folder[s[0]] for s in p.sites}) for p in todo]
    results, close, engine = _executor_map(todo, workers, scheduler)
    n_done = 0
    try:
        with (out / PROGRESS_FILE).open("a", encoding="utf-8") as progress:
            for batch in results:
                for o in batch:
                    digest = o.sha256 or (_write_site(out, folder[o.site_id], o) if o.document else "")
                    o.document, o.sha256 = "", ""
                    if digest:
                        progress.write(_outcome_record(o, folder[o.site_id], digest) + "\n")
                    outcomes[o.site_id] = o
                progress.flush()
                n_done += 1
                say(f"partition {n_done}/{len(todo)} done ({len(outcomes)} sites)")
    finally:
        close()
    return outcomes, engine


def _batch_meta(
    report: BatchReport,
    plan: BatchPlan,
    ordered: Sequence[SiteOutcome],
    jurisdiction: str,
    package: Path,
    dem_path: Path | None,
    class_override: str | None,
    crs_name: str,
) -> dict[str, Any]:
    """The batch.json document: inputs, partitions, halo (ft), engine, counts, errors, timings (s)."""
    return {
        "jurisdiction": jurisdiction,
        "package": str(package),
        "dem": str(dem_path) if dem_path else None,
        "class_override": class_override,
        "sites": len(ordered),
        "partitions": len(plan.partitions),
        "sites_per_partition": [len(p.sites) for p in plan.partitions],
        "halo_ft": plan.halo_ft if math.isfinite(plan.halo_ft) else None,  # a flow trace of no declared length: every feature is context
        "engine": report.engine,
        "working_crs": crs_name,
        "sites_with_violation": report.with_violation,
        "counts": report.counts,
        "errors": [{"site_parcel": s, "error": e} for s, e in report.errors],
        "unassigned_features": plan.unassigned,
        "seconds": {k: round(v, 3) for k, v in report.seconds.items()},
        "site_check_seconds": round(sum(o.seconds for o in ordered), 3),
        "site_check_cpu_seconds": round(sum(o.cpu_seconds for o in ordered), 3),
    }


def _write_summary(path: Path, outcomes: Iterable[SiteOutcome], folder: dict[str, str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(SUMMARY_COLUMNS))
        w.writeheader()
        for o in outcomes:
            worst = o.worst or {}
            w.writerow(
                {
                    "site_parcel": o.site_id,
                    "project_class": o.project_class or "",
                    "class_source": o.class_source or "",
                    "violation": o.counts.get("violation", ""),
                    "undetermined": o.counts.get("undetermined", ""),
                    "advisory": o.counts.get("advisory", ""),
                    "pass": o.counts.get("pass", ""),
                    "worst_status": worst.get("status", "error" if o.error else ""),
                    "worst_rule_id": worst.get("rule_id", ""),
                    "worst_citation": worst.get("citation", ""),
                    "worst_message": worst.get("message", ""),
                    "findings_json": f"sites/{folder[o.site_id]}/findings.json" if not o.error else "",
                    "error": o.error or "",
                }
            )


def _write_gpkg(path: Path, outcomes: Sequence[SiteOutcome], plan: BatchPlan, parcels: FeatureLayer, crs: Any) -> None:
    """findings_points/lines/areas with a site_parcel column, and the site parcels with their counts.

    Each layer in bulk: one fiona session and one ``writerecords`` call (one
    transaction), no pandas; geometries promoted to the family's multi type
    as in the single-site findings.gpkg.
    """
    if path.exists():
        path.unlink()
    groups: dict[str, tuple[list[dict[str, Any]], list[bytes]]] = {"points": ([], []), "lines": ([], []), "areas": ([], [])}
    for o in outcomes:
        for fam, row, wkb in o.rows:
            groups[fam][0].append(row)
            groups[fam][1].append(wkb)
    for fam, (rows, wkbs) in groups.items():
        if rows:
            _bulk_layer(path, f"findings_{fam}", rows, shapely.from_wkb(np.array(wkbs, dtype=object)), fam, crs)
    by_id = {o.site_id: o for o in outcomes}
    rows = []
    geoms = []
    for sid, members in zip(plan.site_ids, plan.site_parcels):
        o = by_id[sid]
        worst = o.worst or {}
        rows.append(
            {
                "site_parcel": sid,
                "project_class": o.project_class,
                "violation": o.counts.get("violation"),
                "undetermined": o.counts.get("undetermined"),
                "advisory": o.counts.get("advisory"),
                "pass": o.counts.get("pass"),
                "worst_status": worst.get("status", "error" if o.error else None),
                "worst_rule_id": worst.get("rule_id"),
                "error": o.error,
            }
        )
        geoms.append(shapely.union_all(parcels.geoms[members]) if len(members) > 1 else parcels.geoms[members[0]])
    _bulk_layer(path, "site_parcels", rows, np.array(geoms, dtype=object), "areas", crs)


_MULTI_OF = {"points": (0, shapely.multipoints), "lines": (1, shapely.multilinestrings), "areas": (3, shapely.multipolygons)}


def _bulk_layer(path: Path, name: str, rows: list[dict[str, Any]], geoms: np.ndarray, family: str, crs: Any) -> None:
    """One GeoPackage layer written in bulk: the layer made by fiona (schema, CRS), the rows by one SQLite transaction.

    The same table as :func:`~stormwater_plugin.headless.writer.write_layer`
    writes (columns, types, geometries promoted to the family's multi type),
    without an R-tree index (readers scan; a town's findings are read whole)
    and without converting each geometry to Python coordinates: the
    geometry blobs are the GeoPackage header (envelope) plus the WKB. A layer
    with 3D geometries, a missing one or an empty one goes through
    ``write_layer``.
    """
    import sqlite3
    import struct

    import fiona  # lazy: the spawned workers never write

    geoms = np.asarray(geoms, dtype=object)
    single_id, make_multi = _MULTI_OF[family]
    if len(geoms) == 0 or not shapely.is_geometry(geoms).all() or shapely.is_empty(geoms).any() or shapely.has_z(geoms).any():
        write_layer(path, name, rows, list(geoms), family, crs)
        return
    single = shapely.get_type_id(geoms) == single_id
    if single.any():
        geoms = geoms.copy()
        geoms[single] = make_multi(geoms[single].reshape(-1, 1))
    columns: list[str] = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    props = {c: _field_type([r.get(c) for r in rows]) for c in columns} or {"status": "str"}
    with fiona.open(str(path), "w", driver="GPKG", layer=name, schema={"geometry": _MULTI[family], "properties": props}, crs_wkt=crs.to_wkt(),
                    SPATIAL_INDEX="NO"):
        pass
    bounds = shapely.bounds(geoms)
    wkbs = shapely.to_wkb(geoms, byte_order=1)
    con = sqlite3.connect(str(path))
    try:
        geom_col, srs_id = con.execute("SELECT column_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?", (name,)).fetchone()
        head = struct.Struct("<2sBBi4d")

        def value(c: str, v: Any) -> Any:
            if v is None:
                return None
            t = props[c]
            return str(v) if t == "str" else int(v) if t in ("int", "bool") else float(v)

        records = (
            (head.pack(b"GP", 0, 0x03, srs_id, b[0], b[2], b[1], b[3]) + w, *[value(c, r.get(c)) for c in props])
            for r, b, w in zip(rows, bounds, wkbs)
        )
        cols = ", ".join(f'"{c}"' for c in [geom_col, *props])
        with con:
            con.executemany(f'INSERT INTO "{name}" ({cols}) VALUES ({", ".join("?" * (len(props) + 1))})', records)
            con.execute(
                "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?",
                (float(bounds[:, 0].min()), float(bounds[:, 1].min()), float(bounds[:, 2].max()), float(bounds[:, 3].max()), name),
            )
    finally:
        con.close()


__all__ = [
    "BatchError",
    "BatchPlan",
    "BatchReport",
    "CONTEXT_ROLES",
    "DemSlice",
    "PLAN_ROLES",
    "Partition",
    "SUMMARY_COLUMNS",
    "SiteOutcome",
    "pack_reach_ft",
    "plan_batch",
    "run_batch",
    "run_partition",
    "site_inputs",
]
