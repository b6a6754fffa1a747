"""One read of a site's layers, written once against a backend's layers (:class:`~stormwater_plugin.services.backend.LayerBackend`).

The backend fetches (files with fiona in ``headless``; QGIS layers in ``qgis_bridge``); this module decides, in
this order:

1. **Sources and their CRS fit.** Each role's sources as they declare themselves. A source declaring no CRS is
   misplaced, its features never read. A source whose extent cannot
   lie where its CRS says is judged feature by feature when the policy says so
   (:func:`~stormwater_plugin.services.reading_policy.screened_feature_by_feature`): read whole, misplaced only
   when none of its features fits. Otherwise it is misplaced, or (a big context layer with a pack) read
   through the window and judged there.
2. **The plan first.** The plan's roles are read whole, in their own CRS; with a pack, the context roles
   wait for the plan (it places their window). Fields are read under the names the check reads
   (:func:`~stormwater_plugin.services.intake.match_fields`: case, a shapefile's 10-character names) and
   every feature gets its id (:func:`~stormwater_plugin.services.feature_ids.feature_ids`).
3. **The working CRS** (the backend's :meth:`~stormwater_plugin.services.backend.LayerBackend.working_crs`:
   the DEM's when projected and conformal, else the UTM zone of the site), and every source moved into it.
4. **A plan off its parcel** is refused (:class:`~stormwater_plugin.services.placement.PlanOffParcel`).
5. **Placement** (:func:`~stormwater_plugin.services.reading_policy.decide_placement`): misplaced sources,
   stray plan features.
6. **The context** read over the box each role's reach needs
   (:meth:`~stormwater_plugin.services.reading_policy.ReadingReach.context_box`).
7. **Each role's sources merged** (:func:`~stormwater_plugin.services.role_merge.merge_role`), and the layers
   moved between CRSs warned.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import AbstractSet, Callable, Hashable, Mapping, Protocol, TypeVar

import numpy as np

from ..core.dem_source import DemSource
from ..core.geometry_arrays import object_array, total_box
from ..core.model import FeatureLayer, SiteInputs, Warning_
from ..core.raster import ElevationGrid
from ..core.roles import CONTEXT_ROLES, ROLES, TERRAIN_EXTENT_ROLES
from ..core.rulepack import RulePack
from .backend import Box, CrsBackend, DemHandle, FetchedFeatures, GeomSlots, LayerBackend, SourceInfo
from .feature_ids import feature_ids, id_columns, position_ids
from .intake import MAX_LISTED, match_fields, unplaceable_feature_problem
from .placement import OnParcel, PlanOffParcel, plan_on_parcel
from .placement_layers import NearPlan, SourcePlace, all_features_entry, crs_misfit_reason, crs_unknown_reason, finite_coordinates
from .reading_policy import (
    DEM_FALLBACK_MARGIN_FT,
    ReadingReach,
    decide_placement,
    dem_read_box,
    screened_feature_by_feature,
    whole_dem,
)
from .role_merge import ReadSource, merge_role
from .run_warnings import reprojected_warnings
from .site_crs import site_measure
from .working_crs import ParcelPicks

_T = TypeVar("_T")
#: The parcels' picks held with their features (``read_layers``): each read asks for its few layers made of them.
_MAX_PICKS = 8
#: Values held with one frame's features at most (a few per role and decision in practice: ``moved_memo`` adds no more beyond).
_MAX_KEPT = 32


def _kept(fr: FetchedFeatures | None, key: Hashable, make: Callable[[], _T]) -> _T:
    """``make()``, a value derived from ``fr``'s features as fetched and ``key`` (the rest of its inputs), kept with those
    features: a backend's frame may carry a ``memo`` (``qgis_bridge.vectors.QgisFrame``), shared by its copies holding the
    same features (the live re-check hands the next read an unedited layer's), let go once the read changes them
    (:func:`_changing`). The value is shared by the reads that find it: never changed."""
    memo: dict[Hashable, object] | None = getattr(fr, "memo", None)
    if memo is None:
        return make()
    if key in memo:
        return memo[key]  # type: ignore[return-value]
    value = memo[key] = make()
    return value


def moved_memo(own: FetchedFeatures, moved: FetchedFeatures) -> dict[Hashable, object]:
    """The memo (:func:`_kept`) of ``own``'s features moved into another CRS by the features ``moved`` read there (a backend's
    ``to_working``): what the read derives of the moved features is theirs and ``own``'s, so it is kept with ``moved`` for
    ``own``'s memo (held) and found again when both are read again unchanged (an unedited layer's, at the live re-check's next
    read). A new one when either keeps none."""
    mine, theirs = getattr(own, "memo", None), getattr(moved, "memo", None)
    if mine is None or theirs is None or len(theirs) > _MAX_KEPT:
        return {}
    held = theirs.get(("moved", id(mine)))
    if held is None or held[0] is not mine:
        held = theirs[("moved", id(mine))] = (mine, {})
    return held[1]  # type: ignore[no-any-return]


#: What the read keeps of a frame's records alone (:func:`same_records_memo`): their names and ids (:func:`_named`), their values
#: cleaned (:func:`_read_source`), the ids of those with a geometry among them (:func:`_usable_layer`, keyed by their positions).
_RECORDS_ONLY = frozenset({"named", "clean records", "usable ids"})


def same_records_memo(earlier: FetchedFeatures) -> dict[Hashable, object]:
    """The memo (:func:`_kept`) of features fetched with ``earlier``'s very records and columns (the same objects) and other
    geometries (an edited layer's, made from the earlier read where only geometries changed: ``gui.live_read``): what ``earlier``'s
    memo holds of the records alone (:data:`_RECORDS_ONLY`); the rest is derived anew."""
    memo: dict[Hashable, object] | None = getattr(earlier, "memo", None)
    held = dict(memo) if memo else {}  # one copy at once: a stale read may still add to it
    return {k: v for k, v in held.items() if isinstance(k, tuple) and k and k[0] in _RECORDS_ONLY}


def _changing(fr: FetchedFeatures) -> None:
    """The read is about to change ``fr``'s features in place (a feature taken out): what was kept of them no longer holds."""
    if getattr(fr, "memo", None) is not None:
        fr.memo = None  # type: ignore[attr-defined]


@dataclass
class _Piece:
    """One source of a role as read: its features (own CRS, then working CRS), or why they cannot be measured."""

    source: SourceInfo
    frame: FetchedFeatures | None = None
    misplaced: str | None = None
    filtered: bool = False
    #: Read whole at the start, its features screened one by one (its extent does not fit its CRS): not read again.
    screened: bool = False
    #: A large context layer whose extent does not fit its CRS, read through the window: the features beyond it that
    #: cannot be placed are one entry.
    stray_beyond: bool = False
    #: Reasons of features excluded one by one (:func:`_screen`, the stray plan features): worded as such.
    unplaceable: set[str] = field(default_factory=set)
    #: :func:`_named` of the frame's records (those records, held, first): the read asks several times.
    named: tuple[list[dict[str, object]], list[dict[str, object]], list[str], list[str]] | None = None


@dataclass
class ReadLayers:
    """Every role's features in the working CRS, with the CRS (the backend's object), why it was chosen and the warnings of reading."""

    layers: dict[str, FeatureLayer]
    crs: object
    why: str
    warnings: list[Warning_]
    #: The site parcel the parcels name (``working_crs.site_parcel_indices``), found once for the read's several questions.
    picks: ParcelPicks = field(default_factory=dict)


class SiteBackend(LayerBackend, Protocol):
    """A backend's layers with the CRS and DEM calls a whole read of the site makes."""

    @property
    def dem(self) -> DemHandle | None:
        """The DEM as opened for the read (``None``: none given)."""
        ...

    def dem_extent(self, working: object) -> Box | None:
        """The DEM's extent as a box in ``working``."""
        ...

    @property
    def crs_ops(self) -> CrsBackend[object]:
        """The backend's CRS primitives: the scale factor at the site (:func:`~stormwater_plugin.services.working_crs.site_geometries`)
        and the working CRS in the words of findings.json are taken through them (:func:`~stormwater_plugin.services.site_crs.site_measure`)."""
        ...

    #: Whether the whole DEM is read when no located feature places its window (the command line's files), else none is
    #: (the plugin's layers: a project's raster may cover a county), with a ``dem_unused`` warning.
    whole_dem_unplaced: bool

    def read_dem(self, working: object, box: Box | None, z_units: str | None, warnings: list[Warning_]) -> tuple[ElevationGrid | None, DemSource | None]:
        """The DEM window over ``box`` (working CRS; ``None``: the whole DEM) and the DEM's source for further windows.

        Called once every layer is read: the backend may close them first.
        """
        ...


#: :func:`_pack_fields` by pack object (held: a pack is frozen and loaded once; the live re-check reads at every edit).
_FIELDS: dict[int, tuple[RulePack, frozenset[str]]] = {}


def _pack_fields(pack: RulePack | None) -> frozenset[str]:
    """Field names the pack's rules read (``params.field``), found once per pack object (a frozenset: the keys of what the read
    keeps, :func:`_named`, take it as it is)."""
    if pack is None:
        return frozenset()
    held = _FIELDS.get(id(pack))
    if held is None or held[0] is not pack:
        if len(_FIELDS) > 64:
            _FIELDS.clear()
        held = _FIELDS[id(pack)] = (pack, frozenset(str(r.params["field"]) for r in pack.rules if isinstance(r.params.get("field"), str)))
    return held[1]


def _bounds(geoms: GeomSlots) -> Box | None:
    """The box of the located features of ``geoms``; ``None`` when none has finite bounds."""
    arr = object_array(geoms)
    if not len(arr):
        return None
    b = total_box(arr)  # a missing or empty geometry has no bounds: skipped, as total_bounds skips them (none: not finite)
    return (float(b[0]), float(b[1]), float(b[2]), float(b[3])) if np.all(np.isfinite(b)) else None


#: The types of attribute values that are plain already (exactly these: a subclass is looked at).
_PLAIN_TYPES = frozenset({str, int, bool, type(None)})


def clean_value(v: object) -> object:
    """An attribute as a plain value: numpy scalars unwrapped, NaN as ``None``, dates and times as ISO text."""
    if type(v) in _PLAIN_TYPES:  # most values: nothing to do, and asked at every read
        return v
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


@functools.lru_cache(maxsize=256)
def _field_match(columns: tuple[str, ...], role: str, extra: frozenset[str]) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """:func:`~stormwater_plugin.services.intake.match_fields`, once per layer's fields (its near matches cost milliseconds; a
    read asks several times, and the live re-check at every edit)."""
    renames, near = match_fields(columns, role, extra)
    return tuple(renames.items()), tuple(near)


def _matched(fr: FetchedFeatures, role: str, extra_fields: AbstractSet[str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    renames, near = _field_match(tuple(fr.columns), role, frozenset(extra_fields))
    return dict(renames), list(near)


def _renames(fr: FetchedFeatures, role: str, extra_fields: AbstractSet[str]) -> dict[str, str]:
    return _matched(fr, role, extra_fields)[0]


def _renamed_records(fr: FetchedFeatures, renames: Mapping[str, str]) -> tuple[list[dict[str, object]], list[str]]:
    """``fr``'s records and columns under the names the check reads."""
    if not renames:
        return fr.records, fr.columns
    return [{renames.get(c, c): v for c, v in r.items()} for r in fr.records], [renames.get(c, c) for c in fr.columns]


def _piece_ids(role: str, k: int, s: SourceInfo, records: list[dict[str, object]], columns: list[str]) -> list[str]:
    """The ids the check gives the features of a role's ``k``-th source (``records`` under the names the check reads)."""
    return feature_ids(records, columns, role, position_ids(len(records), s.id_prefix if k else ""), first=s.id_first)


def _named(role: str, k: int, pc: _Piece, extra_fields: AbstractSet[str]) -> tuple[list[dict[str, object]], list[str], list[str]]:
    """The ``k``-th source's records and columns under the names the check reads, and its features' ids (:func:`_piece_ids`),
    found once for the records it fetched (a frame moved into the working CRS keeps them)."""
    fr = pc.frame
    assert fr is not None
    if pc.named is None or pc.named[0] is not fr.records:
        s = pc.source
        records, columns, ids = _kept(fr, ("named", role, k, s.id_prefix, tuple(s.id_first), frozenset(extra_fields)),
                                      lambda: _named_records(role, k, s, fr, extra_fields))
        pc.named = (fr.records, records, columns, ids)
    return pc.named[1], pc.named[2], pc.named[3]


def _named_records(role: str, k: int, s: SourceInfo, fr: FetchedFeatures, extra_fields: AbstractSet[str]) -> tuple[list[dict[str, object]], list[str], list[str]]:
    """:func:`_named` computed."""
    records, columns = _renamed_records(fr, _renames(fr, role, extra_fields))
    return records, columns, _piece_ids(role, k, s, records, columns)


def _screen(backend: LayerBackend, fr: FetchedFeatures, pc: _Piece) -> bool:
    """Exclude, one by one, the features of ``fr`` (in its own CRS) that lie where that CRS cannot place them; whether any fits."""
    bad = backend.unplaceable(pc.source, fr)
    if bad is None:
        return False
    why = unplaceable_feature_problem(pc.source.where, pc.source.crs_name)
    if bad:
        _changing(fr)
    for i in bad:
        fr.geoms[i] = None
        fr.unusable[i] = why
    if bad:
        pc.unplaceable.add(why)
    return True


def _usable_layer(role: str, fr: FetchedFeatures) -> FeatureLayer:
    """The features of one source with a geometry, as a layer (they locate the site for the other roles' sources); their ids, made
    of their records alone, kept with the records by the positions of those with a geometry (:func:`same_records_memo`)."""
    present = [i for i, g in enumerate(fr.geoms) if g is not None]
    recs = [fr.records[i] for i in present]
    ids = _kept(fr, ("usable ids", role, tuple(present)), lambda: feature_ids(recs, sorted({k for r in recs for k in r}), role, position_ids(len(recs))))
    return FeatureLayer.from_sequences(role, [fr.geoms[i] for i in present], ids, recs)


def _place(backend: LayerBackend, role: str, pc: _Piece, crs: object, deferred: bool) -> SourcePlace:
    """What :func:`~stormwater_plugin.services.placement_layers.misplaced_sources` needs of a source, in the working CRS ``crs``.

    A plan source: the box of its features and the features themselves; a context source read later
    (``deferred``): its declared extent transformed.
    """
    s = pc.source
    place = SourcePlace(role, s.where, s.crs_name, fits_crs=pc.misplaced is None)
    if pc.misplaced is not None:
        return place
    fr = pc.frame
    if role in CONTEXT_ROLES and pc.screened and fr is not None:  # its features that fit the CRS, not its declared extent
        place.bounds = _kept(fr, ("bounds",), lambda: _bounds(fr.geoms))
        return place
    if role in CONTEXT_ROLES:
        if deferred and s.count and not pc.stray_beyond:
            place.bounds = backend.box_in(s.extent, s.crs, crs)
        return place
    if fr is not None:
        place.bounds, place.layer, place.finite = _kept(fr, ("placed", role), lambda: (_bounds(fr.geoms), _usable_layer(role, fr), finite_coordinates(fr.geoms)))
    return place


def _read_source(backend: LayerBackend, role: str, k: int, pc: _Piece, extra_fields: AbstractSet[str]) -> ReadSource:
    """The ``k``-th source of a role as read, for :func:`~stormwater_plugin.services.role_merge.merge_role`: ids, fields renamed, values cleaned."""
    s = pc.source
    if pc.frame is None:  # misplaced before reading: its ids only
        assert pc.misplaced is not None
        if s.count > MAX_LISTED:
            fids = [all_features_entry(s.count, s.name)]
        else:
            wanted = id_columns(s.columns, role)
            records = backend.fetch_records(s, wanted)
            fids = feature_ids(records, wanted, role, position_ids(len(records)))
        return ReadSource(s.where, s.name, s.crs_name, s.count, fids, misplaced=pc.misplaced)
    fr = pc.frame
    renames, near = _matched(fr, role, extra_fields)
    records, _columns, ids = _named(role, k, pc, extra_fields)
    # the values cleaned, made of the records alone: kept with them (:func:`same_records_memo`; never changed: the layer copies them)
    clean = _kept(fr, ("clean records", role, k, s.id_prefix, tuple(s.id_first), frozenset(extra_fields)),
                  lambda: tuple({c: v if type(v) in _PLAIN_TYPES else clean_value(v) for c, v in r.items()} for r in records))
    return ReadSource(s.where, s.name, s.crs_name, s.count, ids, list(fr.geoms), list(clean), fr.unusable, pc.misplaced, renames, near, fr.restored,
                      pc.filtered, pc.stray_beyond, pc.unplaceable)


def _role_layer(backend: LayerBackend, role: str, pcs: list[_Piece], extra_fields: AbstractSet[str]) -> tuple[FeatureLayer, list[Warning_]]:
    """:func:`~stormwater_plugin.services.role_merge.merge_role` of a role's sources as read (:func:`_read_source`).

    A role of one source read is kept with its features (:func:`_kept`) under the rest of what it is made of: the source as
    it declares itself, the fields the pack reads and what the read decided of the source (misplaced, filtered, strays beyond
    its window, features excluded). The layer is the same object at the next read of the same features so decided, frozen
    (:func:`_frozen`): never changed (the check cleans a copy)."""
    pc = pcs[0] if len(pcs) == 1 else None
    if pc is None or pc.frame is None:
        return merge_role(role, [_read_source(backend, role, k, p, extra_fields) for k, p in enumerate(pcs)])
    s = pc.source
    key = ("role layer", role, s.where, s.name, s.crs_name, s.count, s.id_prefix, tuple(s.id_first), frozenset(extra_fields), pc.misplaced,
           pc.filtered, pc.stray_beyond, frozenset(pc.unplaceable))
    layer, warnings = _kept(pc.frame, key, lambda: _frozen(merge_role(role, [_read_source(backend, role, 0, pc, extra_fields)])))
    return layer, list(warnings)


def _frozen(merged: tuple[FeatureLayer, list[Warning_]]) -> tuple[FeatureLayer, list[Warning_]]:
    """A role's layer as kept (:func:`_role_layer`), made unchangeable (:meth:`~stormwater_plugin.core.model.FeatureLayer.freeze`):
    the next read hands the same object, and the check's derived values (``core.derived``) carry its content key with it rather
    than keying it again at every edit."""
    return merged[0].freeze(), merged[1]  # a new object: nothing else holds its lists


def read_layers(backend: SiteBackend, pack: RulePack | None, site_parcel_id: str | None) -> ReadLayers:
    """Read every source of ``backend`` into one layer per role, in the working CRS (the steps of the module's text).

    Parameters
    ----------
    backend : SiteBackend
        Fetches the sources.
    pack : RulePack, optional
        The rules: they set each context role's reach; without a pack every source is read whole.
    site_parcel_id : str, optional
        The site parcel's id, else the engine's rule finds it.

    Raises
    ------
    PlanOffParcel
        No feature of the plan lies on its parcel.
    """
    warnings: list[Warning_] = []
    sources = backend.sources()
    dem = backend.dem  # its cell size sets the reaches of slope rules; its extent bounds an unlimited flow trace
    reach = ReadingReach.of(pack, dem)
    deferred = reach is not None and any(r not in CONTEXT_ROLES for r in sources)
    pieces: dict[str, list[_Piece]] = {}
    for role, ss in sources.items():
        for s in ss:
            pc = _Piece(s)
            if not s.crs_known:  # never measured as if in the working CRS, never a refusal of the whole site
                pc.misplaced = crs_unknown_reason(s.where)
            elif not s.fits_crs and screened_feature_by_feature(role, s.count):  # misplaced only when none of its features fits (a wrong .prj)
                whole = backend.fetch(s)
                if _screen(backend, whole, pc):
                    pc.frame, pc.screened = whole, True
                else:
                    pc.misplaced = crs_misfit_reason(s.where, s.crs_name)
                    pc.frame = whole if s.count <= MAX_LISTED else None  # read, so its features are named one by one
            elif not s.fits_crs and not deferred:
                pc.misplaced = crs_misfit_reason(s.where, s.crs_name)
            elif not s.fits_crs:
                pc.stray_beyond = True  # read through the window below; misplaced when nothing there fits
            elif not (deferred and role in CONTEXT_ROLES):
                pc.frame = backend.fetch(s)
            pieces.setdefault(role, []).append(pc)

    extra_fields = _pack_fields(pack)
    # Every usable source of each role, with the ids the check gives its features: the site is found by the engine's rule.
    for_crs = {role: [(pc.frame, _named(role, k, pc, extra_fields)[2]) for k, pc in enumerate(pcs) if pc.misplaced is None and pc.frame is not None]
               for role, pcs in pieces.items()}
    crs, why = backend.working_crs({r: v for r, v in for_crs.items() if v}, site_parcel_id)
    ft_unit = backend.ft_per_unit(crs)
    moved: list[tuple[str, str]] = []

    def to_working(role: str, pc: _Piece) -> None:
        if pc.frame is not None:
            pc.frame, was = backend.to_working(pc.source, pc.frame, crs)
            if was is not None:
                moved.append((role, was))

    for role, pcs in pieces.items():
        for pc in pcs:
            to_working(role, pc)
    # The site parcel the parcels name, kept with the parcels' features in the working CRS (each pick holds the layer it was
    # found for, made of those features: the same object is asked at the next read); a few picks at most are held
    parcel_pieces = pieces.get("parcels", [])
    picks: ParcelPicks = _kept(parcel_pieces[0].frame, ("parcel picks",), dict) if len(parcel_pieces) == 1 else {}
    if len(picks) > _MAX_PICKS:
        picks.clear()

    def gathered(role: str, pcs: list[_Piece]) -> FeatureLayer | None:
        # the features with a geometry, under the ids the check gives them (:func:`_piece_ids`); None: none
        gs: list[object] = []
        ids: list[str] = []
        recs: list[dict[str, object]] = []
        for k, pc in enumerate(pcs):
            fr = pc.frame if pc.misplaced is None else None
            if fr is None:
                continue
            records, _columns, fids = _named(role, k, pc, extra_fields)
            for g, fid, rec in zip(fr.geoms, fids, records):
                if g is not None:
                    gs.append(g)
                    ids.append(fid)
                    recs.append(rec)
        return FeatureLayer.from_sequences(role, gs, ids, recs) if gs else None

    def usable(role_pieces: Mapping[str, list[_Piece]]) -> dict[str, FeatureLayer]:
        out: dict[str, FeatureLayer] = {}
        for role, pcs in role_pieces.items():
            one = pcs[0] if len(pcs) == 1 and pcs[0].misplaced is None else None
            if one is not None and one.frame is not None:  # kept with its features (:func:`_kept`)
                s = one.source
                layer = _kept(one.frame, ("usable", role, s.id_prefix, tuple(s.id_first), frozenset(extra_fields)), functools.partial(gathered, role, pcs))
            else:
                layer = gathered(role, pcs)
            if layer is not None:
                out[role] = layer
        return out

    # a plan none of whose features lands on its parcel is refused, never checked (services.placement)
    plan_pieces = {r: v for r, v in pieces.items() if r not in CONTEXT_ROLES}
    plan_layers = usable(plan_pieces)
    # what showed the plan on its parcel, kept with the parcels' features: a plan layer the edit left as it was shows it again
    shown: dict[str | None, OnParcel] = _kept(parcel_pieces[0].frame, ("plan on parcel",), dict) if len(parcel_pieces) == 1 else {}
    off, on = plan_on_parcel(plan_layers, ft_unit, site_parcel_id, picks=picks, earlier=shown.get(site_parcel_id))
    if on is None:
        shown.pop(site_parcel_id, None)
    elif shown.get(site_parcel_id) is not on:
        if len(shown) > _MAX_PICKS:
            shown.clear()
        shown[site_parcel_id] = on
    if off is not None:
        raise PlanOffParcel(off)
    taken_out = False  # whether a plan source or feature is taken out below (the plan's layers are then made again)
    if reach is not None:
        # Which sources are misplaced, and which plan features lie far from the site while their layer is there
        order = [(role, pc) for role, pcs in pieces.items() for pc in pcs]
        # the plan layers that showed the parcels within reach, kept with the parcels' features: one the edit left shows them again
        near: NearPlan = _kept(parcel_pieces[0].frame, ("parcels near the plan",), dict) if len(parcel_pieces) == 1 else {}
        for (role, pc), d in zip(order, decide_placement([_place(backend, role, pc, crs, deferred) for role, pc in order], reach, ft_unit, site_parcel_id,
                                                                 picks, near)):
            taken_out |= role not in CONTEXT_ROLES and pc.misplaced is None and d.misplaced is not None
            pc.misplaced = pc.misplaced or d.misplaced  # a source without CRS keeps its own reason
            if d.stray and d.stray_reason is not None and pc.frame is not None:
                taken_out = True
                present = [i for i, g in enumerate(pc.frame.geoms) if g is not None]
                _changing(pc.frame)
                for k in d.stray:
                    pc.frame.geoms[present[k]] = None
                    pc.frame.unusable[present[k]] = d.stray_reason
                pc.unplaceable.add(d.stray_reason)
    if deferred:
        assert reach is not None
        if taken_out:
            plan_layers = usable(plan_pieces)
        # A trace of unlimited length runs over the DEM only: no target beyond the raster's edge can be reached. The DEM's box is
        # asked for a layer read through a window only (a small one is read whole: its window is never placed).
        dem_box: Box | None = None
        dem_box_found = dem is None
        for role, pcs in pieces.items():
            if role not in CONTEXT_ROLES:
                continue
            for pc in pcs:
                s = pc.source
                if pc.misplaced is not None:
                    if pc.frame is None and s.count <= MAX_LISTED and s.crs_known:  # read, so its features are named one by one
                        pc.frame = backend.fetch(s)
                        to_working(role, pc)
                    continue
                if pc.screened:  # read whole already
                    continue
                if reach.windowed(s.count) and not dem_box_found:
                    dem_box, dem_box_found = backend.dem_extent(crs), True
                box = reach.context_box(role, s.count, plan_layers, site_parcel_id, ft_unit, dem_box)  # the one window both readers use
                window = backend.box_in(box, crs, s.crs) if box is not None else None
                pc.frame = backend.fetch(s, window)
                pc.filtered = window is not None
                if pc.stray_beyond and not _screen(backend, pc.frame, pc):
                    # nothing read fits the CRS: the layer is misplaced as a whole (a wrong .prj), never "none within reach"
                    pc.misplaced, pc.frame = crs_misfit_reason(s.where, s.crs_name), None
                    continue
                to_working(role, pc)

    layers: dict[str, FeatureLayer] = {}
    for role in [r for r in ROLES if r in pieces]:
        layers[role], merged = _role_layer(backend, role, pieces[role], extra_fields)
        warnings.extend(merged)
    if moved:  # the working CRS named only when a layer was moved into it
        warnings.extend(reprojected_warnings(moved, backend.crs_text(crs)))
    return ReadLayers(layers, crs, why, warnings, picks)


@dataclass
class SiteRead:
    """A site as read: the engine's inputs, with the working CRS (the backend's object) and why it was chosen."""

    inputs: SiteInputs
    crs: object
    why: str


def read_site(
    backend: SiteBackend, pack: RulePack | None, site_parcel_id: str | None, class_override: str | None, dem_z_units: str | None,
    warnings: list[Warning_],
) -> SiteRead:
    """Read the site's layers (:func:`read_layers`), the scale factor at the site and the DEM window, into :class:`SiteInputs`.

    ``warnings``: what the read noted before (which sources give each role), followed by the read's own.
    The DEM window is the one the pack's rules need (:func:`~stormwater_plugin.services.reading_policy.dem_read_box`),
    else the plan and the wells and septic systems grown by 1,000 ft (``core.roles.TERRAIN_EXTENT_ROLES``, ``DEM_FALLBACK_MARGIN_FT``, the same
    for every reader); without a located feature, the backend's ``whole_dem_unplaced`` says (the command line reads
    the whole DEM, the plugin none, with a ``dem_unused`` warning).
    """
    read = read_layers(backend, pack, site_parcel_id)
    crs, layers = read.crs, read.layers
    warnings = list(warnings) + read.warnings
    # Grid distance / scale factor at the site = distance on the ellipsoid: the same feet in any projection.
    measure = site_measure(backend.crs_ops, crs, read.why, layers, site_parcel_id, read.picks)
    ft_unit = backend.ft_per_unit(crs)
    dem: ElevationGrid | None = None
    dem_source: DemSource | None = None
    if backend.dem is not None:
        box = dem_read_box(layers, pack, measure.unit_to_ft, backend.dem, site_parcel_id, TERRAIN_EXTENT_ROLES, DEM_FALLBACK_MARGIN_FT / ft_unit)
        if box is None and not backend.whole_dem_unplaced:
            warnings.append(Warning_("dem_unused", "no layer has features, so the DEM window could not be placed", "dem"))
        else:  # a rule of unlimited reach (whole_dem), or nothing located: the whole DEM
            dem, dem_source = backend.read_dem(crs, None if box is None or whole_dem(box) else box, dem_z_units, warnings)
    inputs = SiteInputs(layers=layers, dem=dem, unit_to_ft=measure.unit_to_ft, crs_name=measure.crs_name,
                        site_parcel_id=site_parcel_id, class_override=class_override, warnings=warnings, dem_source=dem_source)
    return SiteRead(inputs, crs, read.why)


__all__ = ["ReadLayers", "SiteBackend", "SiteRead", "clean_value", "moved_memo", "read_layers", "read_site", "same_records_memo"]
