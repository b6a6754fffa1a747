"""Values derived from the check's layers, kept for the next check of the same site while their inputs stay the same.

The live re-check (issue 39) runs the check again at every edit; most of what the rules and the class derive (the
cleaned layers, area unions, the no-cut strip, each feature's nearest shoreline) is made of layers the edit did not
touch. A :class:`Derived` made from the last check's (``Derived(earlier)``) hands such a value back instead of
computing it again, but only when every input it was computed from is the same *by content*: geometries by their WKB
(exact coordinates), layers by role, ids, WKB, attributes (value and type) and features without geometry, a DEM grid
by its values (bit for bit), placement and unit, and its transforms by identity (a new read's new transform is another
grid), plain parameters by equality (and type). Never by position, object identity across checks or time: a value whose input
changed is computed again. A value that cannot be keyed (an unhashable attribute) is always computed.

A layer's content (and a union's parts', many geometries) is keyed once per check: its full key is looked up in a table of
content tokens (carried from check to check as the values are), and the values it is an input of are keyed by its token, a
number given to that one content only. So a look-up hashes and compares a few numbers and words, not a layer's content
again: the same content has the same token from check to check, another content never has it.

A check uses one through :func:`using` (the thread's current one, so the helpers deep in the rules need no extra
argument); :func:`derive` computes directly when none is in use (every full check, the envelope, the moves).
Each :class:`Derived` keeps only the values its check used, so what is carried from one check to the next stays
one check's worth. Values are shared between checks: what is cached must never be mutated (geometries, tuples).

QGIS-free.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import threading
from contextlib import contextmanager
from itertools import chain
from typing import Any, Callable, Hashable, Iterable, Iterator, TypeVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .geometry_arrays import object_array
from .model import FeatureLayer
from .raster import ElevationGrid

_T = TypeVar("_T")
_NO_KEY = object()
#: The plain types a value is keyed by as it is (with its type's name: 1, 1.0 and True differ).
_PLAIN: frozenset[type] = frozenset({str, int, float, bool, bytes, type(None), frozenset})
_PLAIN_TUPLE: frozenset[type] = frozenset({tuple})
_local = threading.local()
#: The next content token (:meth:`Derived._token`): never given twice in a process (``next`` on it is one step under the GIL).
_TOKENS = itertools.count(1)


class Derived:
    """The derived values of one check, reusing those of ``earlier`` whose inputs are the same.

    Parameters
    ----------
    earlier : Derived, optional
        The last check of the same site's (``None``: every value is computed, and kept for the next).

    Attributes
    ----------
    reused, made : int
        How many values were taken from ``earlier`` and computed in this check.
    """

    def __init__(self, earlier: Derived | None = None) -> None:
        self._earlier: dict[Hashable, Any] = earlier._values if earlier is not None else {}
        self._values: dict[Hashable, Any] = {}
        #: id of a layer or geometry seen in this check -> (the object, held so its id stays its own; its key; its content key
        #: when the key is a token)
        self._keys: dict[int, tuple[object, Hashable, Hashable]] = {}
        #: A layer's (or a union's parts') content key -> its token, this check's and the earlier one's (:meth:`_token`).
        self._tokens: dict[Hashable, int] = {}
        self._tokens_earlier: dict[Hashable, int] = earlier._tokens if earlier is not None else {}
        #: id of a geometry -> (the geometry, held; its WKB): a geometry is immutable, so its WKB, written once, serves every
        #: later check that holds the same object (the read shares the unedited layers' geometries between checks).
        self._wkb_earlier: dict[int, tuple[BaseGeometry, bytes]] = earlier._wkb if earlier is not None else {}
        self._wkb: dict[int, tuple[BaseGeometry, bytes]] = {}
        #: id of a kept value -> (the value, held; the object it was made with; what was made of them) (:meth:`made_of`)
        self._made_earlier: dict[int, tuple[object, object, Any]] = earlier._made if earlier is not None else {}
        self._made: dict[int, tuple[object, object, Any]] = {}
        if earlier is not None:
            earlier._wkb_earlier = {}  # the check before the earlier one: its geometries are let go (a later one reads earlier's own)
            earlier._made_earlier = {}
        #: The keys of the layers among the earlier check's values (a cleaned layer reused is keyed again by later values): a
        #: value is never changed (see the module's text), so its content key stays its own.
        self._value_keys: dict[int, tuple[object, Hashable, Hashable]] = earlier._kept_keys if earlier is not None else {}
        self._kept_keys: dict[int, tuple[object, Hashable, Hashable]] = {}
        #: The DEM grids of this check and of the earlier one, each with its key: a new read of the same window (the live
        #: read copies its values) is compared with the earlier grid, bit for bit, rather than hashed again.
        self._grids: list[tuple[ElevationGrid, Hashable]] = []
        self._grids_earlier: list[tuple[ElevationGrid, Hashable]] = earlier._grids if earlier is not None else []
        #: What the values looked up while recording (:meth:`recording`) were keyed by, else ``None``.
        self._recorded: Used | None = None
        self.reused = 0
        self.made = 0

    def value(self, name: str, compute: Callable[[], _T], *inputs: object) -> _T:
        """``compute()``, or the value computed from the same ``inputs`` (layers, geometries, plain values) before."""
        try:  # the key, and the look-up that hashes it: a key that cannot be built or hashed (TypeError) computes the value
            key = tuple(self._inputs_key([name], inputs))  # small: a layer's content is its token
            found = self._values.get(key, _NO_KEY)
        except TypeError:
            return compute()
        if self._recorded is not None:
            self._recorded.values.append(key)
        if found is not _NO_KEY:
            return found  # type: ignore[no-any-return]
        found = self._earlier.get(key, _NO_KEY)
        if found is not _NO_KEY:
            self.reused += 1
            self._values[key] = found
            return found  # type: ignore[no-any-return]
        made = compute()
        self.made += 1
        self._values[key] = made
        return made

    def each(self, name: str, compute: Callable[[list[Any]], list[_T]], items: list[Any], *inputs: object) -> list[_T]:
        """One value per item of ``items``, each keyed by the item and ``inputs``: those not kept are computed together.

        ``compute`` is given the items not found (in their order) and returns their values in the same order; a value
        depends on its own item and ``inputs`` only (one device's part of a rule: the moved device's alone is computed).
        The values of one ``name`` and ``inputs`` are kept together, each under its item's key (a geometry's WKB).
        """
        try:
            group = tuple(self._inputs_key(["each", name], inputs))
            hash(group)
            if all(isinstance(x, BaseGeometry) for x in items):
                keys: list[Hashable] = list(self.wkb(items))
            else:
                keys = self._inputs_key([], items)
                for k in keys:
                    hash(k)
        except TypeError:
            return list(compute(list(items)))
        if self._recorded is not None:
            self._recorded.items.append((group, keys))
        mine: dict[Hashable, Any] | None = self._values.get(group)
        if mine is None:
            mine = self._values[group] = {}
        before: dict[Hashable, Any] = self._earlier.get(group) or {}
        out: list[Any] = [_NO_KEY] * len(items)
        for n, key in enumerate(keys):
            found = mine.get(key, _NO_KEY)
            if found is _NO_KEY:
                found = before.get(key, _NO_KEY)
                if found is not _NO_KEY:
                    mine[key] = found
                    self.reused += 1
            out[n] = found
        missing = [n for n, v in enumerate(out) if v is _NO_KEY]
        if missing:
            made = compute([items[n] for n in missing])
            if len(made) != len(missing):
                raise ValueError(f"{name}: {len(made)} values for {len(missing)} items")
            for n, v in zip(missing, made):
                out[n] = mine[keys[n]] = v
            self.made += len(missing)
        return out

    def made_of(self, source: object, other: object, make: Callable[[], _T]) -> _T:
        """``make()``, or what the earlier check made of the same objects: ``source`` (a value this or the earlier check kept,
        never changed, held here so its id stays its own) and ``other`` (compared by identity: a rule of the pack, frozen).

        The same object is handed back (a finding made of a kept judgement: the next steps find what they keyed of it by the
        object), once per check: asked again for the same ``source`` in one check, ``make()`` makes another.
        """
        k = id(source)
        if k in self._made:
            return make()
        seen = self._made_earlier.get(k)
        if seen is None or seen[0] is not source or seen[1] is not other:
            seen = (source, other, make())
        self._made[k] = seen
        return seen[2]  # type: ignore[return-value]

    @contextmanager
    def recording(self) -> Iterator[Used]:
        """What the values looked up in the block are keyed by (their keys, each item's, the contents given tokens), noted in
        the :class:`Used` yielded (and in an enclosing recording's too): :meth:`carry` keeps them for the next check when a
        check takes what they made without looking them up (a result carried whole, :func:`~.checks.affected.affected_area`)."""
        outer = self._recorded
        used = self._recorded = Used([], [], [])
        try:
            yield used
        finally:
            self._recorded = outer
            if outer is not None:
                outer.values.extend(used.values)
                outer.items.extend(used.items)
                outer.tokens.extend(used.tokens)

    def carry(self, used: Used) -> None:
        """Keep for the next check the values ``used`` names that the earlier check held, and the tokens of its contents, as
        if this check had looked them up (each check keeps only what it used): a result made of them and carried whole by a
        check that did not look them up leaves them to the next check that does. Only what the earlier check held is kept, under
        the same keys: the same values a look-up would have found."""
        values, earlier = self._values, self._earlier
        for key in used.values:
            if key not in values:
                found = earlier.get(key, _NO_KEY)
                if found is not _NO_KEY:
                    values[key] = found
        for group, keys in used.items:
            before = earlier.get(group)
            if not before:
                continue
            mine = values.get(group)
            if mine is None:
                mine = values[group] = {}
            for k in keys:
                if k not in mine:
                    found = before.get(k, _NO_KEY)
                    if found is not _NO_KEY:
                        mine[k] = found
        tokens, tokens_earlier = self._tokens, self._tokens_earlier
        for content in used.tokens:
            if content not in tokens:
                token = tokens_earlier.get(content)
                if token is not None:
                    tokens[content] = token
        if self._recorded is not None:  # carried within a recording: its result is made of them too
            self._recorded.values.extend(used.values)
            self._recorded.items.extend(used.items)
            self._recorded.tokens.extend(used.tokens)

    def settle(self) -> None:
        """The check is over: let go of the earlier check's values and of this check's objects (its values and its geometries' WKB
        are carried on; the earlier check's WKB go when the next check starts from this one)."""
        self._earlier = {}
        self._tokens_earlier = {}
        self._grids_earlier = []
        layers = [x for v in self._values.values() for x in (v if isinstance(v, tuple) else (v,)) if isinstance(x, FeatureLayer)]
        self._kept_keys = {id(x): self._keys[id(x)] for x in layers if id(x) in self._keys and self._keys[id(x)][0] is x}
        # a frozen layer (FeatureLayer.freeze: the read's of an unedited role, handed to the next check as the same object) keeps
        # its content while it lives: its key is carried as a kept value's is, held with it
        self._kept_keys.update({k: e for k, e in self._keys.items() if isinstance(e[0], FeatureLayer) and e[0].frozen})
        self._keys = {}
        self._value_keys = {}
        # the earlier check's WKB stay until the next check starts from this one: what follows the check (the result layers'
        # rows, ``wkb``) finds there the geometries the check kept from it (a finding's line, a zone)

    def wkb(self, geoms: Any) -> list[bytes | None]:
        """The WKB of each of ``geoms`` (no SRID; ``None`` for a missing one), written once per geometry object (see ``_wkb``)."""
        out: list[bytes | None] = []
        missing: list[int] = []
        mine, earlier = self._wkb, self._wkb_earlier
        for g in geoms:
            k = id(g)
            seen = mine.get(k)
            if seen is None or seen[0] is not g:
                seen = earlier.get(k)
                if seen is None or seen[0] is not g:
                    missing.append(len(out))
                    out.append(None)
                    continue
                mine[k] = seen
            out.append(seen[1])
        if missing:
            arr = object_array([geoms[n] for n in missing])
            for n, w in zip(missing, shapely.to_wkb(arr, hex=False, include_srid=False).tolist()):
                g = geoms[n]
                if isinstance(g, BaseGeometry):
                    self._wkb[id(g)] = (g, w)
                out[n] = w
        return out

    def _inputs_key(self, parts: list[Hashable], inputs: Iterable[object]) -> list[Hashable]:
        """``parts`` followed by each input's :meth:`_input_key`: its first two steps (a plain value, an object keyed already in
        this check: most inputs) taken here, the same keys, without a call for each input."""
        keys = self._keys
        for x in inputs:
            t = type(x)
            if t in _PLAIN:
                parts.append((t.__name__, x))
                continue
            seen = keys.get(id(x))
            parts.append(seen[1] if seen is not None and seen[0] is x else self._input_key(x))
        return parts

    def _input_key(self, x: object) -> Hashable:
        t = type(x)
        if t in _PLAIN:  # the commonest inputs first (a feature's attribute values), by their exact type: the same key as below
            return (t.__name__, x)
        seen = self._keys.get(id(x))  # a layer or geometry keyed already in this check (only those are kept, each held)
        if seen is not None and seen[0] is x:
            return seen[1]
        if (t is tuple or t is list) and isinstance(x, (tuple, list)):
            # plain values (a feature's attribute values), or tuples of them (its attribute items), kept as they are with
            # the exact type of each: 1, 1.0 and True differ, and so do a tuple and a list (its name, and the types)
            values = tuple(x) if t is list else x
            types = tuple(map(type, values))
            if _PLAIN.issuperset(types):
                return (t.__name__, values, types)
            if types and _PLAIN_TUPLE == frozenset(types):
                leaves = tuple(map(type, chain.from_iterable(values)))
                if _PLAIN.issuperset(leaves):
                    return (f"{t.__name__} of tuples", values, leaves)
            if not (values and isinstance(values[0], BaseGeometry) and all(isinstance(v, BaseGeometry) for v in values)):  # not the parts of a union (below)
                return (t.__name__, *[(type(v).__name__, v) if type(v) in _PLAIN else self._input_key(v) for v in values])
        if isinstance(x, (FeatureLayer, BaseGeometry)):
            seen = self._keys.get(id(x)) or self._value_keys.get(id(x))
            if seen is not None and seen[0] is x:
                self._keys[id(x)] = seen
                if seen[2] is not None:  # a layer kept as a value: its token stays its content's in this check's table too
                    self._tokens.setdefault(seen[2], seen[1])  # type: ignore[arg-type]
                return seen[1]
            if isinstance(x, FeatureLayer):  # its features' WKB written at once (a value of one feature finds its own there)
                content, _ = _layer_key(x, self.wkb(x.geoms) if len(x) else [])
                entry: tuple[object, Hashable, Hashable] = (x, self._token(content), content)
            else:
                entry = (x, ("geometry", self.wkb([x])[0]), None)  # one WKB: a small key as it is
            self._keys[id(x)] = entry
            return entry[1]
        if isinstance(x, ElevationGrid):
            return self._grid_key(x)
        if isinstance(x, (list, tuple)):
            if x and all(isinstance(v, BaseGeometry) for v in x):  # the parts of a union: their WKB at once
                return self._token(_Key(("geometries", *self.wkb(x))))
            return (type(x).__name__, *(self._input_key(v) for v in x))
        if x is None or isinstance(x, (str, int, float, bool, bytes, frozenset)):
            return (type(x).__name__, x)
        raise TypeError(f"no content key for {type(x).__name__}")

    def same_grid_keyed(self, earlier: ElevationGrid | None, grid: ElevationGrid | None) -> bool:
        """Whether ``earlier`` (a grid the earlier check keyed) and ``grid`` (one this check keyed) hold the same content by
        their keys: values bit for bit, every other field equal, the transforms the same objects. Nothing is keyed here:
        ``False`` when either was not keyed (the caller compares them itself)."""
        if earlier is None or grid is None:
            return False
        before = next((k for g, k in self._grids_earlier if g is earlier), None)
        now = next((k for g, k in self._grids if g is grid), None)
        return before is not None and now is not None and (before is now or before == now)

    def _token(self, content: Hashable) -> int:
        """The token of ``content`` (a layer's content key): this check's, else the earlier check's, else a new one.

        A token is given to one content only (a new one is never given before), and a content keeps its token while the
        checks carry it (each check carries the tokens of the contents it keyed): values keyed by tokens are the same
        values as keyed by the contents. Each look-up hashes the content once (its hash is kept) and, found in the earlier
        table, compares it once, per check rather than per value.
        """
        if self._recorded is not None:
            self._recorded.tokens.append(content)
        token = self._tokens.get(content)
        if token is None:
            token = self._tokens_earlier.get(content)
            if token is None:
                token = next(_TOKENS)
            self._tokens[content] = token
        return token

    def _grid_key(self, grid: ElevationGrid) -> Hashable:
        for g, key in self._grids:
            if g is grid:
                return key
        key = next((k for g, k in self._grids_earlier if g is grid or _same_grid(g, grid)), None)
        if key is None:
            key = _Key(("grid", *(array_key(v) if isinstance(v, np.ndarray) else v for v in (getattr(grid, f.name) for f in dataclasses.fields(grid)))))
        self._grids.append((grid, key))
        return key


def _same_grid(a: ElevationGrid, b: ElevationGrid) -> bool:
    """Whether two grids are the same content: values bit for bit, every other field equal, transforms the same objects."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape and x.dtype == y.dtype and same_bits(x, y)):
                return False
        elif callable(x) or callable(y):
            if x is not y:
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two arrays of one dtype and shape hold the same bytes (``-0.0`` is not ``0.0``; NaN is NaN)."""
    if x.flags.c_contiguous and y.flags.c_contiguous and x.dtype.itemsize == 8:
        return bool(np.array_equal(x.view(np.uint64), y.view(np.uint64)))
    return x.tobytes() == y.tobytes()


class _Key(tuple):  # type: ignore[type-arg]
    """A content key whose hash is computed once (a layer's key is looked up several times, nested in other keys)."""

    _h: int

    def __hash__(self) -> int:
        try:
            h: int = self._h
        except AttributeError:
            h = self._h = tuple.__hash__(self)
        return h


@dataclasses.dataclass(frozen=True)
class Used:
    """What the values looked up while a :class:`Derived` recorded (:meth:`Derived.recording`) were keyed by: each value's key,
    each ``each`` group's key with its items' keys, and each content given a token."""

    values: list[Hashable]
    items: list[tuple[Hashable, list[Hashable]]]
    tokens: list[Hashable]


def layer_key(layer: FeatureLayer) -> Hashable:
    """A layer's content as a hashable value: role, ids, each geometry's WKB, attributes (with their types), features without geometry."""
    return _layer_key(layer)[0]


def _layer_key(layer: FeatureLayer, wkb_list: list[bytes | None] | None = None) -> tuple[Hashable, tuple[bytes | None, ...]]:
    if wkb_list is None:
        wkb_list = shapely.to_wkb(np.asarray(layer.geoms, dtype=object), hex=False, include_srid=False).tolist() if len(layer) else []
    wkb = tuple(wkb_list)
    # each feature's field names and values, and the types of both (1, 1.0 and True differ): written as flat tuples of the
    # layer's names and of its values, in order, with the number of fields of each feature (where each feature ends), rather
    # than tuples per feature (the same content told apart, built in fewer steps: most of a layer's key is its attributes)
    attrs = layer.attrs
    names = tuple(chain.from_iterable(attrs))
    values = tuple(chain.from_iterable([a.values() for a in attrs]))
    fields = (tuple(map(len, attrs)), names, values, tuple(map(type, names)), tuple(map(type, values)))
    return _Key(("layer", layer.role, tuple(layer.ids), wkb, fields, tuple(layer.no_geometry.items()))), wkb


def array_key(values: np.ndarray) -> Hashable:
    """An array's content as a hashable value: its dtype, shape and a 256-bit BLAKE2b digest of its bytes (a DEM window is too large to keep twice)."""
    a = np.ascontiguousarray(values)
    return ("array", a.dtype.str, tuple(int(n) for n in a.shape), hashlib.blake2b(memoryview(a).cast("B"), digest_size=32).digest())


def current() -> Derived | None:
    """The :class:`Derived` of the check running in this thread (``None``: none in use)."""
    found: Derived | None = getattr(_local, "derived", None)
    return found


@contextmanager
def using(derived: Derived | None, settle: bool = True) -> Iterator[Derived | None]:
    """Make ``derived`` this thread's current one while the block runs (``None``: none, values computed directly); then settle it.

    ``settle=False``: a first part of the check (its read), the check itself following with the same ``derived``.
    """
    before = current()
    _local.derived = derived
    try:
        yield derived
    finally:
        _local.derived = before
        if derived is not None and settle:
            derived.settle()


def derive(name: str, compute: Callable[[], _T], *inputs: object) -> _T:
    """``compute()`` through the thread's current :class:`Derived` (directly when none is in use)."""
    derived = current()
    return compute() if derived is None else derived.value(name, compute, *inputs)


def derive_each(name: str, compute: Callable[[list[Any]], list[_T]], items: list[Any], *inputs: object) -> list[_T]:
    """:meth:`Derived.each` through the thread's current :class:`Derived` (``compute(items)`` when none is in use)."""
    derived = current()
    return list(compute(list(items))) if derived is None else derived.each(name, compute, items, *inputs)


__all__ = ["Derived", "Used", "array_key", "current", "derive", "derive_each", "layer_key", "same_bits", "using"]
