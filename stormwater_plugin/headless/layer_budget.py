"""The budget for reading one layer: a layer that never ends stops the check with one line naming it.

The bounds live here, in one place (:data:`LAYER_READ_FEATURES`,
:data:`LAYER_READ_SECONDS`, overridden by the environment); the vector
reader (:mod:`.vectors`) and the context reader guard every layer they read
with :meth:`ReadBudget.guard`, and count an SQL view first
(:func:`check_sql_view`).
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from .errors import InputError
from .sources import _is_virtual

#: The budget for reading one layer: a layer that never ends (an SQL view over an endless recursive query, a
#: service that keeps paging) stops the run with one line naming it rather than never returning. Both bounds are far beyond
#: what any site needs: a plan has hundreds of features, and a county-scale context layer is read through a spatial filter
#: of the site plus the pack's reach (a few thousand features). ``STORMWATER_LAYER_READ_FEATURES`` and
#: ``STORMWATER_LAYER_READ_SECONDS`` override them (a test, or a town whose layer really is larger).
LAYER_READ_FEATURES: int = 2_000_000


#: Wall time reading one layer may take at most, seconds.
LAYER_READ_SECONDS: float = 120.0


FEATURES_ENV = "STORMWATER_LAYER_READ_FEATURES"


SECONDS_ENV = "STORMWATER_LAYER_READ_SECONDS"


class LayerBudgetError(InputError):
    """A layer did not finish reading within :class:`ReadBudget` (one line naming the role and the source)."""


@dataclass(frozen=True)
class ReadBudget:
    """How many features, and how many seconds, reading one layer may take (:data:`LAYER_READ_FEATURES`, :data:`LAYER_READ_SECONDS`)."""

    features: int = LAYER_READ_FEATURES
    seconds: float = LAYER_READ_SECONDS

    @classmethod
    def current(cls) -> ReadBudget:
        """The budget in force: the defaults, or the environment's overrides (:class:`InputError` for one that is not a positive number)."""
        features, seconds = LAYER_READ_FEATURES, LAYER_READ_SECONDS
        for name in (FEATURES_ENV, SECONDS_ENV):
            text = os.environ.get(name, "").strip()
            if not text:
                continue
            try:
                value = float(text)
            except ValueError:
                value = float("nan")
            if not (math.isfinite(value) and value > 0):
                raise InputError(f"{name}={text}: give a positive number (the read budget of one layer)")
            if name == FEATURES_ENV:
                features = max(1, int(value))
            else:
                seconds = value
        return cls(features, seconds)

    def exceeded(self, role: str, where: str, what: str) -> LayerBudgetError:
        """The error for layer ``role`` read from ``where`` that ran over the budget: ``what`` says how."""
        return LayerBudgetError(
            f"layer '{role}' ({where}) did not finish reading within {self.seconds:g} s / {self.features:,} features: {what}; "
            "give the features the site needs as a file or table (e.g. ogr2ogr -spat XMIN YMIN XMAX YMAX) with --layer"
        )

    def guard(self, features: Iterable[Any], role: str, where: str, start: float | None = None) -> Iterator[Any]:
        """``features`` one by one, raising :class:`LayerBudgetError` past the budget (``start``: when reading began, ``time.monotonic``)."""
        deadline = (time.monotonic() if start is None else start) + self.seconds
        n = 0
        for feat in features:
            n += 1
            if n > self.features:
                raise self.exceeded(role, where, f"more than {self.features:,} features")
            if time.monotonic() > deadline:
                raise self.exceeded(role, where, f"still reading after {self.seconds:g} s ({n - 1:,} features read)")
            yield feat


#: How often (SQLite virtual-machine instructions) the count of an SQL view looks at the clock.
_PROGRESS_STEPS = 20_000


def check_sql_view(path: Path, layer: str | None, role: str, where: str, budget: ReadBudget | None = None) -> None:
    """Refuse an SQL view of a SQLite file (a GeoPackage) that does not end within the budget, before GDAL opens it.

    GDAL counts a view's rows, and takes its extent and its largest feature id, in single SQLite
    queries that no Python code can interrupt: an endless view (a ``WITH RECURSIVE`` query without a
    stop) would never return. Its rows are counted here first, at most ``budget.features + 1`` of
    them, with SQLite's progress handler stopping the count at ``budget.seconds``. Tables, other
    formats and virtual paths are left alone (their features are budgeted as they are read).
    """
    if _is_virtual(path) or not path.is_file():
        return
    try:
        with open(path, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                return
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except (OSError, sqlite3.Error):
        return  # GDAL says what is wrong with the file
    budget = budget or ReadBudget.current()
    try:
        if layer is None:
            rows = con.execute("SELECT table_name FROM gpkg_contents").fetchall() if _has_table(con, "gpkg_contents") else []
            if len(rows) != 1:
                return
            layer = str(rows[0][0])
        row = con.execute("SELECT name FROM sqlite_master WHERE type = 'view' AND lower(name) = lower(?)", (layer,)).fetchone()
        if row is None:
            return
        name = '"' + str(row[0]).replace('"', '""') + '"'
        deadline = time.monotonic() + budget.seconds
        con.set_progress_handler(lambda: int(time.monotonic() > deadline), _PROGRESS_STEPS)
        try:
            count = int(con.execute(f"SELECT COUNT(*) FROM (SELECT 1 FROM {name} LIMIT ?)", (budget.features + 1,)).fetchone()[0])
        except sqlite3.OperationalError as exc:
            if time.monotonic() > deadline:
                raise budget.exceeded(role, where, f"an SQL view still counting its rows after {budget.seconds:g} s") from exc
            return  # a broken view: GDAL's message names it
    except sqlite3.Error:
        return
    finally:
        con.close()
    if count > budget.features:
        raise budget.exceeded(role, where, f"an SQL view of more than {budget.features:,} rows")


def _has_table(con: sqlite3.Connection, name: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?", (name,)).fetchone() is not None
