"""What stormwater-check wrote in an output folder, so a run replaces only that.

Output folders are often an application's own folder, holding the applicant's and the clerk's files beside
the tool's. Each folder the tool writes into keeps a manifest, :data:`MANIFEST_FILE`
(``.stormwater-outputs.json``)::

    {"format": "stormwater-outputs", "version": 1,
     "files": {"findings.json": {"command": "check", "written": "2026-03-01T14:02:11Z", "bytes": 48213, "sha256": "…"},
               "letter.json":   {"command": "letter", …},
               "sites/171.15-1-23/findings.json": {"command": "batch", "written": "…"}}}

``files`` maps each file's path, relative to the folder with ``/`` separators, to the command that last wrote
it (``check`` for the check and its ``--report`` files, ``compare``, ``letter``, ``batch``, ``report`` for the
dock's review package; ``earlier release``
for files adopted from a folder written before the manifest existed), when (UTC), and its size and SHA-256 when
known (a batch's site files are recorded when claimed, before their worker writes them).

A run (:func:`publish`) may replace or remove only files the manifest lists (and files that do not exist); it
refuses, naming them, to overwrite any other (:class:`ForeignFilesError`), and it never deletes one. A command
that writes a varying set of files (the check: the report only on request) removes the files it wrote last
time and does not write now (``remove_stale``); the others (letter, compare) only add and replace. A folder
without a manifest that an earlier release wrote (it holds a findings.json, letter.json, compare.json,
batch.json or progress.jsonl of this tool) is read as holding the tool's files under the names the tool writes
(:data:`EARLIER_RELEASE_NAMES`) when they were written with that run (within :data:`LEGACY_RUN_WINDOW_S` of
a marking file): those are adopted into the new manifest, everything else is left alone, and the run says
so (the note :func:`publish` returns). Every change to a folder is made with its manifest's lock
held and through :func:`stormwater_plugin.services.safe_files.commit`: the manifest first, then the files of
the run, renamed together with Ctrl-C and SIGTERM held back.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Callable, Collection, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import StormwaterError
from . import safe_files

MANIFEST_FILE = ".stormwater-outputs.json"
MANIFEST_FORMAT = "stormwater-outputs"
#: The command recorded for files adopted from a folder an earlier release wrote.
ADOPTED = "earlier release"
#: Names earlier releases wrote into a check's folder, a batch's folder or beside a letter.
EARLIER_RELEASE_NAMES: tuple[str, ...] = (
    "findings.json", "findings.gpkg", "findings.gpkg-wal", "findings.gpkg-shm", "compare.json", "report.html", "report.pdf",
    "notification.csv", "labels.pdf", "layout.pdf", "letter.json", "summary.csv", "batch.json", "progress.jsonl",
)
#: A file that shows an earlier release wrote the folder, and a key its JSON object always had.
LEGACY_MARKS: tuple[tuple[str, str], ...] = (("findings.json", "findings"), ("letter.json", "format"), ("compare.json", "counts"),
                                             ("batch.json", "status"), ("progress.jsonl", "input_hash"))
#: In a folder an earlier release wrote, a file of the tool's names is taken as the tool's when it was last written within
#: this many seconds of one of the files marking the earlier run (its findings.json, letter.json, compare.json, batch.json).
LEGACY_RUN_WINDOW_S = 600.0
#: Files that belong to another and go with it (SQLite's journal files of a GeoPackage).
COMPANIONS: dict[str, tuple[str, ...]] = {"findings.gpkg": ("findings.gpkg-wal", "findings.gpkg-shm")}


class OutputFolderError(StormwaterError):
    """The output folder's manifest cannot be read or written (one line naming it)."""


class ForeignFilesError(OutputFolderError):
    """A run would overwrite files stormwater-check did not write; nothing was written."""

    def __init__(self, folder: Path, names: Sequence[str]) -> None:
        self.folder, self.names = folder, list(names)
        shown = ", ".join(self.names[:8]) + (f" and {len(self.names) - 8} more" if len(self.names) > 8 else "")
        super().__init__(f"{folder}: refusing to overwrite {shown}: not written by stormwater-check (not in its {MANIFEST_FILE}); "
                         "move them away or choose another output folder")


@dataclass
class Part:
    """One folder's share of a run.

    Attributes
    ----------
    folder : Path
        The output folder (its manifest is ``folder / MANIFEST_FILE``).
    command : str
        The command writing (``check``, ``compare``, ``letter``, ``batch``).
    files : list of (str, str)
        Each file's path relative to ``folder`` and the temporary (same file system, e.g. from
        :func:`safe_files.stage`) renamed onto it; in the order they are renamed.
    claim : list of str
        Files recorded now and written afterwards by someone else (a batch's workers).
    remove : list of str
        Files to remove now when the tool wrote them (left alone otherwise).
    remove_stale : bool
        Remove the files this command (or an earlier release under a name in ``known``) wrote before and not now.
    known : collection of str or callable
        The names this command writes: what an earlier release's folder is read as holding of this command.
    legacy : bool or None
        Whether the folder counts as an earlier release's when it has no manifest (``None``: when it holds one of
        :data:`LEGACY_MARKS`).
    """

    folder: Path
    command: str
    files: list[tuple[str, str]] = field(default_factory=list)
    claim: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    remove_stale: bool = False
    known: Collection[str] | Callable[[str], bool] = ()
    legacy: bool | None = None


def manifest_path(folder: Path) -> Path:
    return Path(folder) / MANIFEST_FILE


def read_manifest(folder: Path) -> dict[str, dict[str, object]] | None:
    """The files recorded in ``folder``'s manifest; ``None`` when it has none.

    Raises
    ------
    OutputFolderError
        The manifest exists but cannot be read or is not one.
    """
    path = manifest_path(folder)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputFolderError(f"{path}: cannot be read ({exc.strerror})") from exc
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    files = data.get("files") if isinstance(data, dict) and data.get("format") == MANIFEST_FORMAT else None
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise OutputFolderError(f"{path}: not a stormwater-check manifest; remove it to treat the folder as written by an earlier release")
    return {str(k): dict(v) for k, v in files.items()}


def written_by_earlier_release(folder: Path) -> bool:
    """Whether ``folder`` (without a manifest) holds a findings.json, letter.json, compare.json or batch.json of this tool."""
    for name, key in LEGACY_MARKS:
        path = Path(folder) / name
        if not path.is_file():
            continue
        try:
            with path.open(encoding="utf-8") as fh:
                head = fh.read(1 << 22)  # a review may be large: its start names its keys
        except (OSError, UnicodeDecodeError):
            continue
        if head.lstrip().startswith("{") and f'"{key}"' in head:
            return True
    return False


def _is_known(known: Collection[str] | Callable[[str], bool], name: str) -> bool:
    return bool(known(name)) if callable(known) else name in known


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _record(command: str, path: str | None, now: str) -> dict[str, object]:
    rec: dict[str, object] = {"command": command, "written": now}
    if path is not None:
        h = hashlib.sha256()
        size = 0
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
                size += len(chunk)
            os.fsync(fh.fileno())  # written by a library that did not: on disk before it is renamed into place
        rec.update(bytes=size, sha256=h.hexdigest())
    return rec


class _Folder:
    """One folder being changed: its manifest as read, and what this run does to it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        files = read_manifest(folder)
        self.had_manifest = files is not None
        self.files: dict[str, dict[str, object]] = files or {}
        self.legacy = False
        self.adopted: list[str] = []

    def start_legacy(self, legacy: bool | None) -> None:
        if self.had_manifest or self.legacy:
            return
        self.legacy = written_by_earlier_release(self.folder) if legacy is None else legacy
        if not self.legacy:
            return
        marks = [_mtime(self.folder / m) for m, _key in LEGACY_MARKS]
        runs = [t for t in marks if t is not None]
        for name in EARLIER_RELEASE_NAMES:
            t = _mtime(self.folder / name)
            if t is None or name in self.files:
                continue
            # one of the tool's names, written when an earlier run wrote its findings.json (letter.json, batch.json…):
            # the applicant's report.pdf or a notification.csv the clerk saved another day is not adopted
            if name in dict(LEGACY_MARKS) or any(abs(t - r) <= LEGACY_RUN_WINDOW_S for r in runs):
                self.files[name] = {"command": ADOPTED}
                self.adopted.append(name)

    def ours(self, name: str, known: Collection[str] | Callable[[str], bool]) -> bool:
        # in an earlier release's folder: the tool's fixed names only when adopted above; a letter's DOCX or a site's
        # findings.json by the names this command writes
        return name in self.files or (self.legacy and name not in EARLIER_RELEASE_NAMES and _is_known(known, name))


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def foreign_files(folder: Path, names: Sequence[str], known: Collection[str] | Callable[[str], bool] = (), legacy: bool | None = None) -> list[str]:
    """Those of ``names`` that exist in ``folder`` and a run must not overwrite (not the tool's): to refuse before the work."""
    f = _Folder(Path(folder))
    f.start_legacy(legacy)
    return [n for n in names if _exists(f.folder / n) and not f.ours(n, known)]


def publish(parts: Sequence[Part]) -> list[str]:
    """Carry out a run's changes to its output folders, together; the notes to show (an earlier release's folder).

    Every folder's manifest lock is held meanwhile. When any file to be written exists and is not the tool's,
    :class:`ForeignFilesError` names them all and nothing changes (the temporaries are removed). Otherwise the
    new manifests, the removals and the files are committed together (:func:`safe_files.commit`).
    """
    staged: list[tuple[str, Path]] = []
    removals: list[Path] = []
    notes: list[str] = []
    try:
        with ExitStack() as locks:
            folders: dict[Path, _Folder] = {}
            for folder in sorted({Path(p.folder) for p in parts}, key=str):
                folder.mkdir(parents=True, exist_ok=True)
                locks.enter_context(safe_files.locked(manifest_path(folder)))
                folders[folder] = _Folder(folder)
            now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
            foreign: dict[Path, list[str]] = {}
            outputs: list[tuple[str, Path]] = []
            for p in parts:
                f = folders[Path(p.folder)]
                f.start_legacy(p.legacy)
                writes = [n for n, _tmp in p.files] + list(p.claim)
                for n in writes:
                    if _exists(f.folder / n) and not f.ours(n, p.known):
                        foreign.setdefault(f.folder, []).append(n)
                gone = [n for n in p.remove if f.ours(n, p.known)]
                if p.remove_stale:
                    gone += [n for n, rec in f.files.items() if n not in writes and n not in gone
                             and (rec.get("command") == p.command or (rec.get("command") == ADOPTED and _is_known(p.known, n)))]
                for n in list(gone) + [n for n, _t in p.files]:
                    gone += [c for c in COMPANIONS.get(n, ()) if c not in writes and c not in gone]
                for n in gone:
                    f.files.pop(n, None)
                    if _exists(f.folder / n):
                        removals.append(f.folder / n)
                for n, tmp in p.files:
                    f.files[n] = _record(p.command, tmp, now)
                    outputs.append((tmp, f.folder / n))
                for n in p.claim:
                    f.files[n] = _record(p.command, None, now)
            if foreign:
                folder, names = next(iter(foreign.items()))
                raise ForeignFilesError(folder, names)
            for f in folders.values():
                data = {"format": MANIFEST_FORMAT, "version": 1,
                        "note": "The files stormwater-check wrote in this folder: a run replaces or removes only these.",
                        "files": dict(sorted(f.files.items()))}
                staged.append((safe_files.stage(manifest_path(f.folder), (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()),
                               manifest_path(f.folder)))
                if f.legacy:
                    kept = f", adopted {', '.join(f.adopted)}" if f.adopted else ""
                    notes.append(f"{f.folder}: written by an earlier release (no {MANIFEST_FILE}): only the files stormwater-check names were "
                                 f"replaced or removed{kept}; the folder's other files were left alone")
            safe_files.commit(staged + outputs, remove=removals)
            for path in removals:
                _prune(path.parent, Path(next(p.folder for p in parts if path.is_relative_to(p.folder))))
    except BaseException:
        for tmp, _target in staged:
            safe_files.discard(tmp)
        for p in parts:
            for _n, tmp in p.files:
                safe_files.discard(tmp)
        raise
    return notes


def _prune(folder: Path, top: Path) -> None:
    """Remove ``folder`` and its parents below ``top`` while they are empty (a batch's site folders)."""
    while folder != top and folder.is_relative_to(top):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


__all__ = ["ADOPTED", "COMPANIONS", "EARLIER_RELEASE_NAMES", "ForeignFilesError", "LEGACY_MARKS", "MANIFEST_FILE", "MANIFEST_FORMAT",
           "LEGACY_RUN_WINDOW_S", "OutputFolderError", "Part", "foreign_files", "manifest_path", "publish", "read_manifest", "written_by_earlier_release"]
