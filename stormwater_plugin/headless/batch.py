"""Batch screening: check every site parcel of a town in one run, over spatial partitions.

This module is the command line's adapter: it reads the package and the DEM
(:mod:`.reader`), plans with :func:`~stormwater_plugin.services.batch_plan.plan_batch`,
runs the partitions (:mod:`.batch_exec`; each worker, :mod:`.batch_worker`, checks its sites with
:func:`~stormwater_plugin.services.batch_run.check_sites`) and writes the
outputs (:mod:`.batch_io`).

The input is a site package like the one ``stormwater-check check`` reads,
holding many site parcels (``is_site`` set on each). Plan features
(:data:`~stormwater_plugin.core.roles.PLAN_ROLES`: devices, building sites, clearing, disturbance,
impervious areas) belong to the site parcel that contains their
``point_on_surface``; every other role is context (wells, septic systems,
shoreline, parcels…) and is shared by all the sites near it.

How a site is checked
---------------------
Each site gets its own :class:`~stormwater_plugin.core.model.SiteInputs`:
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
(each layer in one SQLite transaction, see :func:`.batch_io._bulk_layer`).

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
``kill -9``) they exit within a second, the process pool's and a
LocalCluster's alike (:class:`~.batch_dask.ParentWatch`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, cast

from ..core.model import FeatureLayer, Status
from ..core.raster import ElevationGrid
from ..core.rulepack import RulePack, load_pack
from ..services import batch_plan as _plan
from ..services import safe_files
from ..services.batch_plan import DEM_MARGIN_FT, BatchError, BatchPlan, DemSlice, Partition, pack_reach_ft
from ..services.batch_run import SiteOutcome, site_inputs
from ..services.output_manifest import OutputFolderError
from ..services.site_source import ReviewOptions
from .batch_exec import executor_map, worker_count
from .batch_io import (  # noqa: F401 - _bulk_layer: its tests import it from here
    BATCH_FILES,
    MAX_FOLDER_CHARS,
    PROGRESS_FILE,
    SUMMARY_COLUMNS,
    _bulk_layer,
    batch_input_hash,
    make_output_folders,
    outcome_record,
    publish_files,
    replace_text,
    site_file,
    start_screening,
    write_gpkg,
    write_site,
    write_summary,
)
from .batch_worker import run_partition
from .dem_source import WktTransform
from .site_source import FileSiteSource

if TYPE_CHECKING:  # the reader itself is imported where used (it loads geopandas, rasterio and fiona)
    from .reader import LoadedSite


def plan_batch(
    layers: dict[str, FeatureLayer],
    dem: ElevationGrid | None,
    pack: RulePack,
    unit_to_ft: float,
    *,
    working_wkt: str = "",
    dem_wkt: str = "",
    **kwargs: Any,
) -> BatchPlan:
    """:func:`~stormwater_plugin.services.batch_plan.plan_batch` with the DEM's transforms given as the two CRSs' WKT.

    Each partition's DEM slice carries picklable :class:`~.dem_source.WktTransform`
    objects (working CRS to the DEM's CRS and back), built lazily in the worker.
    """
    transforms = (WktTransform(working_wkt, dem_wkt), WktTransform(dem_wkt, working_wkt)) if dem is not None else None
    return _plan.plan_batch(layers, dem, pack, unit_to_ft, dem_transforms=transforms, **kwargs)


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
    workers: int = 2,
    scheduler: Any = None,
    layer_options: Sequence[str] = (),
    dem_z_units: str | None = None,
    sites_per_partition: int | None = None,
    progress: Callable[[str], None] | None = None,
    options: ReviewOptions | None = None,
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
    workers : int, default 2
        Processes (process pool), or LocalCluster workers; 1 runs in this process.
    scheduler : None, "local", str or distributed.Client
        ``None``: the process pool. Otherwise Dask: a LocalCluster, a
        scheduler address (``tcp://host:8786``) or a connected client.
    sites_per_partition : int, optional
        Sites per tile (default: see :func:`plan_batch`).
    options : ReviewOptions, optional
        The review's options for every site (stated accuracy, the project class of ``--class``), as ``stormwater-check check``
        states them; no callables (they travel to the workers). By default none, and no moves.

    Raises
    ------
    InputError, BatchError, PackError
        Unusable input, before any site is checked.
    """
    # lazy: the reader loads geopandas, rasterio and fiona; importing this module for its names (tests, the register) need not
    from .reader import site_units

    say = progress or (lambda _m: None)
    options = options if options is not None else ReviewOptions(moves=False)
    class_override = options.project_class
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    pack = load_pack(jurisdiction)
    if not package.exists():
        raise BatchError(f"{package}: site package not found")
    # The command line's site source, as `stormwater-check check` reads a site (the whole town, no site parcel).
    site = FileSiteSource(package, list(layer_options), dem_path, dem_z_units, None).read(pack)
    loaded = cast("LoadedSite", site.source)  # the file source's own record of the read
    times["read_s"] = time.perf_counter() - t0
    inputs = loaded.inputs
    dem_wkt = ""
    if inputs.dem is not None:
        dem_wkt = loaded.dem_wkt  # the CRS the read took from the DEM it opened
    inputs_doc = {**site.description, "batch": True}
    t1 = time.perf_counter()
    plan = plan_batch(
        inputs.layers,
        inputs.dem,
        pack,
        inputs.unit_to_ft,
        working_wkt=loaded.crs.to_wkt(),
        dem_wkt=dem_wkt,
        crs_name=inputs.crs_name,
        warnings=inputs.warnings,
        inputs_doc=inputs_doc,
        sites_per_partition=sites_per_partition,
        workers=worker_count(workers, scheduler),
        site_units=site_units(loaded),
        dem_source=inputs.dem_source,
        options=options,
    )
    times["plan_s"] = time.perf_counter() - t1
    say(f"{len(plan.site_ids)} site(s) in {len(plan.partitions)} partition(s); halo {plan.halo_ft:g} ft")
    for role, ids in plan.unassigned.items():
        say(f"warning: {len(ids)} {role} feature(s) lie in no site parcel and were not checked ({', '.join(ids[:5])}{'…' if len(ids) > 5 else ''})")

    folder = make_output_folders(out, plan.site_ids)
    done = start_screening(out, batch_input_hash(package, dem_path, jurisdiction, class_override, layer_options, dem_z_units,
                                                   options.accuracy, options.dem_vertical_accuracy_ft), say,
                           site_files=[site_file(folder[s]) for s in plan.site_ids])
    t2 = time.perf_counter()
    outcomes, engine = _run_partitions(plan, workers, scheduler, out, folder, say, done)
    times["check_s"] = time.perf_counter() - t2

    t3 = time.perf_counter()
    ordered = [outcomes[s] for s in plan.site_ids]
    try:
        tmp_csv, tmp_gpkg = out / ".summary.csv.tmp", out / ".findings.gpkg.tmp"
        write_summary(tmp_csv, ordered, folder)
        write_gpkg(tmp_gpkg, ordered, plan, inputs.layers["parcels"], loaded.crs)
        publish_files(out, [("summary.csv", str(tmp_csv)), ("findings.gpkg", str(tmp_gpkg))])
    except OutputFolderError as exc:
        raise BatchError(str(exc)) from exc
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
    try:
        publish_files(out, [("batch.json", safe_files.stage(out / "batch.json", json.dumps(meta, indent=2, ensure_ascii=False).encode("utf-8")))])
    except OutputFolderError as exc:
        raise BatchError(str(exc)) from exc
    return report


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
    results, close, engine = executor_map(todo, workers, scheduler)
    n_done = 0
    try:
        with (out / PROGRESS_FILE).open("a", encoding="utf-8") as progress:
            for batch in results:
                for o in batch:
                    digest = o.sha256 or (write_site(out, folder[o.site_id], o) if o.document else "")
                    o.document, o.sha256 = "", ""
                    if digest:
                        progress.write(outcome_record(o, folder[o.site_id], digest) + "\n")
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



__all__ = [
    "BATCH_FILES",
    "BatchError",
    "BatchPlan",
    "BatchReport",
    "DEM_MARGIN_FT",
    "DemSlice",
    "MAX_FOLDER_CHARS",
    "PROGRESS_FILE",
    "Partition",
    "SUMMARY_COLUMNS",
    "SiteOutcome",
    "batch_input_hash",
    "pack_reach_ft",
    "plan_batch",
    "run_batch",
    "run_partition",
    "site_inputs",
]
