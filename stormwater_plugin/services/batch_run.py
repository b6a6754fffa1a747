"""Batch screening, the run: every site of a partition checked on its own.

The use case's second half (the first is :mod:`.batch_plan`): a worker
process (or a Dask worker, or the batch process itself) calls
:func:`check_sites` on the :class:`~.batch_plan.Partition` it was sent. Each
site gets its own :class:`~stormwater_plugin.core.model.SiteInputs` and is
checked by :func:`~stormwater_plugin.services.site_source.check_site`, the use
case of every front end, with the partition's options: its findings.json is the
single-site check's document (finding keys and override counts included; no
move suggestions unless the options ask for them). One
site's failure is that site's error, never the town's.

QGIS-free and file-free: the core, numpy and shapely. The adapter that runs
the partitions writes the files (:mod:`stormwater_plugin.headless.batch`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

import numpy as np

from ..core.model import FeatureLayer, Finding, SiteInputs
from ..core.raster import ElevationGrid
from ..core.roles import PLAN_ROLES
from .batch_plan import Partition
from .findings_doc import findings_json
from .site_source import ReadSite, SiteRead, SiteReviewError, check_site

#: A finding's map row for the batch's findings.gpkg: (site id, finding) -> (family, row, WKB), or ``None`` (no geometry).
MapRow = Callable[[str, Finding], "tuple[str, dict[str, object], bytes] | None"]


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
    rows: list[tuple[str, dict[str, object], bytes]] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    #: sha256 of the findings.json the worker wrote ("" when it wrote none).
    sha256: str = ""


def site_inputs(part: Partition, site: tuple[str, dict[str, np.ndarray]], dem: ElevationGrid | None) -> SiteInputs:
    """The :class:`SiteInputs` of one site of a partition (its features, in the town's order)."""
    site_id, index = site
    unit_to_ft, crs_name = part.site_units.get(site_id, (part.unit_to_ft, part.crs_name))
    layers: dict[str, FeatureLayer] = {}
    for role, layer in part.layers.items():
        idx = index.get(role, np.empty(0, dtype=np.int64))
        # the features the read could not place (no_geometry) are every site's context, as a single-site check has them;
        # a plan feature without a place belongs to no site (the plan lists it as unassigned)
        placeless = dict(layer.no_geometry) if role not in PLAN_ROLES else {}
        layers[role] = FeatureLayer(role, layer.geoms[idx], [layer.ids[k] for k in idx], [layer.attrs[k] for k in idx], placeless)
    return SiteInputs(
        layers=layers,
        dem=dem,
        unit_to_ft=unit_to_ft,
        crs_name=crs_name,
        site_parcel_id=site_id,
        warnings=list(part.warnings),
        dem_source=part.dem_source,
    )


def _worst(findings: Sequence[Finding]) -> Finding | None:
    if not findings:
        return None
    return min(findings, key=lambda f: (f.status.rank, -(f.number("shortfall_ft") or 0.0)))


def check_sites(part: Partition, map_row: MapRow | None = None) -> Iterator[SiteOutcome]:
    """Check every site of a partition; one :class:`SiteOutcome` per site, as each is done, errors included.

    Parameters
    ----------
    part : Partition
    map_row : callable, optional
        A finding's row for the town's findings.gpkg (:data:`MapRow`); without it, no rows.
    """
    dem = part.dem.grid() if part.dem is not None else None
    for site in part.sites:
        t0, c0 = time.perf_counter(), time.process_time()
        outcome = SiteOutcome(site_id=site[0], partition=part.number)
        try:
            inputs_ = site_inputs(part, site, dem)
            inputs = dict(part.inputs_doc, site_parcel=site[0])
            # The one review use case of every front end, on the site as the plan cut it out of the town.
            review = check_site(ReadSite(SiteRead(inputs_, "", inputs)), part.pack, part.options).review
            result = review.result
            # Compact JSON: the C encoder (indent= falls back to pure Python, a third of the time per site).
            outcome.document = json.dumps(findings_json(review.document), ensure_ascii=False, separators=(",", ":"))
            outcome.project_class = result.project_class
            outcome.class_source = result.class_source
            outcome.counts = result.counts()
            outcome.has_violation = result.has_violation
            w = _worst(result.findings)
            if w is not None:
                outcome.worst = {"status": w.status.value, "rule_id": w.rule_id, "citation": w.citation.text, "message": w.message}
            if map_row is not None:
                for f in result.findings:
                    row = map_row(site[0], f)
                    if row is not None:
                        outcome.rows.append(row)
        except Exception as exc:  # noqa: BLE001 - one bad site must not sink the town
            # the engine's own error names the site's problem, as the summary has always said it
            err: BaseException = exc.__cause__ if isinstance(exc, SiteReviewError) and exc.__cause__ is not None else exc
            text = str(err).strip().splitlines()[0] if str(err).strip() else ""
            outcome.error = f"{type(err).__name__}: {text}"[:300]
        outcome.seconds = time.perf_counter() - t0
        outcome.cpu_seconds = time.process_time() - c0
        yield outcome


__all__ = ["MapRow", "SiteOutcome", "check_sites", "site_inputs"]
