"""What is made of a finding after the check, kept by the finding's content for the next review of the same site.

The live re-check (issue 39) reviews the site again at every edit, and most findings come out as they were: a
device moved leaves the findings of the other devices and of every other rule as the last check made them. What
the review makes of a finding (its document entry, its map rows, its comparison with the last full check) is made
only of the finding's own values, so it is kept under the finding's *content*: the exact values read, their types
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
from typing import Callable, Generic, Hashable, Sequence, TypeVar

from ..core.model import Citation, FeatureRef, Finding

_T = TypeVar("_T")
#: The marshal format of :func:`content_key`: 2 writes floats as their 8 bytes and never refers back to an object already written.
_FORMAT = 2


#: The types a content key holds (exactly these: a subclass, an enum's value or a numpy number has no key).
_SCALARS = frozenset({str, float, int, bool, type(None)})


def _plain_types(value: object) -> bool:
    """Whether ``value`` is made of :data:`_SCALARS`, tuples, lists and dicts with text keys only (the exact types)."""
    t = type(value)
    if t in _SCALARS:
        return True
    if t is dict:
        for k, v in value.items():  # type: ignore[attr-defined]
            if type(k) is not str or (type(v) not in _SCALARS and not _plain_types(v)):
                return False
        return True
    if t is list or t is tuple:
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


def _ref(ref: FeatureRef | None) -> tuple[str, str] | None | bool:
    if ref is None:
        return None
    if type(ref) is not FeatureRef or type(ref.layer) is not str or type(ref.id) is not str:  # another class's (a plugin reloaded)
        return False
    return (ref.layer, ref.id)


def finding_content(f: Finding) -> bytes | None:
    """The content of everything a finding says but its geometry: what its document entry and its rows' attributes are made of.

    ``None`` for a finding of another class, or holding a value without a content key (see :func:`content_key`).
    """
    if type(f) is not Finding or type(f.citation) is not Citation:
        return None
    subject, other = _ref(f.subject), _ref(f.other)
    if subject is False or other is False:
        return None
    c = f.citation
    status = getattr(f.status, "value", None)
    extra = f.extra if type(f.extra) is dict else dict(f.extra)
    fields = (f.rule_id, f.kind, c.text, c.excerpt, c.source_file, c.source_version, status, f.message)
    for v in fields:
        if type(v) is not str and v is not None:
            return None
    for x in (f.measured_ft, f.required_ft):
        if x is not None and type(x) is not float and type(x) is not int:
            return None
    if not _plain_types(extra):
        return None
    return marshal.dumps((fields, subject, other, f.measured_ft, f.required_ft, extra), _FORMAT)


#: The content keys of the last findings lists keyed (the list, its findings held, their keys): the review's document and its
#: map rows key the same check's findings, one after the other.
_LAST: list[tuple[Sequence[Finding], tuple[Finding, ...], list[bytes | None]]] = []
_LAST_LOCK = threading.Lock()


def finding_contents(findings: Sequence[Finding]) -> list[bytes | None]:
    """:func:`finding_content` of each of ``findings``; those of the same list of the same findings (one check's) written once."""
    with _LAST_LOCK:
        for held_list, held, keys in _LAST:
            if held_list is findings and len(held) == len(findings) and all(a is b for a, b in zip(held, findings)):
                return keys
    keys = [finding_content(f) for f in findings]
    with _LAST_LOCK:
        _LAST.insert(0, (findings, tuple(findings), keys))
        del _LAST[2:]
    return keys


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


__all__ = ["ContentMemo", "content_key", "finding_content", "finding_contents"]
