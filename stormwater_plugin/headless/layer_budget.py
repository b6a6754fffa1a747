"""An SQL view's rows counted within the budget of one layer (:mod:`~stormwater_plugin.services.read_budget`) before GDAL opens it.

The bounds and the guard every layer read goes through are :mod:`~stormwater_plugin.services.read_budget`;
:func:`check_sql_view` counts what GDAL would count in one uninterruptible SQLite query.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from ..services.layer_sources import is_virtual as _is_virtual
from ..services.read_budget import ReadBudget

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
