"""What is made of a finding after the check, kept by the finding's content for the next review of the same site.

The live re-check (issue 39) reviews the site again at every edit, and most findings come out as they were: a
device moved leaves the findings of the other devices and of every other rule as the last check made them. What
the review makes of a finding (its document entry, its map rows' attributes and key) is made only of the finding's
own values, so it is kept under the finding's *content*: the exact values read, their types
included (``1``, ``1.0`` and ``True`` differ, so do ``0.0`` and ``-0.0``), never its position in a list, an edit
counter or a time. A finding whose content changed has another key and is made anew.

:func:`content_key` writes a value of plain types (text, numbers, booleans, ``None``, tuples, lists and mappings of
those, the exact built-in types only) as bytes with :mod:`marshal` (format 2: no back-references, so the bytes are
the value's alone); anything else has no key (``None``) and is always made anew. :class:`ContentMemo` keeps the
values of the keys used lately (two generations of at most ``size`` keys each): what it holds is shared by the
reviews that find it, so it must never be changed in place.

QGIS-free, file-free.
"""

from __future__ import annotations

import marshal
import threading
from itertools import chain
from typing import Callable, Generic, Hashable, Sequence, TypeVar

from ..core.model import Citation, FeatureRef, Finding

_T = TypeVar("_T")
#: The marshal format of :func:`content_key`: 2 writes floats as their 8 bytes and never refers back to an object already written.
_FORMAT = 2


#: The types a content key holds (exactly these: a subclass, an enum's value or a numpy number has no key).
_SCALARS = frozenset({str, float, int, bool, type(None)})


#: The sequences of sequences a long sequence's items may be read as at once (:func:`_plain_types`).
_SEQUENCES = frozenset({list, tuple})


def _plain_types(value: object) -> bool:
    """Whether ``value`` is made of :data:`_SCALARS`, tuples, lists and dicts with text keys only (the exact types).

    A long list or tuple (a building site's profile: hundreds of pairs) has its items' types read at once, those of a list of
    pairs as its pairs' items; a short one (a finding's values) item by item, which costs less for a few.
    """
    t = type(value)
    if t in _SCALARS:
        return True
    if t is dict:
        for k, v in value.items():  # type: ignore[attr-defined]
            if type(k) is not str or (type(v) not in _SCALARS and not _plain_types(v)):
                return False
        return True
    if t is list or t is tuple:
        if len(value) > 32:  # type: ignore[arg-type]
            types = set(map(type, value))  # type: ignore[call-overload]
            if types <= _SCALARS or (types <= _SEQUENCES and set(map(type, chain.from_iterable(value))) <= _SCALARS):  # type: ignore[call-overload, arg-type]
                return True
        for v in value:  # type: ignore[attr-defined]
            if type(v) not in _SCALARS and not _plain_types(v):
                return False
        return True
    return False


def content_key(value: object) -> bytes | None:
    """``value``'s content as bytes (text, numbers, booleans, ``None``, tuples, lists, dicts with text keys; exact types only),
    ``None`` when it holds anything else.

    The types are checked first: marshal would write any object with a buffer (a numpy number) as its bare bytes, so a
    ``numpy.float64`` and a ``numpy.int64`` of the same bits would share a key.
    """
    if not _plain_types(value):
        return None
    return marshal.dumps(value, _FORMAT)  # type: ignore[arg-type]  # its types checked above


def finding_content(f: Finding) -> bytes | None:
    """The content of everything a finding says but its geometry: what its document entry and its rows' attributes are made of.

    ``None`` for a finding, citation or reference of another class (a plugin reloaded), or holding a value without a content key
    (see :func:`content_key`).
    """
    if type(f) is not Finding:
        return None
    c, s, o = f.citation, f.subject, f.other
    if type(c) is not Citation or (s is not None and type(s) is not FeatureRef) or (o is not None and type(o) is not FeatureRef):
        return None
    extra = f.extra if type(f.extra) is dict else dict(f.extra)
    # one flat tuple, its types checked in one pass; a reference's flag tells a missing one from one of missing words
    return content_key((f.rule_id, f.kind, c.text, c.excerpt, c.source_file, c.source_version, getattr(f.status, "value", None), f.message,
                        s is None, None if s is None else s.layer, None if s is None else s.id,
                        o is None, None if o is None else o.layer, None if o is None else o.id, f.measured_ft, f.required_ft, extra))


#: Each finding's content key by the finding object (held, so its id stays its own), for the findings of the last two lists
#: keyed: a finding is never changed once made (the incremental check hands the same objects on from check to check), so its
#: key, written once, serves the review's document and its map rows, and the next edit's when the rule was taken from the
#: last check. What the keys find is still found by content.
_SEEN: list[dict[int, tuple[Finding, bytes | None]]] = [{}, {}]
_SEEN_LOCK = threading.Lock()


def finding_contents(findings: Sequence[Finding]) -> list[bytes | None]:
    """:func:`finding_content` of each of ``findings``, each finding object's written once (see :data:`_SEEN`); those at their place
    in the last list asked (the review's document asks, then its map rows, then the next edit's, most findings the same objects in
    the same places) taken from there (:data:`_CONTENTS`)."""
    placed = _CONTENTS.take(findings)
    if all(c is not None for c in placed):
        _CONTENTS.keep(findings, placed)
        return placed  # type: ignore[return-value]  # none is None
    with _SEEN_LOCK:
        now, before = _SEEN
    mine: dict[int, tuple[Finding, bytes | None]] = {}
    out: list[bytes | None] = []
    for f, c in zip(findings, placed):
        seen: tuple[Finding, bytes | None] | None
        if c is not None:
            seen = (f, c)
        else:
            seen = now.get(id(f)) or before.get(id(f))
            if seen is None or seen[0] is not f:
                seen = (f, finding_content(f))
        mine[id(f)] = seen
        out.append(seen[1])
    with _SEEN_LOCK:
        _SEEN[:] = [mine, now]
    _CONTENTS.keep(findings, out)
    return out


class ByPlace(Generic[_T]):
    """What was made of each object of the last list given, by its place in that list (the objects held, so their ids stay their own).

    For objects never changed once made (a frozen :class:`~stormwater_plugin.core.model.Finding`): the live re-check hands on most
    findings as the last check's objects in the same places, so what is made of such a finding alone (and of a ``tag`` such as its
    key) is taken from its place in the last list, without its content looked up. :meth:`take` gives each place's value when the
    same object stands there with an equal tag (``None`` elsewhere, and everywhere when the lists' lengths differ); :meth:`keep`
    makes a list and its values the last. One list is kept (bounded by its length).
    """

    def __init__(self) -> None:
        self._last: tuple[tuple[object, ...], Sequence[object], Sequence[_T | None]] = ((), (), ())
        self._lock = threading.Lock()

    def take(self, objects: Sequence[object], tags: Sequence[object] | None = None) -> list[_T | None]:
        """Each place's value kept for the object at that place (the same object, the same tag), else ``None``."""
        with self._lock:
            held, held_tags, values = self._last
        if len(held) != len(objects):
            return [None] * len(objects)
        if tags is None:
            return [v if h is o else None for h, o, v in zip(held, objects, values)]
        return [v if h is o and ht == t else None for h, o, ht, t, v in zip(held, objects, held_tags, tags, values)]

    def keep(self, objects: Sequence[object], values: Sequence[_T | None], tags: Sequence[object] | None = None) -> None:
        """Make ``objects`` (with their ``tags``) the last list and ``values`` what was made of each (``None``: nothing to carry)."""
        with self._lock:
            self._last = (tuple(objects), tuple(tags) if tags is not None else (), tuple(values))

    def clear(self) -> None:
        """Forget the last list (the tests start from nothing)."""
        with self._lock:
            self._last = ((), (), ())


#: Each finding's content key by its place in the last list given to :func:`finding_contents` (a finding without one is found by
#: its object in :data:`_SEEN`).
_CONTENTS: ByPlace[bytes] = ByPlace()


class ContentMemo(Generic[_T]):
    """Values by content key, those used lately kept: the current generation and the one before, each of at most ``size`` keys.

    A value found in the generation before moves to the current one; when the current one is full it becomes the one
    before, and the oldest is let go. Safe from several threads: a key always has the same value, so a value lost or
    made twice by a race costs time only.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._now: dict[Hashable, _T] = {}
        self._before: dict[Hashable, _T] = {}
        self._lock = threading.Lock()
        #: How many values were found and made (for the tests and the benchmark).
        self.found = 0
        self.made = 0

    def get(self, key: Hashable | None, make: Callable[[], _T]) -> _T:
        """The value kept for ``key``, else ``make()`` (kept under ``key``; never kept when ``key`` is ``None``)."""
        if key is None:
            return make()
        now = self._now
        if key in now:
            self.found += 1
            return now[key]
        before = self._before
        if key in before:
            value = before[key]
            self.found += 1
        else:
            value = make()
            self.made += 1
        self._keep(key, value)
        return value

    def find(self, key: Hashable | None) -> _T | None:
        """The value kept for ``key`` (moved to the current generation when found in the one before), else ``None``.

        For values made several at once (:meth:`keep` each): a memo of values that may be ``None`` is read with :meth:`get`.
        """
        if key is None:
            return None
        if key in self._now:
            self.found += 1
            return self._now[key]
        if key in self._before:
            value = self._before[key]
            self.found += 1
            self._keep(key, value)
            return value
        return None

    def keep(self, key: Hashable | None, value: _T) -> None:
        """Keep ``value`` under ``key`` (made: :attr:`made` counts it); nothing is kept under ``None``."""
        self.made += 1
        if key is not None:
            self._keep(key, value)

    def _keep(self, key: Hashable, value: _T) -> None:
        with self._lock:
            if len(self._now) >= self.size:
                self._before, self._now = self._now, {}
            self._now[key] = value

    def clear(self) -> None:
        """Forget every value (the tests start from nothing)."""
        with self._lock:
            self._now, self._before = {}, {}
            self.found = self.made = 0


__all__ = ["ByPlace", "ContentMemo", "content_key", "finding_content", "finding_contents"]
