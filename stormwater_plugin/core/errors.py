"""The root of the project's exceptions.

Every error the project raises on purpose (a bad pack, an unreadable input,
a decision file that does not parse, a report that cannot be written…)
derives from :class:`StormwaterError`, keeping its other bases (``ValueError``,
``RuntimeError``) so existing ``except ValueError`` clauses still hold. The
front ends (``headless.errors.run_guarded``, the dock's check task, the
Processing algorithms) catch the root and show its message; anything else is
a bug.

:class:`~stormwater_plugin.core.engine.CheckCancelled` is deliberately not a
:class:`StormwaterError`: cancelling is not an error and must pass through
the front ends' error handlers untouched.

QGIS-free, dependency-free.
"""

from __future__ import annotations


class StormwaterError(Exception):
    """An error the project raises on purpose; its message says what is wrong and, where it can, what to do."""


__all__ = ["StormwaterError"]
