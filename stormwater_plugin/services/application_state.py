"""An application's saved state in a register (``reviews/<id>/state.json``), written so a reviewer's work is never lost.

The dock keeps, per application, the last review, the previous review, the
reviewer's decisions and the comment letters in one JSON file. Three promises:

* every write is atomic and keeps the previous version as ``state.json.bak``
  (:mod:`.safe_files`, under the file's lock, re-reading what is on disk first,
  so a letter written meanwhile is merged, not overwritten);
* a write that would drop a saved review (a review exists on disk and the new
  state has none: no action of the reviewer removes a review, a new check
  replaces it) is refused with :class:`StateWouldDropWork`, naming what it kept;
* so is a write that would drop every saved decision, unless the caller says the
  reviewer cleared them (``decisions_cleared``): an empty project must never be
  saved over an application's decisions.

QGIS-free: the register panel passes the project's entries as text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

from . import safe_files
from .register import STATE_FILE, Register, RegisterError

#: The state entries that hold a reviewer's work (the review, the review it replaced, the decisions).
WORK_ENTRIES = ("last_review", "previous_review", "overrides")


class StateWouldDropWork(RegisterError):
    """A save that would replace a saved review or saved decisions by nothing; the saved state was kept."""


def state_path(register: Register, app_id: str) -> Path:
    """Where the application's state is kept."""
    return register.state_dir(app_id) / STATE_FILE


def decision_count(text: object) -> int:
    """Decisions in an ``overrides`` entry (the sidecar JSON text); ``0`` when empty, ``-1`` when unreadable (kept as is)."""
    if not isinstance(text, str) or not text.strip():
        return 0
    try:
        data = json.loads(text)
    except ValueError:
        return -1
    entries = data.get("overrides") if isinstance(data, dict) else data
    return len(entries) if isinstance(entries, list) else -1


def _has_review(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _read(path: Path, app_id: str) -> dict[str, object]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RegisterError(f"{path}: the saved review of {app_id} cannot be read ({exc}); nothing was written over it") from exc
    return data if isinstance(data, dict) else {}


def refuse_drop(on_disk: Mapping[str, object], new: Mapping[str, object], app_id: str, decisions_cleared: bool = False) -> None:
    """Raise :class:`StateWouldDropWork` when ``new`` would lose the review or the decisions ``on_disk`` holds.

    Only the keys present in ``new`` are judged (a key left out is kept as it is on disk).
    """
    if "last_review" in new and _has_review(on_disk.get("last_review")) and not _has_review(new.get("last_review")):
        n = decision_count(on_disk.get("overrides"))
        raise StateWouldDropWork(
            f"application {app_id}: not saved — the project holds no review, but one is saved for it"
            + (f" with {n} decision(s)" if n > 0 else "") + "; the saved review was kept (open the application to see it)")
    if "overrides" in new and not decisions_cleared:
        before, after = decision_count(on_disk.get("overrides")), decision_count(new.get("overrides"))
        if before != 0 and after == 0:
            raise StateWouldDropWork(
                f"application {app_id}: not saved — the project holds no decisions, but {before if before > 0 else 'unreadable'} "
                "are saved for it; the saved decisions were kept")


def save_application_state(register: Register, app_id: str, updates: Mapping[str, object], *, decisions_cleared: bool = False) -> Path:
    """Merge ``updates`` into the application's saved state and write it atomically, keeping one backup.

    Parameters
    ----------
    register : Register
        The register holding the application.
    app_id : str
        The application's id.
    updates : mapping
        The entries to replace (``last_review``, ``previous_review``, ``overrides``, ``letters``…); others on disk are kept.
    decisions_cleared : bool
        The reviewer removed the decisions on purpose (an empty ``overrides`` is then written).

    Raises
    ------
    StateWouldDropWork
        The write would drop a saved review or saved decisions (nothing is written).
    RegisterError
        The saved state on disk cannot be read (nothing is written over it).
    """
    path = state_path(register, app_id)
    with safe_files.locked(path):
        on_disk = _read(path, app_id)
        refuse_drop(on_disk, updates, app_id, decisions_cleared)
        state = {**on_disk, **dict(updates)}
        if state == on_disk and path.is_file():
            return path  # nothing changed: the backup keeps the version before the last real change
        safe_files.write_json(path, state, backup=True)
    return path


__all__ = ["StateWouldDropWork", "WORK_ENTRIES", "decision_count", "refuse_drop", "save_application_state", "state_path"]
