"""The DEM window a check needs: each rule's features grown by that rule's reach, and the site for the envelope.

Policy: a rule that reads the DEM declares the features it relates
and how far from them it looks (:mod:`.reach`); the window is the union of

* for each DEM rule, its features grown by its reach: gradient setbacks the
  devices grown by the distance plus the shortest line to the nearest target
  of each kind (a pass against a far feature reads the ground at both ends);
  the building-site ring the building sites grown by the ring radius; device
  and clearing slopes the footprints; the flow trace its activity grown by
  its declared path length, or, with none, by its first window's reach (the
  trace then reads further windows from the DEM source as it proceeds, so no
  rule needs the whole raster);
* for the siting envelope (and the suggested moves, which search it) the
  whole site parcel grown by the envelope rules' largest distance.

Readers read the bounding box of the union once. Features that no DEM rule
relates never widen it, so a finding never depends on them (an unrelated well
650 m away does not decide whether a flow trace reached the edge of the DEM).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.checks.setback_targets import feature_name
from ..core.derived import derive, derive_each
from ..core.engine import cleaned_layer
from ..core.geometry_arrays import object_array, total_box
from ..core.kinds import KINDS
from ..core.model import FeatureLayer, Warning_
from ..core.roles import PLAN_ROLES
from ..core.rulepack import Rule, RulePack
from ..core.site_parcel import find_site_parcels
from ..core.siting.gradient import READ_BEYOND_CELLS
from ..core.siting.grid import grid_cell
from ..core.siting.model import DEFAULT_CELL_FT
from ..core.vocabulary import name_matches
from .reach import ENVELOPE_KINDS, envelope_reach_ft, rule_dem_reach_ft
from .working_crs import few_box

#: Added around every part, feet: covers cleaning (make_valid) shifting a nearest point and the readers' rounding.
MARGIN_FT: float = 20.0
#: Added to the envelope's reach around the site parcel, feet (cells of the envelope grid straddle its edge).
SITING_PAD_FT: float = 20.0

Bounds = tuple[float, float, float, float]


@dataclass(frozen=True)
class WindowPart:
    """What one rule (or the siting envelope) needs from the DEM: working-CRS bounds."""

    need: str  # rule id, or "siting envelope"
    bounds: Bounds


@dataclass(frozen=True)
class DemWindow:
    """The parts and their union (working CRS)."""

    parts: tuple[WindowPart, ...]

    @property
    def whole_raster(self) -> bool:
        """True when a part has no finite bounds (a rule with unlimited reach): read the whole DEM."""
        return any(not all(np.isfinite(p.bounds)) for p in self.parts)

    @property
    def bounds(self) -> Bounds | None:
        """Bounding box of every part (infinite when :attr:`whole_raster`), or ``None`` when no rule needs the DEM."""
        if not self.parts:
            return None
        b = np.array([p.bounds for p in self.parts], dtype=float)
        return float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())

    def covers(self, other: Bounds) -> bool:
        """Whether the union's bounds hold ``other``."""
        b = self.bounds
        return b is not None and b[0] <= other[0] and b[1] <= other[1] and b[2] >= other[2] and b[3] >= other[3]


def _geoms(layer: FeatureLayer | None) -> np.ndarray:
    """Located geometries of a layer, invalid ones repaired (never a None or an empty one); read-only, kept by content (core.derived)."""
    if layer is None or len(layer) == 0:
        return np.empty(0, dtype=object)
    return derive("located geometries, repaired", partial(_located, layer), layer)


def _located(layer: FeatureLayer) -> np.ndarray:
    """:func:`_geoms` computed."""
    g = object_array(layer.geoms)
    g = g[~shapely.is_missing(g) & ~shapely.is_empty(g)]
    if g.size:
        bad = ~shapely.is_valid(g)
        if bad.any():
            g = g.copy()
            g[bad] = shapely.make_valid(g[bad])
    g.flags.writeable = False  # its own array (a boolean selection copies), shared with the next check: never changed in place
    return g


def _located_box(layer: FeatureLayer | None) -> Bounds | None:
    """The box of :func:`_geoms` of a layer as ``shapely.total_bounds`` gives it, in Python floats (``None``: no located feature),
    kept by content (core.derived): a layer the edit did not touch is not boxed again."""
    if layer is None or len(layer) == 0:
        return None
    return derive("located geometries' box", partial(_box_of, layer), layer)


def _box_of(layer: FeatureLayer) -> Bounds | None:
    """:func:`_located_box` computed."""
    geoms = _geoms(layer)
    b = total_box(geoms) if len(geoms) else None
    return None if b is None else (float(b[0]), float(b[1]), float(b[2]), float(b[3]))


def _grown(geoms: Sequence[BaseGeometry] | np.ndarray, pad: float) -> Bounds | None:
    if len(geoms) == 0:
        return None
    return _grown_box(total_box(geoms), pad)


def _grown_box(b: Sequence[float] | np.ndarray | None, pad: float) -> Bounds | None:
    """:func:`_grown` of geometries whose box is ``b`` (``None``: none)."""
    if b is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in b)
    if not (math.isfinite(x0) and math.isfinite(y0) and math.isfinite(x1) and math.isfinite(y1)):
        return None
    return x0 - pad, y0 - pad, x1 + pad, y1 + pad


def _union(boxes: Sequence[Sequence[float]]) -> Bounds | None:
    """The box of ``boxes`` (each xmin, ymin, xmax, ymax) in Python floats, a NaN bound skipped (NaN where every one is);
    ``None`` for none: ``numpy.nanmin`` and ``nanmax`` of each column, the same numbers (of a tie of 0.0 and -0.0 either may be kept)."""
    if not boxes:
        return None
    cols = [[float(v) for v in col if v == v] for col in zip(*boxes)]
    return (min(cols[0], default=math.nan), min(cols[1], default=math.nan), max(cols[2], default=math.nan), max(cols[3], default=math.nan))


class _LayerReads:
    """What the rules' parts read of the layers, each found once for every rule asking (a window's rules share their devices,
    their boxes and their targets): the same values each rule would find on its own."""

    def __init__(self, layers: Mapping[str, FeatureLayer], specs: Sequence[tuple[str, str]]) -> None:
        self.layers = layers
        self._geoms: dict[str, np.ndarray] = {}
        self._boxes: dict[tuple[str, ...], Bounds | None] = {}
        #: Each spec's box of every device's lines (``None``: no device).
        self._lines: dict[tuple[str, str], Bounds | None] | None = None
        #: Each device's part of the window (:func:`_device_parts`), in the layer's order (``None``: not yet found).
        self._device_parts: list[_DevicePart | None] | None = None
        #: The box of the lines of each rule's specs (:meth:`lines_box`), each set of specs found once.
        self._rule_lines: dict[tuple[tuple[str, str], ...], Bounds | None] = {}
        #: The target specs (role, name filter) of every gradient rule reading the DEM (:func:`_pack_needs`) with features to
        #: measure to, each once, in order.
        self._specs = [spec for spec in specs if (layer := layers.get(spec[0])) is not None and len(layer)]

    def geoms(self, role: str | None) -> np.ndarray:
        """:func:`_geoms` of the role's layer (none without a role)."""
        if role is None:
            return np.empty(0, dtype=object)
        if role not in self._geoms:
            self._geoms[role] = _geoms(self.layers.get(role))
        return self._geoms[role]

    def box(self, roles: tuple[str, ...]) -> Bounds | None:
        """The box of the located features of ``roles`` (``None``: none), as ``shapely.total_bounds`` gives it."""
        if roles not in self._boxes:
            if roles == ("devices",):  # the devices' box from each device's (:meth:`devices`): a moved device's alone is found again
                self._boxes[roles] = _union([part[0] for part in self.devices() if part is not None])
            elif len(roles) == 1:  # one role's box kept with its content (:func:`_located_box`)
                self._boxes[roles] = _located_box(self.layers.get(roles[0]))
            else:
                geoms = [g for r in roles for g in self.geoms(r)]
                b = total_box(geoms) if len(geoms) else None
                self._boxes[roles] = None if b is None else (float(b[0]), float(b[1]), float(b[2]), float(b[3]))
        return self._boxes[roles]

    def devices(self) -> list[_DevicePart | None]:
        """Each device's part of the window (:func:`_device_parts`: its located box and its lines to each spec's nearest targets;
        ``None``: a missing or empty geometry), in the layer's order, each kept by content (:mod:`~..core.derived`: the device's
        geometry, each spec's target layer and name filter): after a move only the moved device's are found again."""
        if self._device_parts is None:
            layer = self.layers.get("devices")
            if layer is None or not len(layer):
                self._device_parts = []
            else:
                groups = [(self.layers[role], match) for role, match in self._specs]
                self._device_parts = derive_each("device's part of the DEM window", partial(_device_parts, groups), list(layer.geoms),
                                                 *(x for group in groups for x in group))
        return self._device_parts

    def spec_lines(self) -> dict[tuple[str, str], Bounds | None]:
        """Each spec's box of the shortest lines from each device to the spec's nearest targets (``None``: no line).

        Each device's lines to a spec's targets are boxed on their own, every spec's found at once with the device's box and kept
        by content (:meth:`devices`): after a move only the moved device's are measured again. The box of all the lines is the
        smallest and largest of theirs, the same numbers (:func:`_union`: a device without a line, none in practice, has a box
        of NaN, skipped as total_bounds skips it), each spec's found once.
        """
        if self._lines is None:  # every spec's at once, each device's kept by content
            each = [part[1] for part in self.devices() if part is not None]
            self._lines = {spec: _union([mine[j] for mine in each]) for j, spec in enumerate(self._specs)}
        return self._lines

    def lines_box(self, specs: tuple[tuple[str, str], ...]) -> Bounds | None:
        """The box of the shortest lines from each device to the nearest target of each of ``specs`` (a rule's, :func:`_need_of`;
        ``None``: no line): :func:`_union` of their boxes (:meth:`spec_lines`), each set of specs found once."""
        if specs not in self._rule_lines:
            lines = self.spec_lines()
            self._rule_lines[specs] = _union([b for spec in specs if (b := lines.get(spec)) is not None])
        return self._rule_lines[specs]


#: One device's part of the DEM window (:func:`_device_parts`): the box of its located geometry (repaired) as ``shapely.bounds``
#: gives it, and the boxes of its shortest lines to each spec's nearest targets (:func:`_device_lines_boxes`).
_DevicePart = tuple[tuple[float, float, float, float], tuple[tuple[float, float, float, float], ...]]


def _device_parts(groups: list[tuple[FeatureLayer, str]], devices: list[BaseGeometry | None]) -> list[_DevicePart | None]:
    """For each of ``devices`` (a layer's geometries, missing or empty ones among them), ``None`` when it is not located, else
    its :data:`_DevicePart`: its geometry located and repaired as :func:`_located` does it (the same test and repair, one
    geometry at a time: each is a function of that geometry alone), its bounds, and :func:`_device_lines_boxes` of the located
    ones together, in their order.

    The devices' box is the smallest and largest of these bounds, NaN skipped (:func:`_union`): the numbers
    ``shapely.total_bounds`` gives of the located geometries (:func:`_box_of`), since both take each coordinate's least and
    greatest of the same bounds (of a tie of 0.0 and -0.0 either may be kept).
    """
    arr = object_array(devices)
    at = np.flatnonzero(~shapely.is_missing(arr) & ~shapely.is_empty(arr)).tolist() if len(arr) else []
    located = arr[at] if at else np.empty(0, dtype=object)  # its own array (a selection copies)
    if len(located):
        bad = ~shapely.is_valid(located)
        if bad.any():
            located[bad] = shapely.make_valid(located[bad])
    boxes = shapely.bounds(located).tolist() if len(located) else []
    lines = _device_lines_boxes(groups, list(located))
    out: list[_DevicePart | None] = [None] * len(devices)
    for k, n in enumerate(at):
        x0, y0, x1, y1 = boxes[k]
        out[n] = ((x0, y0, x1, y1), tuple(lines[k]))
    return out


def _targets(layer: FeatureLayer, match: str) -> np.ndarray:
    """The located features of ``layer`` the name filter ``match`` keeps, repaired (read-only, kept by content: core.derived)."""
    keep = [
        k for k in range(len(layer))
        if layer.geoms[k] is not None and not layer.geoms[k].is_empty
        and (not match or not feature_name(layer.attrs[k]) or name_matches(feature_name(layer.attrs[k]), match))
    ]
    return _located(FeatureLayer(layer.role, np.asarray(layer.geoms, dtype=object)[keep], [layer.ids[k] for k in keep], [layer.attrs[k] for k in keep]))


#: Up to this many device-target pairs (devices times every spec's targets), the nearest targets are found from every pair's
#: distance at once; above it (a county's wells) through a tree per spec, whose memory grows with the targets, not the pairs.
_DENSE_PAIRS = 20_000


def _device_lines_boxes(groups: list[tuple[FeatureLayer, str]], devices: list[BaseGeometry]) -> list[tuple[tuple[float, float, float, float], ...]]:
    """For each device, :func:`_device_line_boxes` to each of ``groups`` (a target layer and its name filter), in their order."""
    if not groups:
        return [() for _ in devices]
    targets, everything = derive("every spec's setback targets, located", partial(_every_target, groups), *(x for group in groups for x in group))
    if len(devices) == 1:  # the live re-check's moved device: its distances as a list, the same boxes in a few calls
        one = _one_device_line_boxes(targets, devices[0], everything)
        if one is not None:
            return [one]
    if devices and sum(len(t) for t in targets) * len(devices) <= _DENSE_PAIRS:
        found = _dense_line_boxes(targets, devices)
        if found is not None:
            return found
    return list(zip(*(_device_line_boxes(t, devices) for t in targets)))


def _every_target(groups: list[tuple[FeatureLayer, str]]) -> tuple[list[np.ndarray], np.ndarray]:
    """:func:`_targets` of each of ``groups`` (each kept by its own content: an edited target layer's alone found again) and all of
    them in one array (read-only), kept by every group's content at once (core.derived): one look-up at each edit of a device."""
    targets = [derive("setback targets, located", partial(_targets, layer, match), layer, match) for layer, match in groups]
    everything = np.concatenate(targets) if targets else np.empty(0, dtype=object)
    everything.flags.writeable = False  # shared with the next check: never changed in place
    return targets, everything


def _dense_line_boxes(targets: list[np.ndarray], devices: list[BaseGeometry]) -> list[tuple[tuple[float, float, float, float], ...]] | None:
    """:func:`_device_lines_boxes` from the distance of every device to every target (one call), the same boxes as the tree's:
    a device's nearest targets are those at its least distance, each tie among them (``query_nearest(all_matches=True)``).
    ``None`` when a distance is not finite (the tree decides then)."""
    arr = object_array(devices)
    everything = np.concatenate(targets)
    apart = shapely.distance(arr[:, None], everything[None, :]) if len(everything) else np.empty((len(arr), 0))
    if not np.isfinite(apart).all():
        return None
    q_parts, t_parts, g_parts = [], [], []
    start = 0
    for g, t in enumerate(targets):
        if len(t):
            block = apart[:, start:start + len(t)]
            qi, ti = np.nonzero(block == block.min(axis=1, keepdims=True))
            q_parts.append(qi)
            t_parts.append(ti + start)
            g_parts.append(np.full(len(qi), g))
        start += len(t)
    low = np.full((len(arr), len(targets), 2), math.inf)
    high = np.full((len(arr), len(targets), 2), -math.inf)
    if q_parts:
        q, t, g = np.concatenate(q_parts), np.concatenate(t_parts), np.concatenate(g_parts)
        b = shapely.bounds(shapely.shortest_line(arr[q], everything[t]))  # each device's lines to each spec, boxed apart below
        np.minimum.at(low, (q, g), b[:, :2])
        np.maximum.at(high, (q, g), b[:, 2:])
    nan = (math.nan, math.nan, math.nan, math.nan)
    return [tuple((float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])) if lo[0] <= hi[0] else nan for lo, hi in zip(low[k].tolist(), high[k].tolist()))
            for k in range(len(arr))]


def _one_device_line_boxes(targets: list[np.ndarray], device: BaseGeometry, everything: np.ndarray | None = None) -> tuple[tuple[float, float, float, float], ...] | None:
    """:func:`_dense_line_boxes` of one device: its distance to every target in one call, each spec's least distance and every
    target at it (each tie), their shortest lines boxed in one call and each spec's box the smallest and largest of its lines'
    bounds in the order :func:`_dense_line_boxes` takes them (the same numbers). ``None`` when a distance is not finite or a
    line has no bounds (the other paths decide then)."""
    nan = (math.nan, math.nan, math.nan, math.nan)
    if everything is None:  # every target in one array (:func:`_every_target` keeps it)
        everything = np.concatenate(targets) if targets else np.empty(0, dtype=object)
    if not len(everything):
        return tuple(nan for _ in targets)
    apart = shapely.distance(device, everything).tolist()
    if not all(math.isfinite(d) for d in apart):
        return None
    nearest: list[int] = []  # positions in everything, spec by spec
    ends: list[int] = []  # where each spec's ends in nearest
    start = 0
    for t in targets:
        block = apart[start:start + len(t)]
        if block:
            least = min(block)
            nearest.extend(start + k for k, d in enumerate(block) if d == least)
        ends.append(len(nearest))
        start += len(t)
    bounds = shapely.bounds(shapely.shortest_line(device, everything[nearest])).tolist() if nearest else []
    if not all(v == v for row in bounds for v in row):  # a line without bounds: as the dense path has it
        return None
    out: list[tuple[float, float, float, float]] = []
    first = 0
    for end in ends:
        mine = bounds[first:end]
        first = end
        if not mine:
            out.append(nan)
            continue
        x0, y0, x1, y1 = math.inf, math.inf, -math.inf, -math.inf
        for bx0, by0, bx1, by1 in mine:  # as numpy's minimum and maximum at each line in turn: a tie keeps the earlier
            x0 = bx0 if bx0 < x0 else x0
            y0 = by0 if by0 < y0 else y0
            x1 = bx1 if bx1 > x1 else x1
            y1 = by1 if by1 > y1 else y1
        out.append((float(x0), float(y0), float(x1), float(y1)))
    return tuple(out)


def _device_line_boxes(targets: np.ndarray, devices: list[BaseGeometry]) -> list[tuple[float, float, float, float]]:
    """For each device, the box of its shortest lines to the nearest of ``targets`` (:func:`_targets`; NaN: none), through a tree."""
    nan = (math.nan, math.nan, math.nan, math.nan)
    if targets.size == 0 or not devices:
        return [nan] * len(devices)
    arr = object_array(devices)
    qi, ti = shapely.STRtree(targets).query_nearest(arr, all_matches=True)
    lines = shapely.shortest_line(arr[qi], targets[ti])  # each device's lines, boxed apart below
    out: list[tuple[float, float, float, float]] = []
    for k in range(len(arr)):
        mine = lines[qi == k]
        b = total_box(mine) if len(mine) else None
        out.append((float(b[0]), float(b[1]), float(b[2]), float(b[3])) if b is not None else nan)
    return out


@dataclass(frozen=True)
class _Need:
    """What one DEM rule's part is made of (:func:`_need_of`): read once per pack and DEM cell size from the rule's kind and
    parameters (:func:`_pack_needs`), not at every window."""

    need: str  # the rule id
    part: str  # the kind registry's ``dem``
    reach_ft: float  # :func:`~.reach.rule_dem_reach_ft`
    #: The roles whose features it grows: the building sites or devices; the clearing roles, the first present taken; the activity.
    roles: tuple[str, ...] = ()
    #: A gradient setback's target specs (role, name filter), each once in the rule's order.
    specs: tuple[tuple[str, str], ...] = ()


def _need_of(rule: Rule, cell_ft: float) -> _Need | None:
    """What ``rule``'s part of the window is made of, or ``None`` when it adds none (its kind reads no DEM, or a gradient setback
    of any gradient)."""
    spec = KINDS.get(rule.kind)
    part = spec.dem if spec is not None else None  # the kind registry says which part of the DEM the kind reads
    if part is None:
        return None
    reach_ft = rule_dem_reach_ft(rule, cell_ft)
    if part == "gradient_setback":
        if str(rule.params.get("gradient", "any")) == "any":
            return None
        specs = tuple(dict.fromkeys((str(t.get("role")), str(t.get("name_matches", "")).lower())
                                    for t in rule.params.get("targets", []) if isinstance(t, dict)))
        return _Need(rule.id, part, reach_ft, ("devices",), specs)
    if part in ("building_sites", "devices"):
        return _Need(rule.id, part, reach_ft, (part,))
    if part == "clearing":
        return _Need(rule.id, part, reach_ft, tuple(str(r) for r in rule.params.get("roles", ["clearing"])))
    if part == "flow_trace":
        return _Need(rule.id, part, reach_ft, tuple(str(r) for r in rule.params.get("activity_roles", ["disturbance"])))
    return None


def _need_part(need: _Need, reads: _LayerReads, u: float, margin: float) -> Bounds | None:
    """The bounds one DEM rule needs (:class:`_Need`), or ``None`` when it has nothing to read the DEM for."""
    reach = need.reach_ft / u
    if need.part == "gradient_setback":
        parts = [b for b in (_grown_box(reads.box(("devices",)), reach + margin), _grown_box(reads.lines_box(need.specs), margin)) if b is not None]
        return _union(parts)  # finite boxes: their smallest and largest bounds
    if need.part in ("building_sites", "devices"):
        return _grown_box(reads.box(need.roles), reach + margin)
    if need.part == "clearing":
        role = next((r for r in need.roles if r in reads.layers), None)
        return _grown_box(reads.box((role,)), margin) if role else None
    if need.part == "flow_trace":  # the trace's first window around the activity; it reads further windows itself
        return _grown_box(reads.box(need.roles), reach + margin) if need.roles else None
    return None


@dataclass(frozen=True)
class _PackNeeds:
    """A pack's parts of the window as its rules declare them (:func:`_pack_needs`)."""

    needs: tuple[_Need, ...]
    #: Every gradient rule's target specs, each once, in the pack's order (:class:`_LayerReads` keeps those with features).
    specs: tuple[tuple[str, str], ...]
    #: Whether the pack has an envelope rule (:func:`siting_part`), and the envelope rules' reach, feet.
    siting: bool
    envelope_ft: float


#: Each pack's needs by pack object and DEM cell size (held: a pack is frozen and loaded once; the live re-check asks at every
#: edit): the rules whose kind reads no DEM add no part.
_NEEDS: dict[tuple[int, float], tuple[RulePack, _PackNeeds]] = {}


def _pack_needs(pack: RulePack, cell_ft: float) -> _PackNeeds:
    """:class:`_PackNeeds` of ``pack`` at ``cell_ft``, found once per pack object and cell size."""
    key = (id(pack), float(cell_ft))
    held = _NEEDS.get(key)
    if held is not None and held[0] is pack:
        return held[1]
    if len(_NEEDS) > 64:
        _NEEDS.clear()
    needs = tuple(n for rule in _dem_rules(pack) if (n := _need_of(rule, cell_ft)) is not None)
    siting = any(r.kind in ENVELOPE_KINDS for r in pack.rules)
    found = _PackNeeds(needs, tuple(dict.fromkeys(s for n in needs for s in n.specs)), siting, envelope_reach_ft(pack) if siting else 0.0)
    _NEEDS[key] = (pack, found)
    return found


def _dem_rules(pack: RulePack) -> tuple[Rule, ...]:
    """The rules of ``pack`` whose kind reads the DEM (the kind registry's ``dem``), in its order: the others add no part."""
    return tuple(rule for rule in pack.rules if (kind := KINDS.get(rule.kind)) is not None and kind.dem is not None)


def _site_parcel_geoms(layers: Mapping[str, FeatureLayer], site_parcel_id: str | None) -> list[BaseGeometry]:
    """The site parcel(s) as the engine finds them (``[]`` when none can be told)."""
    parcels = layers.get("parcels")
    if parcels is None or len(parcels) == 0:
        return []
    scratch: list[Warning_] = []
    # cleaned as the engine cleans them (the warnings are the check's to give), each the very value the engine's own cleaning
    # finds (core.derived), so the check that follows cleans none of them again and finds the parcels holding each feature of
    # the plan found here (a moved device's, keyed by the same cleaned parcels)
    # every plan role, as the engine reads them: a lot holding only clearing, disturbance or new impervious area is part of the
    # site (core.site_parcel.work_parcels), and the envelope searches it
    cleaned = {r: cleaned_layer(layers[r])[0] for r in ("parcels", *PLAN_ROLES) if r in layers}
    try:
        idx = find_site_parcels(cleaned.get("parcels"), site_parcel_id, cleaned, scratch)
    except LookupError:  # an unknown --site-parcel: the check itself says so
        return []
    return [cleaned["parcels"].geoms[i] for i in idx]


def siting_part(
    layers: Mapping[str, FeatureLayer], pack: RulePack, unit_to_ft: float, site_parcel_id: str | None = None, cell_ft: float = DEFAULT_CELL_FT,
) -> Bounds | None:
    """The site parcel grown by the envelope rules' reach, :data:`SITING_PAD_FT` and how far past the reach the envelope reads
    a feature's ground (``READ_BEYOND_CELLS`` of its grid's cells of ``cell_ft`` feet over the site), working CRS; ``None``
    without one."""
    needs = _pack_needs(pack, 0.0)  # the envelope's reach does not depend on the DEM's cells
    if not needs.siting:
        return None
    # the site parcel's box kept by its geometry objects (the check's cleaned parcels, carried from check to check)
    b = few_box(_site_parcel_geoms(layers, site_parcel_id))
    if b is None:
        return None
    # the grid's cells over the box of the site parcels (the envelope's site, their union, has the same box; a part of it
    # searched by the moves has cells no coarser), their reading tiles reaching past the rules' distance
    beyond = READ_BEYOND_CELLS * grid_cell(b, cell_ft, unit_to_ft) * (1 + 1e-9)
    return _grown_box(b, (needs.envelope_ft + SITING_PAD_FT) / unit_to_ft + beyond)


def _grown_parts(needs: _PackNeeds, reads: _LayerReads, u: float, margin: float) -> list[Bounds] | None:
    """The boxes whose union is that of the rules' parts (:func:`_need_part` of each of ``needs``), fewer of them: the rules that
    grow the same roles' box are one box grown by the largest of their pads, and the gradient setbacks' lines one box of every
    spec's lines grown by the margin. ``None`` where that may not be the same union (a pad not a number, or a spec's lines box
    neither wholly finite nor wholly NaN): the caller takes every part then.

    Growing a box by a larger pad moves each bound at least as far (``x - p`` and ``x + p`` round monotonically), so the union of
    one box grown by several pads is that box grown by the largest; a gradient setback's part is the union of the devices' box
    grown and its lines' box grown by the margin (:func:`_union` of two finite boxes: their smallest and largest bounds), and
    its lines' box the union of its specs' (each wholly finite, or NaN and skipped), so the union over the rules of their lines
    is the union of every spec's finite box that a rule reads, grown by the margin.
    """
    pads: dict[tuple[str, ...], float] = {}
    specs: dict[tuple[str, str], None] = {}
    for need in needs.needs:
        reach = need.reach_ft / u
        roles: tuple[str, ...]
        if need.part == "gradient_setback":
            roles, pad = ("devices",), reach + margin
            specs.update(dict.fromkeys(need.specs))
        elif need.part in ("building_sites", "devices"):
            roles, pad = need.roles, reach + margin
        elif need.part == "clearing":
            role = next((r for r in need.roles if r in reads.layers), None)
            if role is None:
                continue
            roles, pad = (role,), margin
        elif need.part == "flow_trace" and need.roles:
            roles, pad = need.roles, reach + margin
        else:
            continue
        if pad != pad:
            return None
        pads[roles] = max(pads[roles], pad) if roles in pads else pad
    out = [b for roles, pad in pads.items() if (b := _grown_box(reads.box(roles), pad)) is not None]
    if specs:
        lines = reads.spec_lines()
        finite: list[Bounds] = []
        for spec in specs:
            b = lines.get(spec)
            if b is None or not any(v == v for v in b):  # no device, or no line (NaN): no part, as each rule's lines skip it
                continue
            if not all(math.isfinite(v) for v in b):  # partly NaN, or infinite: each rule's part as it was
                return None
            finite.append(b)
        if finite:
            grown = _grown_box((min(b[0] for b in finite), min(b[1] for b in finite), max(b[2] for b in finite), max(b[3] for b in finite)), margin)
            if grown is not None:
                out.append(grown)
    return out


def dem_window_bounds(
    layers: Mapping[str, FeatureLayer], pack: RulePack, *, unit_to_ft: float, cell_ft: float = 0.0, site_parcel_id: str | None = None,
    margin_ft: float = MARGIN_FT, siting_cell_ft: float = DEFAULT_CELL_FT,
) -> Bounds | None:
    """:attr:`DemWindow.bounds` of :func:`dem_window` (the siting envelope's part included), the same numbers from fewer boxes
    (:func:`_grown_parts`; of a tie of 0.0 and -0.0 either may be kept): the live re-check asks at every edit.

    Parameters are :func:`dem_window`'s. Returns ``None`` when no rule needs the DEM; infinite bounds for a rule of unlimited reach.
    """
    margin = margin_ft / unit_to_ft
    needs = _pack_needs(pack, cell_ft)
    parts = _grown_parts(needs, _LayerReads(layers, needs.specs), unit_to_ft, margin)
    if parts is None:
        return dem_window(layers, pack, unit_to_ft=unit_to_ft, cell_ft=cell_ft, site_parcel_id=site_parcel_id, margin_ft=margin_ft,
                          siting_cell_ft=siting_cell_ft).bounds
    siting = siting_part(layers, pack, unit_to_ft, site_parcel_id, siting_cell_ft)
    if siting is not None:
        parts.append(siting)
    if not parts:
        return None
    return (float(min(b[0] for b in parts)), float(min(b[1] for b in parts)), float(max(b[2] for b in parts)), float(max(b[3] for b in parts)))


def dem_window(
    layers: Mapping[str, FeatureLayer],
    pack: RulePack,
    *,
    unit_to_ft: float,
    cell_ft: float = 0.0,
    site_parcel_id: str | None = None,
    siting: bool = True,
    margin_ft: float = MARGIN_FT,
    siting_cell_ft: float = DEFAULT_CELL_FT,
) -> DemWindow:
    """The DEM window of a check (and of its envelope and moves when ``siting``).

    Parameters
    ----------
    layers : mapping of FeatureLayer
        The site's layers in the working CRS (as read, before cleaning).
    pack : RulePack
        The rules; each DEM rule adds its part.
    unit_to_ft : float
        Working-CRS unit in feet.
    cell_ft : float, default 0
        The DEM's pixel size in feet (the flow trace's reach grows with it).
    site_parcel_id : str, optional
        The site parcel, as given to the check.
    siting : bool, default True
        Add the site parcel grown by the envelope's reach (the envelope and
        the suggested moves search it).
    margin_ft : float
        Added around each rule's part, feet.
    siting_cell_ft : float
        The cell of the envelope's grid, feet (the envelope's default; a coarser one reads farther past the site).
    """
    margin = margin_ft / unit_to_ft
    parts: list[WindowPart] = []
    needs = _pack_needs(pack, cell_ft)  # a rule whose kind reads no DEM adds no part
    reads = _LayerReads(layers, needs.specs)
    for need in needs.needs:
        b = _need_part(need, reads, unit_to_ft, margin)
        if b is not None:
            parts.append(WindowPart(need.need, b))
    if siting:
        b = siting_part(layers, pack, unit_to_ft, site_parcel_id, siting_cell_ft)
        if b is not None:
            parts.append(WindowPart("siting envelope", b))
    return DemWindow(tuple(parts))
