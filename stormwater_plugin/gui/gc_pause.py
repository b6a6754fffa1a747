"""Keep Python's garbage collector off the long-lived objects while a task runs.

A full collection walks every object the collector tracks: with a 50,000-parcel
layer in the snapshot that is about 150,000 objects and 0.07-0.15 s, and when
the collection runs in a task thread it holds the interpreter lock all that
time, so the desktop's main thread (which needs the lock for every Python slot
and timer) waits as long. :func:`frozen_heap` moves the objects that exist when
a task starts (the snapshot, the result: they outlive the task) into the
collector's permanent generation (:func:`gc.freeze`, a constant-time list move),
so the collections during the task walk only what the task itself creates; at
the end they go back (:func:`gc.unfreeze`) and are collected as before. Nothing
is collected less: objects frozen while garbage are collected after the task.

Overlapping tasks share one freeze: the first to enter freezes, the last to
leave unfreezes (a counter under a lock), so a task that ends first never
unfreezes under one still running. The freeze is the whole process's (the
collector is): when something else has frozen objects already, this module
leaves that freeze alone and does not undo it; the cost of a freeze is only
that cyclic garbage among the frozen objects waits for the end of the task
(reference-counted objects are freed as always).
"""

from __future__ import annotations

import functools
import gc
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])
_LOCK = threading.Lock()
#: How many :func:`frozen_heap` blocks are running now (any thread).
_DEPTH = 0
#: Whether the freeze under way is this module's (nothing was frozen when the first block began).
_OURS = False
#: ``False``: :func:`frozen_heap` does nothing (the benchmark's reference run, ``bench_dock_freeze.py --gc-freeze off``).
ENABLED = True


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Freeze the collector's tracked objects for the block; unfreeze when the last overlapping block ends.

    Safe when the block raises or the task is cancelled (the unfreeze is in ``finally``).
    """
    global _DEPTH, _OURS
    if not ENABLED:
        yield
        return
    with _LOCK:
        if _DEPTH == 0:
            # someone else's freeze (another plugin, QGIS) is left as it is, and not undone after the block
            _OURS = gc.get_freeze_count() == 0
            if _OURS:
                gc.freeze()
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0 and _OURS:
                gc.unfreeze()
                _OURS = False


def depth() -> int:
    """How many :func:`frozen_heap` blocks are running (0 when the heap is not frozen by this module)."""
    return _DEPTH


def in_frozen_heap(run: _F) -> _F:
    """Decorate a task's ``run`` so its body runs inside :func:`frozen_heap`."""

    @functools.wraps(run)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with frozen_heap():
            return run(*args, **kwargs)

    return wrapped  # type: ignore[return-value]
