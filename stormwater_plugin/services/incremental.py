"""The live re-check's incremental run: only what an edit can change is recomputed, the rest is the last check's.

A check run with a :class:`Recorder` keeps, for each rule of the loop, what the rule added to the run (its findings
before the stated accuracy, zones, rules not checked, warnings, building sites, inventory, neighbour list) and
which role layers it read (the engine's read log). The next check of the same site is given that record as its
:class:`CheckBasis`; the engine runs it in full up to the rules (cleaning, site parcel, class: recomputed at every
edit), then, rule by rule:

* the setting the rules read besides the layers (the class and the classes possible, the site parcel, the
  disturbed area, the DEM, the pack, the working unit) differs from the basis's: every rule is run (a full check);
* no role the rule read last time changed: its outputs are the basis's. A rule's path through its code is decided
  by what it reads, so with the same inputs it reads the same roles and makes the same outputs;
* only devices moved (same features, same ids and attributes, other geometry) and the rule is one device's
  measurement at a time (:data:`PER_DEVICE_KINDS`): the rule is run for the moved devices only, and their outputs
  replace theirs in the basis's (the others' stay);
* only devices moved, and the rule says what it reads of the devices (``ctx.devices_read_as_before``: their
  attributes, the affected area, those in a strip, by content) and that is what it read last time: it stops there
  and its outputs are the basis's (its other inputs are the same, so all it reads is);
* otherwise the rule is run in full.

Every step after the rules (the stated accuracy, the order of the findings, the features' WKT) is the full
check's. So the result equals a full check's by construction; ``tests/headless/test_incremental_check.py`` holds
it to that over random edit sequences (hypothesis). The reach of a rule (:mod:`.reach`) does not bound what a
target's edit changes: a setback finding names each device's *nearest* feature of every target role, however
far, so an edit of a target role re-runs the rules that read it.

QGIS-free.
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Iterator, Mapping, Sequence, TypeVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.checks.context import NO_DEVICE_COVERED, CheckContext
from ..core.derived import Derived, current, same_bits, using
from ..core.model import DisplayZone, FeatureLayer, FeatureRef, Finding, InventoryRow, NotCheckedEntry, NotificationBlock, Warning_
from ..core.raster import ElevationGrid
from ..core.rulepack import Rule, RulePack

#: Kinds whose every output concerns one device, measured from that device alone (its geometry, its attributes, the
#: targets and the DEM): a moved device's outputs are found by running the rule for it alone.
PER_DEVICE_KINDS: frozenset[str] = frozenset({"device_setback", "device_slope", "vertical_separation"})

_T = TypeVar("_T")


@dataclass(frozen=True)
class RuleOutput:
    """What one rule added to a run, and the role layers it read."""

    findings: tuple[Finding, ...]
    zones: tuple[DisplayZone, ...]
    not_checked: tuple[NotCheckedEntry, ...]
    warnings: tuple[Warning_, ...]
    building_sites: tuple[object, ...]
    inventory: list[InventoryRow] | None
    notification: NotificationBlock | None
    read: frozenset[str]
    #: Whether the rule set ``ctx.inventory`` (``inventory`` is then what it set).
    sets_inventory: bool = False
    #: What the rule read of the devices (:meth:`~stormwater_plugin.core.checks.context.CheckContext.devices_read_as_before`), by
    #: content; ``None``: it did not say.
    devices_read: Hashable = None


@dataclass(frozen=True)
class CheckBasis:
    """What a check leaves for the next incremental one: the layers as the rules read them, the setting, each rule's outputs."""

    layers: Mapping[str, FeatureLayer]
    setting: tuple[object, ...]
    dem: ElevationGrid | None
    pack: RulePack
    rules: Mapping[str, RuleOutput]
    #: How the check that left it was made: the rules run in full, taken from its basis, run for the moved devices only;
    #: why every rule was run (empty when its basis was used).
    ran: tuple[str, ...] = ()
    replayed: tuple[str, ...] = ()
    narrowed: tuple[str, ...] = ()
    full_reason: str = ""
    #: The values derived from the layers in that check (:mod:`~stormwater_plugin.core.derived`), reused by content.
    derived: Derived | None = None


@dataclass
class Recorder:
    """The engine's :data:`~stormwater_plugin.core.engine.RuleStep`: records each rule's outputs, reusing the basis's where the edit cannot reach.

    Parameters
    ----------
    basis : CheckBasis, optional
        The last check of the same site (``None``: every rule is run, and recorded).

    Attributes
    ----------
    ran, replayed, narrowed : list of str
        The ids of the rules run in full, taken from the basis, and run for the moved devices only.
    full_reason : str
        Why every rule was run (empty when the basis was used).
    derived : Derived
        The check's derived values (``run_check(derived=...)``), reusing the basis's whose inputs are the same.
    """

    basis: CheckBasis | None = None
    ran: list[str] = field(default_factory=list)
    replayed: list[str] = field(default_factory=list)
    narrowed: list[str] = field(default_factory=list)
    full_reason: str = ""
    _outputs: dict[str, RuleOutput] = field(default_factory=dict)
    _started: bool = False
    _usable: bool = False
    _changed: set[str] = field(default_factory=set)
    _moved: dict[str, list[int]] = field(default_factory=dict)
    _layers: dict[str, FeatureLayer] = field(default_factory=dict)
    _setting: tuple[object, ...] = ()
    _dem: ElevationGrid | None = None
    _pack: RulePack | None = None
    _part: FeatureLayer | None = None
    _order: dict[str, int] | None = None
    _one_each: bool = True
    #: The rule running in full (:meth:`_devices_reading` answers it only), its basis's outputs when only devices moved and
    #: only they of its inputs, what it said it reads of the devices, and whether that was the basis's.
    _running: Rule | None = None
    _running_old: RuleOutput | None = None
    _devices_read: Hashable = None
    _as_before: bool = False
    derived: Derived = field(init=False)

    def __post_init__(self) -> None:
        self.derived = Derived(self.basis.derived if self.basis is not None else None)

    def __call__(self, ctx: CheckContext, rule: Rule, run: Callable[[], NotificationBlock | None]) -> NotificationBlock | None:
        if not self._started:
            self._start(ctx)
        old = self.basis.rules.get(rule.id) if self._usable and self.basis is not None else None
        if old is not None:
            touched = old.read & self._changed
            if not touched:
                _replay(ctx, old)
                self._outputs[rule.id] = old
                self.replayed.append(rule.id)
                return old.notification
            if touched == {"devices"} and "devices" in self._moved:
                if self._per_device(ctx, rule, run, old):
                    self.narrowed.append(rule.id)
                    return None
                self._running_old = old
        mark = _Mark.of(ctx)
        self._running, self._devices_read, self._as_before = rule, None, False
        try:
            made = run()
        finally:
            self._running = self._running_old = None
        if self._as_before and old is not None:
            # the rule stopped where it found it reads of the devices what it read last time: the basis's outputs stand
            mark.undo(ctx)
            _replay(ctx, old)
            self._outputs[rule.id] = old
            self.replayed.append(rule.id)
            return old.notification
        self._outputs[rule.id] = mark.output(ctx, made, frozenset(_read(ctx)), self._devices_read)
        self.ran.append(rule.id)
        return made

    def basis_after(self) -> CheckBasis | None:
        """The basis the next incremental check of this site starts from (``None`` before a run)."""
        if not self._started:
            return None
        assert self._pack is not None
        return CheckBasis(self._layers, self._setting, self._dem, self._pack, dict(self._outputs), tuple(self.ran), tuple(self.replayed),
                          tuple(self.narrowed), self.full_reason, self.derived)

    # -- the edit -------------------------------------------------------------

    def _devices_reading(self, rule: Rule, key: Callable[[], Hashable]) -> bool:
        """``ctx.devices_read_as_before``: ``key()`` kept with the rule's outputs; whether it equals the basis's and only the
        devices moved (its other inputs the same)."""
        if rule is not self._running:
            return False  # asked by a rule run for the moved devices alone, or by another than the one running: run it
        try:
            made = key()
            hash(made)
        except TypeError:
            return False
        self._devices_read = made
        old = self._running_old
        self._as_before = old is not None and old.devices_read is not None and old.devices_read == made
        return self._as_before

    def _start(self, ctx: CheckContext) -> None:
        self._started = True
        ctx.devices_reading = self._devices_reading
        self._layers = {r: dict.__getitem__(ctx.layers, r) for r in dict.keys(ctx.layers)}
        self._setting = _setting(ctx)
        self._dem, self._pack = ctx.dem, ctx.pack
        basis = self.basis
        if basis is None:
            self.full_reason = "no earlier check"
            return
        if basis.setting != self._setting:
            self.full_reason = "the class, the site parcel or the disturbed area changed"
        elif basis.pack is not ctx.pack and basis.pack != ctx.pack:
            self.full_reason = "the rules changed"
        elif not self.derived.same_grid_keyed(basis.dem, ctx.dem) and not same_dem(basis.dem, ctx.dem):  # keyed the same: the same bits
            self.full_reason = "the DEM window changed"
        if self.full_reason:
            return
        self._usable = True
        for role in set(basis.layers) | set(self._layers):
            before, after = basis.layers.get(role), self._layers.get(role)
            if before is None or after is None or not _same_features(before, after):
                self._changed.add(role)
                continue
            moved = _moved(before, after)
            if moved:
                self._changed.add(role)
                self._moved[role] = moved

    # -- one rule for the moved devices -----------------------------------------

    def _per_device(self, ctx: CheckContext, rule: Rule, run: Callable[[], NotificationBlock | None], old: RuleOutput) -> bool:
        """Run ``rule`` for the moved devices only and put their outputs in the basis's place; ``False`` when it cannot be."""
        if rule.kind not in PER_DEVICE_KINDS or rule.params.get("allowance") or old.warnings or old.building_sites or old.sets_inventory:
            return False
        if any(str(t.get("role")) == "devices" for t in rule.params.get("targets") or () if isinstance(t, Mapping)):
            return False
        layer = self._layers["devices"]
        positions = self._moved["devices"]
        ids = [str(layer.ids[i]) for i in positions]
        if self._order is None:  # the devices' order, and whether each id is one device's: once per check, for every rule
            self._order = {str(i): n for n, i in enumerate(layer.ids)}
            self._one_each = len(set(layer.ids)) == len(layer.ids) and not any("+" in i for i in layer.ids)
        if not self._one_each:
            return False  # an id shared by several features, or joined: its outputs are not one device's
        moved = set(ids)
        if self._part is None:
            # one layer of the moved devices for every rule run for them (never changed by a rule): what is kept per layer
            # object (each device's plausible extent) is made once per check
            self._part = FeatureLayer(layer.role, layer.geoms[positions], list(ids), [layer.attrs[i] for i in positions], {})
        part = self._part
        mark = _Mark.of(ctx)
        dict.__setitem__(ctx.layers, "devices", part)
        try:
            made = run()
        finally:
            dict.__setitem__(ctx.layers, "devices", layer)
        new = mark.output(ctx, made, frozenset(_read(ctx)))
        mark.undo(ctx)
        # A rule covering none of the moved devices says so; a move leaves the attributes it chose by as they were, so it
        # covered none of them before either: their outputs are none, now as then.
        extra_skips = [e for e in new.not_checked if e not in old.not_checked and not (e.get("reason") == NO_DEVICE_COVERED and not new.findings)]
        if (made is not None or new.warnings or new.building_sites or new.sets_inventory or extra_skips
                or any(_device_of(f.other) is not None for f in (*old.findings, *new.findings))
                or any(i in str(e.get("reason", "")) for e in old.not_checked for i in moved)):
            return False  # not one device's outputs alone: the whole rule is run
        order = self._order
        findings = _merge(old.findings, [f for f in new.findings if _device_of(f.subject) in moved], lambda f: _device_of(f.subject), moved, order)
        zones = _merge(old.zones, [z for z in new.zones if _device_of(z.subject) in moved], lambda z: _device_of(z.subject), moved, order)
        out = _narrowed(old, tuple(findings), tuple(zones), old.read | new.read)
        _replay(ctx, out)
        self._outputs[rule.id] = out
        return True


@contextmanager
def after_the_check(basis: CheckBasis | None) -> Iterator[None]:
    """What a live task makes after its check (the result layers' rows) goes through the check's derived values, not settled again."""
    with using(basis.derived if basis is not None else None, settle=False):
        yield


def _read(ctx: CheckContext) -> Iterable[str]:
    return getattr(ctx.layers, "read", ())


def _setting(ctx: CheckContext) -> tuple[object, ...]:
    """What the rules read besides the layers, the DEM and the pack, as plain comparable values."""
    return (ctx.project_class, ctx.class_source, tuple(ctx.possible_classes), tuple(ctx.site_ids), _wkb(ctx.site_geometry),
            ctx.disturbed_sqft, _wkb(ctx.disturbance_geometry), ctx.unit_to_ft, ctx.dem_source is None)


def _wkb(geom: BaseGeometry | None) -> bytes | None:
    if geom is None:
        return None
    derived = current()  # the check's: a geometry kept from the last check (the site's union) has its WKB written already
    return bytes(derived.wkb([geom])[0] or b"") if derived is not None else bytes(shapely.to_wkb(geom, hex=False, include_srid=False))


def same_dem(a: ElevationGrid | None, b: ElevationGrid | None) -> bool:
    """Whether two reads of a DEM window hold the same grid (values, placement, unit; the transform function is not compared)."""
    if a is b:
        return True
    if a is None or b is None or type(a) is not type(b):
        return False
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape
                    and ((x.dtype == y.dtype and same_bits(x, y)) or np.array_equal(x, y, equal_nan=True))):  # the same bits: equal, sooner
                return False
        elif callable(x) or callable(y):
            continue  # the transform to the raster's CRS: made again by each read of the same DEM
        elif x != y:
            return False
    return True


def _same_features(a: FeatureLayer, b: FeatureLayer) -> bool:
    """The same features (ids, order, attributes, those without geometry); their geometries may differ."""
    if a is b:  # one layer object (the read hands an unedited layer on): each list equals itself, its items compared by identity first
        return True
    return a.role == b.role and list(a.ids) == list(b.ids) and list(a.attrs) == list(b.attrs) and dict(a.no_geometry) == dict(b.no_geometry)


def _moved(a: FeatureLayer, b: FeatureLayer) -> list[int]:
    """Positions whose geometry differs (exactly: its WKB)."""
    if a.geoms is b.geoms:
        return []
    derived = current()  # the check's: the WKB of the layers the check has keyed (both, mostly) are written already
    if derived is not None:
        wa, wb = derived.wkb(list(a.geoms)), derived.wkb(list(b.geoms))
    else:
        wa = shapely.to_wkb(np.asarray(a.geoms, dtype=object), hex=False, include_srid=False).tolist()
        wb = shapely.to_wkb(np.asarray(b.geoms, dtype=object), hex=False, include_srid=False).tolist()
    return [i for i in range(len(wa)) if wa[i] != wb[i]]


def _narrowed(old: RuleOutput, findings: tuple[Finding, ...], zones: tuple[DisplayZone, ...], read: frozenset[str]) -> RuleOutput:
    """``dataclasses.replace(old, findings=..., zones=..., read=..., devices_read=None)`` written out (replace inspects the fields
    at every call): every other output is the basis's. What the rule read of the devices is not known of the moved ones (it was
    not asked): never the basis's, which the moved devices may no longer give."""
    return RuleOutput(findings, zones, old.not_checked, old.warnings, old.building_sites, old.inventory, old.notification, read, old.sets_inventory, None)


def _device_of(ref: FeatureRef | None) -> str | None:
    return str(ref.id) if ref is not None and ref.layer == "devices" else None


def _merge(old: Sequence[_T], new: Sequence[_T], device: Callable[[_T], str | None], moved: set[str], order: Mapping[str, int]) -> list[_T]:
    """``old`` without the moved devices' items, with ``new`` (theirs) where the full run puts them: in the devices' layer order."""
    pending = sorted(new, key=lambda item: order.get(device(item) or "", -1))  # stable: a device's items keep their order
    out: list[_T] = []
    for item in old:
        d = device(item)
        if d in moved:
            continue
        if d is not None:
            while pending and order.get(device(pending[0]) or "", -1) < order.get(d, -1):
                out.append(pending.pop(0))
        out.append(item)
    out.extend(pending)
    return out


@dataclass(frozen=True)
class _Mark:
    """Where a rule's outputs start in the context's lists."""

    findings: int
    zones: int
    not_checked: int
    warnings: int
    building_sites: int
    inventory: list[InventoryRow]

    @classmethod
    def of(cls, ctx: CheckContext) -> _Mark:
        return cls(len(ctx.findings), len(ctx.zones), len(ctx.not_checked), len(ctx.warnings), len(ctx.building_sites), ctx.inventory)

    def output(self, ctx: CheckContext, made: NotificationBlock | None, read: frozenset[str], devices_read: Hashable = None) -> RuleOutput:
        sets = ctx.inventory is not self.inventory
        return RuleOutput(tuple(ctx.findings[self.findings:]), tuple(ctx.zones[self.zones:]), tuple(ctx.not_checked[self.not_checked:]),
                          tuple(ctx.warnings[self.warnings:]), tuple(ctx.building_sites[self.building_sites:]),
                          ctx.inventory if sets else None, made, read, sets, devices_read)

    def undo(self, ctx: CheckContext) -> None:
        del ctx.findings[self.findings:], ctx.zones[self.zones:], ctx.not_checked[self.not_checked:], ctx.warnings[self.warnings:]
        del ctx.building_sites[self.building_sites:]
        ctx.inventory = self.inventory


def _replay(ctx: CheckContext, out: RuleOutput) -> None:
    ctx.findings.extend(out.findings)
    ctx.zones.extend(out.zones)
    ctx.not_checked.extend(out.not_checked)
    ctx.warnings.extend(out.warnings)
    ctx.building_sites.extend(out.building_sites)
    if out.sets_inventory:
        ctx.inventory = out.inventory if out.inventory is not None else []


__all__ = ["CheckBasis", "PER_DEVICE_KINDS", "Recorder", "RuleOutput", "after_the_check", "same_dem"]
