"""What of a town's context catalog is read around one site, and in what order: decided once, fetched by a backend.

The file reader (``headless.context_reader``, fiona) implements :class:`ContextFetch`: reading one source's features
inside a box, moving boxes and geometries between CRSs, writing a role's features and opening the catalog's DEM.
The decisions are here: the search area (the plan's bounds in a projected CRS, :func:`start_search`), grown to the
catalog's site parcels (found by the engine's rule) when the catalog gives the parcels, plus the pack's largest
reach; which roles the catalog gives (none the plan gives); which are written (a feature found, or a source whose
extent holds the whole area: none within reach); and every note the findings carry
(:mod:`~stormwater_plugin.services.context_notes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generic, Mapping, Protocol, Sequence, TypeVar

from shapely.geometry import box
from shapely.geometry.base import BaseGeometry

from ..core.model import Warning_
from ..core.rulepack import RulePack
from ..core.units import feet_per_unit
from .backend import CrsBackend
from .context_area import Box, box_of, catalog_site_parcels, context_reach, grow_box, union_boxes
from .context_catalog import ContextCatalog, ContextSource
from .context_notes import SITE_NOTES, ContextRead, dem_notes, given_notes, hint_notes, partial_cover_note, read_notes
from .site_crs import area_crs

C = TypeVar("C")


class CatalogRows(Protocol[C]):
    """One source's features as a backend read them (its CRS ``None`` when it has none)."""

    geoms: list[BaseGeometry]
    props: list[dict[str, object]]
    crs: C | None
    #: The source's extent holds the whole search area (no feature found then means none within reach).
    covers: bool


class ContextFetch(Protocol[C]):
    """A backend's side of a context read."""

    def read(self, src: ContextSource, area: Box, area_crs: C) -> CatalogRows[C]:
        """The source's features meeting ``area`` (a box in ``area_crs``), its ``where`` applied, its fields renamed to the role's."""
        ...

    def bounds_in(self, b: Box, src: C, dst: C) -> Box:
        """A box of ``src`` as a box of ``dst``."""
        ...

    def to_area(self, g: BaseGeometry, src: C, dst: C) -> BaseGeometry:
        """A geometry of ``src`` in ``dst``."""
        ...

    def plan_geometries(self, area_crs: C) -> dict[str, list[BaseGeometry]]:
        """The plan's own features (not its parcels) by role, in ``area_crs``."""
        ...

    def write(self, role: str, rows: Sequence[CatalogRows[C]]) -> str:
        """Write a role's sources as one layer; the reader's ``ROLE=PATH:LAYER`` for it."""
        ...

    def dem(self, src: ContextSource) -> Path:
        """The catalog's DEM as a file the reader opens (a VRT over its tiles)."""
        ...


@dataclass
class ContextSearch(Generic[C]):
    """The search area before the catalog's parcels are read: the plan's bounds in ``crs``, and the reach in feet."""

    crs: C
    area: Box
    reach_ft: float
    metres_per_unit: float

    def units(self, ft: float) -> float:
        """``ft`` feet in the area CRS's units."""
        return ft / feet_per_unit(self.metres_per_unit)


def start_search(
    catalog: ContextCatalog, pack: RulePack, backend: CrsBackend[C], fetch: ContextFetch[C], plan_bounds: Callable[[], Sequence[tuple[Box, C]]],
    given_by: Mapping[str, str], res: ContextRead,
) -> ContextSearch[C]:
    """The reach (:func:`~stormwater_plugin.services.context_area.context_reach`) and the plan's bounds (``plan_bounds()``, called
    once the reach is known; at least one) in a
    projected CRS (:func:`~stormwater_plugin.services.site_crs.area_crs`); ``res`` takes the notes (the roles given elsewhere:
    ``given_by`` role to ``"the site package"``, ``"--layer"``, ``"--dem"``).

    Raises
    ------
    CatalogError
        A rule of unlimited reach and no ``flow_reach_ft`` in the catalog.
    """
    reach, notes = context_reach(catalog, pack)
    res.warnings.extend(notes)
    res.reach_ft = reach
    bounds = plan_bounds()
    crs = area_crs(backend, bounds)
    search = ContextSearch(crs, union_boxes(fetch.bounds_in(b, c, crs) for b, c in bounds), reach, backend.describe(crs).metres_per_unit)
    res.warnings.extend(given_notes(catalog.roles(), given_by))
    return search


def take_property_line(
    res: ContextRead, option: str, used: Sequence[tuple[ContextSource, int]], site_id: str, note: str, site_parcel_id: str | None,
) -> None:
    """Record in ``res`` a CAD plan's own property line landed on a catalog tax parcel (``site_id``, said in ``note``).

    The landed parcels layer (``option``, ``ROLE=PATH:LAYER``) is the parcels role, read from the catalog's
    sources ``used`` (with their feature counts): the note that the package gives the parcels no longer holds, and
    the landed parcel is the site parcel unless the user named one.
    """
    res.layer_options.append(option)
    res.used["parcels"] = list(used)
    res.warnings = [w for w in res.warnings if not (w.code == "context_role_given" and w.layer == "parcels")]
    res.warnings.append(Warning_("context_site_parcel", note, "parcels", (site_id,)))
    if site_parcel_id is None:
        res.site_parcel_id = site_id


def read_catalog(
    catalog: ContextCatalog, search: ContextSearch[C], fetch: ContextFetch[C], plan_roles: Sequence[str], id_fields: Sequence[str],
    res: ContextRead, site_parcel_id: str | None, dem_given: bool,
) -> ContextRead:
    """Read the catalog's roles the plan does not give (``plan_roles`` it does) around the site into ``res``.

    ``id_fields``: the fields a catalog parcel's id is taken from, in order. The module's docstring says how.
    """
    reach_units = search.units(search.reach_ft)
    area = search.area
    # The parcels first, around the plan: the site parcel's bounds grow the area the other rules reach from.
    parcels = [] if "parcels" in plan_roles else list(catalog.for_role("parcels"))
    parcel_rows = [fetch.read(s, grow_box(area, reach_units), search.crs) for s in parcels]
    if parcels:
        rows = [(g, p, r.crs) for r in parcel_rows if r.crs is not None for g, p in zip(r.geoms, r.props)]
        pid, how, site = catalog_site_parcels(rows, fetch.plan_geometries(search.crs), id_fields, site_parcel_id,
                                              lambda g, c: fetch.to_area(g, c, search.crs))
        if site_parcel_id is None and pid is not None and how in SITE_NOTES:
            res.site_parcel_id = pid
            res.warnings.append(Warning_("context_site_parcel", f"site parcel {pid}: {SITE_NOTES[how]}", "parcels", (pid,)))
        if site:
            grown = union_boxes([area] + [fetch.bounds_in(box_of(g), gcrs, search.crs) for g, gcrs in site])
            if grown != area:
                area = grown
                parcel_rows = [fetch.read(s, grow_box(area, reach_units), search.crs) for s in parcels]
    area = grow_box(area, reach_units)
    res.area_wkt = box(*area).wkt
    for role in catalog.roles():
        if role in plan_roles or role == "dem":
            continue
        sources = parcels if role == "parcels" else list(catalog.for_role(role))
        found = parcel_rows if role == "parcels" else [fetch.read(s, area, search.crs) for s in sources]
        counts = [len(r.geoms) for r in found]
        res.used[role] = list(zip(sources, counts))
        res.warnings.extend(read_notes(role, sources, counts, search.reach_ft))
        covered = any(r.covers for r in found)
        if sum(counts) or covered:  # a source whose extent holds the search area and has no feature in it: none within reach (an empty layer)
            res.layer_options.append(fetch.write(role, found))
        if not covered:
            res.warnings.append(partial_cover_note(role, search.reach_ft, bool(sum(counts))))
        if role == "parcels":
            res.warnings.extend(hint_notes(sources, [r.props for r in found], plan_roles))
    dems = catalog.for_role("dem")
    if dems and not dem_given:
        res.dem = fetch.dem(dems[0])
        res.dem_z_units = dems[0].z_units
        res.used["dem"] = [(dems[0], 1)]
        res.warnings.extend(dem_notes(dems[0], res.dem.name))
    return res
