"""Values derived from the check's layers, kept for the next check of the same site while their inputs stay the same.

The live re-check (issue 39) runs the check again at every edit; most of what the rules and the class derive (the
cleaned layers, area unions, the no-cut strip, each feature's nearest shoreline) is made of layers the edit did not
touch. A :class:`Derived` made from the last check's (``Derived(earlier)``) hands such a value back instead of
computing it again, but only when every input it was computed from is the same *by content*: geometries by their WKB
(exact coordinates), layers by role, ids, WKB, attributes (value and type) and features without geometry, plain
parameters by equality (and type). Never by position, object identity across checks or time: a value whose input
changed is computed again. A value that cannot be keyed (an unhashable attribute) is always computed.

A check uses one through :func:`using` (the thread's current one, so the helpers deep in the rules need no extra
argument); :func:`derive` computes directly when none is in use (every full check, the envelope, the moves).
Each :class:`Derived` keeps only the values its check used, so what is carried from one check to the next stays
one check's worth. Values are shared between checks: what is cached must never be mutated (geometries, tuples).

QGIS-free.
"""

from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from typing import Any, Callable, Hashable, Iterator, TypeVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .model import FeatureLayer

_T = TypeVar("_T")
_NO_KEY = object()
_local = threading.local()


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
        #: id of a layer or geometry seen in this check -> (the object, held so its id stays its own; its key)
        self._keys: dict[int, tuple[object, Hashable]] = {}
        self.reused = 0
        self.made = 0

    def value(self, name: str, compute: Callable[[], _T], *inputs: object) -> _T:
        """``compute()``, or the value computed from the same ``inputs`` (layers, geometries, plain values) before."""
        key = self._key(name, inputs)
        if key is _NO_KEY:
            return compute()
        for store in (self._values, self._earlier):
            if key in store:
                found: _T = store[key]
                if store is self._earlier:
                    self.reused += 1
                    self._values[key] = found
                return found
        made = compute()
        self.made += 1
        self._values[key] = made
        return made

    def settle(self) -> None:
        """The check is over: let go of the earlier check's values and of this check's objects (only its values are carried on)."""
        self._earlier = {}
        self._keys = {}

    def _key(self, name: str, inputs: tuple[object, ...]) -> Hashable:
        try:
            key = (name, *(self._input_key(x) for x in inputs))
            hash(key)
        except TypeError:
            return _NO_KEY
        return key

    def _input_key(self, x: object) -> Hashable:
        if isinstance(x, (FeatureLayer, BaseGeometry)):
            seen = self._keys.get(id(x))
            if seen is not None and seen[0] is x:
                return seen[1]
            if isinstance(x, FeatureLayer):
                key, wkb = _layer_key(x)
                for g, w in zip(x.geoms, wkb):  # its features' own keys, made at once (a value of one feature asks for them)
                    self._keys.setdefault(id(g), (g, ("geometry", w)))
            else:
                key = ("geometry", _wkb(x))
            self._keys[id(x)] = (x, key)
            return key
        if isinstance(x, (list, tuple)):
            if x and all(isinstance(v, BaseGeometry) for v in x):  # the parts of a union: their WKB at once
                return ("geometries", *shapely.to_wkb(np.asarray(x, dtype=object), hex=False, include_srid=False).tolist())
            return (type(x).__name__, *(self._input_key(v) for v in x))
        if x is None or isinstance(x, (str, int, float, bool, bytes, frozenset)):
            return (type(x).__name__, x)
        raise TypeError(f"no content key for {type(x).__name__}")


def layer_key(layer: FeatureLayer) -> Hashable:
    """A layer's content as a hashable value: role, ids, each geometry's WKB, attributes (with their types), features without geometry."""
    return _layer_key(layer)[0]


def _layer_key(layer: FeatureLayer) -> tuple[Hashable, tuple[bytes, ...]]:
    wkb = tuple(shapely.to_wkb(np.asarray(layer.geoms, dtype=object), hex=False, include_srid=False).tolist()) if len(layer) else ()
    attrs = tuple(tuple((str(k), type(v).__name__, v) for k, v in a.items()) for a in layer.attrs)
    return ("layer", layer.role, tuple(layer.ids), wkb, attrs, tuple(layer.no_geometry.items())), wkb


def array_key(values: np.ndarray) -> Hashable:
    """An array's content as a hashable value: its dtype, shape and a 256-bit BLAKE2b digest of its bytes (a DEM window is too large to keep twice)."""
    a = np.ascontiguousarray(values)
    return ("array", a.dtype.str, tuple(int(n) for n in a.shape), hashlib.blake2b(memoryview(a).cast("B"), digest_size=32).digest())


def _wkb(g: BaseGeometry) -> bytes:
    return bytes(shapely.to_wkb(g, hex=False, include_srid=False))


def current() -> Derived | None:
    """The :class:`Derived` of the check running in this thread (``None``: none in use)."""
    found: Derived | None = getattr(_local, "derived", None)
    return found


@contextmanager
def using(derived: Derived | None) -> Iterator[Derived | None]:
    """Make ``derived`` this thread's current one while the block runs (``None``: none, values computed directly); then settle it."""
    before = current()
    _local.derived = derived
    try:
        yield derived
    finally:
        _local.derived = before
        if derived is not None:
            derived.settle()


def derive(name: str, compute: Callable[[], _T], *inputs: object) -> _T:
    """``compute()`` through the thread's current :class:`Derived` (directly when none is in use)."""
    derived = current()
    return compute() if derived is None else derived.value(name, compute, *inputs)


__all__ = ["Derived", "array_key", "current", "derive", "layer_key", "using"]
