"""Write a check's results: ``findings.json``, ``findings.gpkg`` and the console summary.

A run writes into a private folder inside ``--out`` (:class:`RunFolder`) and
moves its files into place only when every one is written, so the folder
never holds the files of two runs: the outputs of an earlier run that this
run does not write are removed, a run interrupted or failing leaves the
folder as it was, and a second check into the same folder at once is refused
(a lock file, taken when the run starts and naming the process holding it).
Only files the folder's manifest records as the tool's are replaced or
removed (:mod:`stormwater_plugin.services.output_manifest`): a file of the
same name the tool did not write is refused, naming it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any, Mapping, Sequence, cast

import shapely
from shapely.geometry import mapping

from ..core.errors import StormwaterError
from ..core.model import CheckResult, Finding, Status
from ..core.overrides import finding_keys
from ..core.serialize import finding_to_dict, warnings_text
from ..services.output_manifest import ForeignFilesError, Part, foreign_files, publish
from ..services.presentation import finding_label
from ..services.review import Review, not_checked

#: The findings.gpkg layer family of each geometry type.
FAMILY = {
    "Point": "points",
    "MultiPoint": "points",
    "LineString": "lines",
    "MultiLineString": "lines",
    "Polygon": "areas",
    "MultiPolygon": "areas",
}


#: Every file a check may write into its output folder (an earlier run's copy is removed when this run does not write it and
#: the folder's manifest says the check wrote it; see services/output_manifest).
OUTPUT_FILES: tuple[str, ...] = ("findings.json", "findings.gpkg", "findings.gpkg-wal", "findings.gpkg-shm", "compare.json", "report.html",
                                 "report.pdf", "notification.csv", "labels.pdf")
#: Moved into place last: its presence says the run's other files are all there.
LAST_FILE = "findings.json"
LOCK_NAME = ".stormwater-check.lock"
_PARTIAL_PREFIX = ".partial-"


class OutputError(StormwaterError):
    """The output folder cannot be used or written (one line naming the path)."""


def is_io_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure to write (disk full, permissions, a driver's write error) rather than a bug."""
    if isinstance(exc, OSError):
        return True
    mod = type(exc).__module__ or ""
    return mod.split(".")[0] in ("fiona", "pyogrio", "sqlite3", "rasterio") or "No space left" in str(exc)


def io_reason(exc: BaseException) -> str:
    """A short reason for an I/O error (``No space left on device``, ``Permission denied``…)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


class RunFolder:
    """The output folder of one run: locked, written in a private folder inside it, moved into place at the end.

    Use as a context manager; ``with RunFolder(out) as staging`` gives the
    folder to write into. On leaving without an exception (or with one of
    ``commit_on``) the run's files replace the earlier run's outputs
    (:data:`OUTPUT_FILES`; other files in the folder are left alone) with
    SIGINT and SIGTERM held back, :data:`LAST_FILE` last; otherwise nothing in
    ``out`` changes. Raises :class:`OutputError` when the folder cannot be
    created, locked or written.
    """

    def __init__(self, out: Path, commit_on: tuple[type[BaseException], ...] = ()) -> None:
        self.out = Path(out)
        self.commit_on = commit_on
        self.staging: Path | None = None
        self._lock: Any = None
        #: This run made the folder (removed again, with its lock file, when the run ends before writing anything).
        self._created = False
        self._committed = False
        #: What the commit says about the folder (one written by an earlier release), for the console.
        self.notes: list[str] = []

    def lock(self) -> RunFolder:
        """Create and lock the folder for this run (taken at the run's start, before any input is read); ``self``.

        The lock file holds this process's id, so a second run into the folder names the one holding it.
        Held until :meth:`release` (leaving the ``with`` block releases it). Raises :class:`OutputError`
        when the folder cannot be created or written, or another run holds it.
        """
        import fcntl  # lazy: POSIX only, and only when a check writes

        if self._lock is not None:
            return self
        self._created = not self.out.exists()
        try:
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"{self.out}: cannot create the output folder ({io_reason(exc)})") from exc
        if not self.out.is_dir():
            raise OutputError(f"{self.out}: is not a folder")
        try:
            self._lock = open(self.out / LOCK_NAME, "a+")  # noqa: SIM115 - held open for the whole run
        except OSError as exc:
            raise OutputError(f"{self.out}: cannot write into the output folder ({io_reason(exc)})") from exc
        try:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _lock_holder(self._lock)
            self._lock.close()
            self._lock = None
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                who = f"another check (pid {holder})" if holder else "another check"
                raise OutputError(f"{self.out}: {who} is using this output folder; wait for it to finish or choose another --out") from exc
            raise OutputError(f"{self.out}: cannot lock the output folder ({io_reason(exc)})") from exc
        try:
            self._lock.truncate(0)
            self._lock.write(f"{os.getpid()}\n")
            self._lock.flush()
        except OSError as exc:
            self._release()
            raise OutputError(f"{self.out}: cannot write into the output folder ({io_reason(exc)})") from exc
        return self

    def release(self) -> None:
        """Give the folder up (nothing when it is not held)."""
        self._release()

    def __enter__(self) -> Path:
        self.lock()
        for old in self.out.glob(_PARTIAL_PREFIX + "*"):  # left by a run that was killed (it no longer holds the lock)
            shutil.rmtree(old, ignore_errors=True)
        try:
            self.staging = Path(tempfile.mkdtemp(prefix=_PARTIAL_PREFIX, dir=self.out))
        except OSError as exc:
            self._release()
            raise OutputError(f"{self.out}: cannot write into the output folder ({io_reason(exc)})") from exc
        return self.staging

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if kind is None or (exc is not None and isinstance(exc, self.commit_on)):
                self._commit()
        finally:
            if self.staging is not None:
                shutil.rmtree(self.staging, ignore_errors=True)
            self._release()
        if exc is not None and is_io_error(exc) and not isinstance(exc, self.commit_on):
            raise OutputError(f"{self.out}: cannot write the results ({io_reason(exc)}); the folder was left as it was") from exc

    def _commit(self) -> None:
        assert self.staging is not None
        new = sorted((p.name for p in self.staging.iterdir() if p.is_file()), key=lambda n: n == LAST_FILE)
        # only the files the folder's manifest says the tool wrote are replaced or removed (the earlier run's
        # outputs this run does not write go, the applicant's and the clerk's files stay), all together, signals held
        part = Part(self.out, "check", files=[(n, str(self.staging / n)) for n in new], remove_stale=True, known=OUTPUT_FILES)
        try:
            self.notes = publish([part])
            self._committed = True
        except OSError as exc:
            raise OutputError(f"{self.out}: cannot move the results into place ({io_reason(exc)})") from exc

    def refuse_foreign(self, names: Sequence[str]) -> None:
        """Refuse at once (:class:`ForeignFilesError`, naming them) when any of ``names`` exists and the tool did not write it."""
        foreign = foreign_files(self.out, names, OUTPUT_FILES)
        if foreign:
            raise ForeignFilesError(self.out, foreign)

    def _release(self) -> None:
        if self._lock is not None:
            with contextlib.suppress(OSError):
                self._lock.truncate(0)  # no stale process id for the next run to name
            self._lock.close()  # closing the file releases the lock
            self._lock = None
            if self._created and not self._committed:  # a run that stopped before its results: no folder left behind
                with contextlib.suppress(OSError):
                    (self.out / LOCK_NAME).unlink()
                    self.out.rmdir()  # only when empty


def _lock_holder(lock: Any) -> int | None:
    """The process id written in a held lock file, if it can be read."""
    try:
        lock.seek(0)
        text = lock.read(32).strip()
    except (OSError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def finding_row(f: Finding) -> dict[str, Any]:
    """The attribute row of a finding in the batch findings.gpkg (no decisions: a screening has none)."""
    return _row(finding_to_dict(f), short_label(f))


def _row(d: Mapping[str, Any], label: str) -> dict[str, Any]:
    """The computed columns of a finding's row, from its findings.json entry."""
    return {
        "status": d["status"],
        "rule_id": d["rule_id"],
        "citation": d["citation"],
        "measured_ft": d["measured_ft"],
        "required_ft": d["required_ft"],
        "message": d["message"],
        "subject_layer": d["subject"]["layer"] if d["subject"] else None,
        "subject_id": d["subject"]["id"] if d["subject"] else None,
        "other_layer": d["other"]["layer"] if d["other"] else None,
        "other_id": d["other"]["id"] if d["other"] else None,
        "excerpt": d["excerpt"],
        "label": label,
    }


def review_row(d: Mapping[str, Any], f: Finding) -> dict[str, Any]:
    """A finding's row in findings.gpkg: its findings.json entry ``d`` (the review's document), decision included.

    ``f`` is the same finding of the result (its key is ``d["key"]``), for the
    map label. ``effective_status`` and the ``decision`` columns are those of
    findings.json, so the two files agree on every status and decision.
    """
    o: Mapping[str, Any] = d.get("override") or {}
    return {
        **_row(d, short_label(f)),
        "key": d["key"],
        "effective_status": d.get("effective_status", d["status"]),
        "decision": o.get("decision"),
        "decision_reason": o.get("reason"),
        "decision_reviewer": o.get("reviewer"),
        "decision_date": o.get("date"),
    }


def short_label(f: Finding) -> str:
    """A map label: the short citation and measured against required distance (the plugin's words, on one line)."""
    return finding_label(f.citation.text, f.measured_ft, f.required_ft)


def write_document(doc: dict[str, Any], out_dir: Path) -> Path:
    """Write a review's findings.json document (:attr:`stormwater_plugin.services.review.Review.doc`) into ``out_dir``."""
    path = out_dir / "findings.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


_MULTI = {"points": "MultiPoint", "lines": "MultiLineString", "areas": "MultiPolygon"}


def _as_multi(geom: Any, family: str) -> Any:
    if geom.geom_type.startswith("Multi"):
        return geom
    make = {"points": shapely.multipoints, "lines": shapely.multilinestrings, "areas": shapely.multipolygons}[family]
    return make([geom])


def _field_type(values: list[Any]) -> str:
    seen = {type(v) for v in values if v is not None}
    if seen <= {bool}:
        return "bool" if seen else "str"
    if seen <= {int}:
        return "int"
    if seen <= {int, float}:
        return "float"
    return "str"


def layer_schema(rows: list[dict[str, Any]], family: str) -> dict[str, Any]:
    """The fiona schema of a findings layer: every key of the rows in first-seen order, typed from their values; the family's multi type."""
    columns: list[str] = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    props = {c: _field_type([r.get(c) for r in rows]) for c in columns} or {"status": "str"}
    return {"geometry": _MULTI[family], "properties": props}


def write_layer(path: Path, name: str, rows: list[dict[str, Any]], geoms: list[Any], family: str, crs: Any) -> None:
    """One GeoPackage layer through fiona (no pandas): geometries promoted to the family's multi type."""
    import fiona  # lazy: batch workers import this module for finding_row and never write

    schema = layer_schema(rows, family)
    props = schema["properties"]
    with fiona.open(str(path), "w", driver="GPKG", layer=name, schema=schema, crs_wkt=crs.to_wkt()) as dst:
        dst.writerecords(
            {"geometry": mapping(_as_multi(g, family)), "properties": {c: (str(r.get(c)) if props[c] == "str" and r.get(c) is not None else r.get(c)) for c in props}}
            for r, g in zip(rows, geoms)
        )


def write_gpkg(review: Review, out_dir: Path, crs: Any) -> Path:
    """Finding geometries by family, display zones and slope rays, in the working CRS.

    Each finding's row is its entry in the review's document (the findings.json
    written beside it: statuses, keys and decisions); its geometry is the
    result's finding of the same key.
    """
    path = out_dir / "findings.gpkg"
    if path.exists():
        path.unlink()
    result = review.result
    by_key = dict(zip(finding_keys(result.findings), result.findings))
    groups: dict[str, list[tuple[dict[str, Any], Any]]] = {"points": [], "lines": [], "areas": []}
    for d in cast("list[dict[str, Any]]", review.doc.get("findings", [])):
        f = by_key.get(str(d.get("key")))
        g = f.geometry if f is not None else None
        if f is None or g is None or g.is_empty:
            continue
        fam = FAMILY.get(g.geom_type)
        if fam is None:
            continue
        groups[fam].append((review_row(d, f), g))
    wrote = False
    for fam, rows in groups.items():
        if rows:
            write_layer(path, f"findings_{fam}", [r for r, _ in rows], [g for _, g in rows], fam, crs)
            wrote = True
    zones: dict[str, list[tuple[dict[str, Any], Any]]] = {"areas": [], "lines": []}
    for z in result.zones:
        fam = FAMILY.get(z.geometry.geom_type) if z.geometry is not None and not z.geometry.is_empty else None
        if fam in zones:
            row = {"kind": z.kind, "rule_id": z.rule_id, "label": z.label, "distance_ft": z.distance_ft, "subject_id": z.subject.id if z.subject else None}
            zones[fam].append((row, z.geometry))
    for fam, name in (("areas", "setback_zones"), ("lines", "slope_rays")):
        if zones[fam]:
            write_layer(path, name, [r for r, _ in zones[fam]], [g for _, g in zones[fam]], fam, crs)
            wrote = True
    if not wrote:
        write_layer(path, "findings_points", [], [], "points", crs)
    return path


def finding_groups(findings: list[Finding]) -> list[tuple[str, list[Finding]]]:
    """Findings that hold under every possible class first (title ``""``), then one group per class set they bind under.

    ``[("", [...]), ("If the project is major", [...])]``: read from ``extra['binds_if_class']`` (set by the engine
    when the class is open), the groups in the order of the classes.
    """
    order = ("exempt", "minor", "major")
    plain = [f for f in findings if not f.extra.get("binds_if_class")]
    by: dict[tuple[str, ...], list[Finding]] = {}
    for f in findings:
        b = f.extra.get("binds_if_class")
        if b:
            by.setdefault(tuple(str(c) for c in b), []).append(f)  # type: ignore[union-attr]
    keyed = sorted(by.items(), key=lambda kv: [order.index(c) if c in order else 9 for c in kv[0]])
    return [("", plain)] + [(f"If the project is {' or '.join(k)}", v) for k, v in keyed]


def summary_text(result: CheckResult, out_dir: Path | None = None, limit: int = 40) -> str:
    """A short human summary: class, counts, then violations and undetermined findings."""
    c = result.counts()
    lines = [
        f"Stormwater check — {result.pack_title} (rule pack {result.pack_version})",
        f"Site parcel: {result.site_parcel_id or 'not identified'} · project class: {result.project_class} ({result.class_source})",
        f"Findings: {c['violation']} violation(s), {c['advisory']} advisory, {c['undetermined']} undetermined, {c['pass']} pass",
    ]
    question = getattr(result.classification, "question", "") if result.classification is not None else ""
    if question:
        # an open class asks one question first; the findings that depend on the answer follow under their class
        lines.insert(1, f"QUESTION: {question}")
    for r in result.classification_reasons:
        lines.append(f"  [{r.citation.text}] {r.message}")
    shown = 0
    groups = finding_groups(result.findings)
    for title, group in groups:
        if title:
            lines.append("")
            lines.append(f"{title.upper()} (these rules bind only under that class):")
        for status in (Status.VIOLATION, Status.UNDETERMINED, Status.ADVISORY):
            items = [f for f in group if f.status is status]
            if not items:
                continue
            lines.append("")
            lines.append(f"{status.value.upper()}:")
            for f in items:
                if shown >= limit:
                    break
                lines.append(f"  [{f.citation.text}] {f.message}")
                shown += 1
    hidden = sum(1 for x in result.findings if x.status is not Status.PASS) - shown
    if hidden > 0:
        lines.append(f"  … {hidden} more in findings.json")
    skipped = not_checked(result.rules_not_checked, result.jurisdiction)
    for title, entries in (
        ("Not checked", [n for n in skipped if not n.for_reviewer]),
        ("For the reviewer (the plan's geometry cannot decide these)", [n for n in skipped if n.for_reviewer]),
    ):
        if entries:
            lines.append("")
            lines.append(f"{title}:")
            for n in entries:
                lines.append(f"  [{n.citation}] {n.title or n.rule_id if n.for_reviewer else n.reason}")
    if result.warnings:
        lines.append("")
        lines.append("Data warnings:")
        for w in warnings_text(result.warnings):
            lines.append(f"  - {w}")
    if out_dir is not None:
        lines.append("")
        lines.append(f"Outputs: {out_dir / 'findings.json'} and {out_dir / 'findings.gpkg'}")
    lines.append("No finding for a rule or feature means it was not checked, never that it complies.")
    return "\n".join(lines)
