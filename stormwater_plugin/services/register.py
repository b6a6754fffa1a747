"""The register of applications: which site plans a reviewer has, where each one's files are, where it stands.

A register is a folder holding ``register.json`` (one small, hand-editable file
both the dock and ``stormwater-check register`` read with the standard library)
and, per application, ``reviews/<id>/state.json``: the dock's last review,
previous review and decisions of that application, so opening it again restores
them. Paths inside the register (package, DEM, context, output folders) are
stored as given and resolved against the register's folder when relative, so a
register folder can be moved with its packages.

The register is a shared file: several clerks, the dock and the
command line write it at once. Every save holds its lock
(:func:`stormwater_plugin.services.safe_files.locked`), re-reads the file and
merges: the applications this writer changed or added since it read the file
are its own, every other entry is taken as the file now has it (so another
writer's additions and changes are never lost). The file keeps its mode and
owner, and the previous version is kept as ``register.json.bak``.

``register.json``::

    {"format": "stormwater-register", "version": 1,
     "town": "Town of Lake George", "context": "context.gpkg",
     "applications": [{"id": "SW-2026-014", "applicant": "...", "address": "...", "parcel": "...",
                       "jurisdiction": "lake-george", "round": 1, "status": "received",
                       "received": "2026-02-01", "reviewed": "", "due": "2026-03-01", "reviewer": "...",
                       "reference": "...", "package": "SW-2026-014/site.gpkg", "dem": "dem.tif",
                       "dem_z_units": "m", "project_class": "", "site_parcel": "", "accuracy": "septic=10",
                       "dem_accuracy_ft": "", "device_type": "", "previous_output": "",
                       "last_review": {"output": "...", "violations": 3, "undetermined": 0, "open_decisions": 3,
                                       "checked": "2026-02-10", "by": "batch"}}]}

QGIS-free (the architecture test holds ``services/`` to that).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from ..core.errors import StormwaterError
from ..core.units import USER_Z_UNITS
from . import safe_files
from .jsondoc import integer, mapping, maps

if TYPE_CHECKING:
    from .findings_doc import FindingsDocument

REGISTER_FORMAT = "stormwater-register"
REGISTER_FILE = "register.json"
STATE_FILE = "state.json"

#: The statuses of an application, in the order a file moves through them.
STATUSES = ("received", "incomplete", "under review", "comments sent", "approved", "approved with conditions", "denied")
#: Statuses after which the file is closed (the queue's *next* skips none; a filter can).
CLOSED = frozenset({"approved", "approved with conditions", "denied"})

#: Per-application settings the dock and the check take from the register (never from the last application).
SETTINGS = ("jurisdiction", "reviewer", "reference", "dem_z_units", "project_class", "site_parcel", "accuracy", "dem_accuracy_ft", "device_type")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]*$")


class RegisterError(StormwaterError, ValueError):
    """The register cannot be read or the change asked for is not possible (the message names what and what to do)."""


def normalise_status(text: str) -> str:
    """The canonical status for ``text`` (case, hyphens, underscores and spacing ignored).

    Raises
    ------
    RegisterError
        When ``text`` names no status.
    """
    key = " ".join(str(text).replace("_", " ").replace("-", " ").lower().split())
    for s in STATUSES:
        if s == key:
            return s
    raise RegisterError(f"status '{text}' is not one of: {', '.join(STATUSES)}")


def _date(value: str, what: str) -> str:
    value = str(value or "").strip()
    if value and not _DATE.match(value):
        raise RegisterError(f"{what} '{value}': give a date as YYYY-MM-DD")
    if value:
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            raise RegisterError(f"{what} '{value}' is not a calendar date") from None
    return value


@dataclass
class ReviewCounts:
    """The counts of an application's last review.

    Attributes
    ----------
    output : str
        The review's output folder (a check's ``--out``, a batch's ``sites/<id>``, or the dock's export), or empty.
    violations, undetermined : int
        Findings with that status (before decisions).
    open_decisions : int
        Violations and undetermined findings without a reviewer decision.
    checked : str
        Date of the review (YYYY-MM-DD).
    by : str
        What produced it: ``check``, ``batch`` or ``dock``.
    """

    output: str = ""
    violations: int = 0
    undetermined: int = 0
    open_decisions: int = 0
    checked: str = ""
    by: str = ""

    @classmethod
    def from_dict(cls, d: Mapping[str, object] | None) -> ReviewCounts | None:
        """Read an application's ``last_review``; :class:`RegisterError` naming the field for a value of the wrong kind."""
        if not d:
            return None
        counts = {k: _count(d.get(k), f"last_review.{k}") for k in ("violations", "undetermined", "open_decisions")}
        texts = {k: _text(d.get(k), f"last_review.{k}") for k in ("output", "checked", "by")}
        return cls(output=texts["output"], violations=counts["violations"], undetermined=counts["undetermined"],
                   open_decisions=counts["open_decisions"], checked=texts["checked"], by=texts["by"])


def _kind(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "an infinite number (such as 1e400)"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else "true/false" if isinstance(value, bool) \
        else f"'{value}'"


def _count(value: object, what: str) -> int:
    """A whole number of the register (0 when missing); :class:`RegisterError` naming ``what`` for anything else."""
    if value is None or value == "":
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise RegisterError(f"\"{what}\" is {_kind(value)}, not a whole number")
    try:
        n = integer(value)
    except (TypeError, ValueError, OverflowError):
        raise RegisterError(f"\"{what}\" is {_kind(value)}, not a whole number") from None
    return n


def _text(value: object, what: str) -> str:
    """A text of the register ('' when missing); :class:`RegisterError` naming ``what`` for a list, an object or an infinite number."""
    if value is None:
        return ""
    if isinstance(value, (list, dict)) or isinstance(value, float) and not math.isfinite(value):
        raise RegisterError(f"\"{what}\" is {_kind(value)}, not a text")
    return str(value)


def counts_of(doc: FindingsDocument | Mapping[str, object]) -> tuple[int, int, int]:
    """Violations, undetermined and open decisions of a review's document (typed, or a findings.json read back).

    A finding needs a decision while it is a violation or undetermined and has no
    reviewer decision (accepted or waived) recorded on it.
    """
    if not isinstance(doc, Mapping):  # the typed document (its module is not imported here: the register reads no result)
        return _counts((f.status, f.override) for f in doc.findings)
    return _counts((str(f.get("status") or ""), f.get("override")) for f in maps(doc.get("findings", [])))


def _counts(findings: Iterable[tuple[str, object]]) -> tuple[int, int, int]:
    v = u = open_ = 0
    for status, override in findings:
        if status == "violation":
            v += 1
        elif status == "undetermined":
            u += 1
        else:
            continue
        if not override:
            open_ += 1
    return v, u, open_


@dataclass
class Application:
    """One application in the register (every text field may be empty but ``id``)."""

    id: str
    applicant: str = ""
    address: str = ""
    parcel: str = ""
    jurisdiction: str = ""
    round: int = 1
    status: str = "received"
    received: str = ""
    reviewed: str = ""
    due: str = ""
    reviewer: str = ""
    reference: str = ""
    package: str = ""
    dem: str = ""
    context: str = ""
    dem_z_units: str = ""
    project_class: str = ""
    site_parcel: str = ""
    accuracy: str = ""
    dem_accuracy_ft: str = ""
    device_type: str = ""
    previous_output: str = ""
    notes: str = ""
    last_review: ReviewCounts | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> Application:
        """Read one entry (unknown keys are kept in ``extra`` and written back); :class:`RegisterError` naming the field of a wrong value."""
        if not isinstance(d, Mapping):
            raise RegisterError(f"an entry is {'null' if d is None else _kind(d) if not isinstance(d, str) else 'a text'}, not an application: "
                                "remove it, or restore the register from its backup")
        known = {f.name for f in fields(cls)} - {"last_review", "extra"}
        kw: dict[str, object] = {}
        for k in known:
            if k in d and d[k] is not None:
                kw[k] = d[k]
        if "id" not in kw or isinstance(kw["id"], (list, dict)) or not str(kw["id"]).strip():
            raise RegisterError("an application in the register has no id" if "id" not in kw or not isinstance(kw["id"], (list, dict))
                                else f"an application's \"id\" is {_kind(kw['id'])}, not a text")
        name = str(kw["id"])
        try:
            texts = {k: _text(v, k) for k, v in kw.items() if k != "round"}
            round_no = _count(kw.get("round", 1), "round")
            last = d.get("last_review")
            if last is not None and not isinstance(last, Mapping):
                raise RegisterError(f"\"last_review\" is {_kind(last) if not isinstance(last, str) else 'a text'}, not an object")
            last_review = ReviewCounts.from_dict(mapping(last))
            status = normalise_status(texts.get("status") or "received")
        except RegisterError as exc:
            raise RegisterError(f"application {name}: {exc}") from None
        app = cls(id=texts["id"], round=round_no)
        for k, v in texts.items():
            setattr(app, k, v)
        app.status = status
        app.last_review = last_review
        app.extra = {k: v for k, v in d.items() if k not in known and k not in ("last_review",)}
        return app

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d.pop("extra")
        d["last_review"] = asdict(self.last_review) if self.last_review else None
        d.update(self.extra)
        return d

    def counts_text(self) -> str:
        """``3 V · 0 U · 3 open`` or ``not reviewed``."""
        r = self.last_review
        if r is None:
            return "not reviewed"
        return f"{r.violations} violation, {r.undetermined} undetermined, {r.open_decisions} open"

    def worst_key(self) -> tuple[int, int, int, str]:
        """Sort key putting the worst screened application first (most violations, then undetermined; unscreened last)."""
        r = self.last_review
        if r is None:
            return (1, 0, 0, self.id)
        return (0, -r.violations, -r.undetermined, self.id)


class Register:
    """A register folder: ``register.json`` and the per-application state under ``reviews/``.

    Parameters
    ----------
    folder : path
        The register's folder (or its ``register.json``).
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        p = Path(folder)
        if p.name == REGISTER_FILE or p.suffix.lower() == ".json":
            p = p.parent
        self.folder = p
        self.town = ""
        self.context = ""
        self.applications: list[Application] = []
        self.extra: dict[str, object] = {}
        #: Each application's entry as the file had it when this object read or last wrote it (the base of the merge).
        self._base: dict[str, dict[str, object]] = {}
        #: The header (town, context, extra keys) as read, likewise (a new register's: empty).
        self._base_header: dict[str, object] = self._header()

    @property
    def file(self) -> Path:
        return self.folder / REGISTER_FILE

    # -- reading and writing ------------------------------------------------------

    @classmethod
    def create(cls, folder: str | os.PathLike[str], town: str = "", context: str = "") -> Register:
        """A new, empty register in ``folder`` (created); refuses to overwrite one."""
        reg = cls(folder)
        if reg.file.exists():
            raise RegisterError(f"{reg.file}: a register already exists here")
        reg.town, reg.context = town, context
        reg.save()
        return reg

    @classmethod
    def open(cls, folder: str | os.PathLike[str], create: bool = False) -> Register:
        """Read the register in ``folder`` (``create``: an empty one when there is none)."""
        reg = cls(folder)
        if not reg.file.is_file():
            if create:
                return cls.create(reg.folder)
            raise RegisterError(f"{reg.file}: no register here (create one with: stormwater-check register add {reg.folder} ID ...)")
        reg._read()
        return reg

    def _read(self) -> None:
        """Replace this object's contents with the file's (and take them as the base of the next merge)."""
        try:
            data = json.loads(self.file.read_text(encoding="utf-8-sig"))
        except OSError as exc:
            raise RegisterError(f"{self.file}: cannot be read ({exc.strerror})") from exc
        except ValueError as exc:
            raise RegisterError(f"{self.file}: not JSON ({exc})") from exc
        if not isinstance(data, dict) or data.get("format") != REGISTER_FORMAT:
            raise RegisterError(f"{self.file}: not a stormwater register (its \"format\" is not \"{REGISTER_FORMAT}\")")
        self.town = str(data.get("town") or "")
        self.context = str(data.get("context") or "")
        apps = data.get("applications") or []
        if not isinstance(apps, list):
            raise RegisterError(f"{self.file}: \"applications\" must be a list")
        seen: set[str] = set()
        self.applications = []
        for i, d in enumerate(apps):
            try:
                app = Application.from_dict(d)
            except RegisterError as exc:  # a hand-edited register: which entry
                raise RegisterError(f"{self.file}: applications[{i}]: {exc}") from None
            if app.id in seen:
                raise RegisterError(f"{self.file}: application id {app.id} appears twice")
            seen.add(app.id)
            self.applications.append(app)
        self.extra = {k: v for k, v in data.items() if k not in ("format", "version", "town", "context", "applications")}
        self._remember()

    def _remember(self) -> None:
        self._base = {a.id: a.as_dict() for a in self.applications}
        self._base_header = self._header()

    def _header(self) -> dict[str, object]:
        return {"town": self.town, "context": self.context, **self.extra}

    def as_dict(self) -> dict[str, object]:
        return {"format": REGISTER_FORMAT, "version": 1, "town": self.town, "context": self.context, **self.extra,
                "applications": [a.as_dict() for a in self.applications]}

    def save(self) -> Path:
        """Merge this writer's changes into ``register.json`` as it is now, and write it whole.

        Under the register's lock: the file is read again; an application this object changed or added since it
        read the file replaces the file's entry (or is added), every other entry is the file's (another writer's
        additions and changes are kept); so are the town, context and extra keys unless this object changed them.
        The file is replaced atomically with its mode and owner kept and the previous version as
        ``register.json.bak``; this object then holds the merged register.

        Raises
        ------
        RegisterError
            The file on disk cannot be read, or another writer added an application with an id this one added too.
        """
        try:
            with safe_files.locked(self.file):
                mine = {a.id: a for a in self.applications}
                changed = {i for i, a in mine.items() if self._base.get(i) != a.as_dict()}
                header, header_changed = self._header(), self._header() != self._base_header
                base_ids = set(self._base)
                if self.file.is_file():
                    self._read()  # the file as another writer may have left it
                else:
                    self.applications, self._base = [], {}
                on_disk = {a.id: i for i, a in enumerate(self.applications)}
                for app_id in [a for a in mine if a in changed]:
                    if app_id in on_disk:
                        if app_id not in base_ids:
                            raise RegisterError(f"application {app_id} was added to {self.file} by someone else meanwhile; "
                                                "open the register again and change it there")
                        self.applications[on_disk[app_id]] = mine[app_id]
                    else:
                        self.applications.append(mine[app_id])
                if header_changed:
                    self.town, self.context = str(header.get("town") or ""), str(header.get("context") or "")
                    self.extra = {k: v for k, v in header.items() if k not in ("town", "context")}
                safe_files.write_json(self.file, self.as_dict(), backup=True)
                self._remember()
        except OSError as exc:
            raise RegisterError(f"{self.file}: cannot be written ({exc.strerror or exc})") from exc
        return self.file

    # -- applications ---------------------------------------------------------------

    def get(self, app_id: str) -> Application:
        for a in self.applications:
            if a.id == app_id:
                return a
        raise RegisterError(f"no application {app_id} in {self.file} (known: {', '.join(a.id for a in self.applications) or 'none'})")

    def add(self, app: Application) -> Application:
        """Add a new application (its id must be new; dates YYYY-MM-DD; the status one of :data:`STATUSES`)."""
        if not _ID.match(app.id or ""):
            raise RegisterError(f"id '{app.id}': use letters, digits, '.', '-', '_' or spaces, starting with a letter or digit")
        if any(a.id == app.id for a in self.applications):
            raise RegisterError(f"application {app.id} is already in {self.file}")
        check_fields(app)
        self.applications.append(app)
        return app

    def set_status(self, app_id: str, status: str, date: str = "") -> Application:
        """Move an application to ``status``; *under review* and later statuses set ``reviewed`` to ``date`` (default today)."""
        app = self.get(app_id)
        app.status = normalise_status(status)
        if app.status in ("comments sent",) or app.status in CLOSED:
            app.reviewed = _date(date, "date") or _dt.date.today().isoformat()
        return app

    def resubmit(self, app_id: str, package: str = "", received: str = "") -> Application:
        """A resubmission: the round goes up, the last review's folder becomes the previous round's, status *received*."""
        app = self.get(app_id)
        if app.last_review is not None and app.last_review.output:
            app.previous_output = app.last_review.output
        app.round += 1
        app.status = "received"
        app.received = _date(received, "received") or _dt.date.today().isoformat()
        app.reviewed = ""
        if package:
            app.package = package
        app.last_review = None
        return app

    def record_review(self, app_id: str, doc: FindingsDocument | Mapping[str, object], output: str = "", by: str = "check",
                      date: str = "") -> Application:
        """Store the counts of a review (its document, or a findings.json read back) as the application's last review."""
        app = self.get(app_id)
        v, u, o = counts_of(doc)
        app.last_review = ReviewCounts(output=output, violations=v, undetermined=u, open_decisions=o,
                                       checked=_date(date, "date") or _dt.date.today().isoformat(), by=by)
        return app

    def filtered(self, statuses: Iterable[str] | None = None, worst_first: bool = False) -> list[Application]:
        """The applications with one of ``statuses`` (all when empty), in register order or worst first."""
        wanted = {normalise_status(s) for s in statuses} if statuses else None
        apps = [a for a in self.applications if wanted is None or a.status in wanted]
        return sorted(apps, key=Application.worst_key) if worst_first else apps

    def neighbour(self, app_id: str | None, step: int, statuses: Iterable[str] | None = None) -> Application | None:
        """The application ``step`` places after (``-1``: before) ``app_id`` among the filtered ones; ``None`` at either end."""
        apps = self.filtered(statuses)
        if not apps:
            return None
        ids = [a.id for a in apps]
        if app_id not in ids:
            return apps[0] if step > 0 else apps[-1]
        i = ids.index(app_id) + step
        return apps[i] if 0 <= i < len(apps) else None

    def find_by_package(self, package: str | os.PathLike[str]) -> list[Application]:
        """The applications whose package is this file."""
        target = _same_file_key(Path(package))
        return [a for a in self.applications if a.package and _same_file_key(self.resolve(a.package)) == target]

    # -- paths and state ----------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """A path of the register resolved against its folder (``~`` expanded)."""
        p = Path(os.path.expanduser(path))
        return p if p.is_absolute() else self.folder / p

    def relative(self, path: str | os.PathLike[str]) -> str:
        """How the register stores ``path``: relative to its folder when inside it, else absolute."""
        p = Path(path).absolute()
        try:
            return p.relative_to(self.folder.absolute()).as_posix()
        except ValueError:
            return str(p)

    def state_dir(self, app_id: str) -> Path:
        return self.folder / "reviews" / safe_name(app_id)

    def load_state(self, app_id: str) -> dict[str, object]:
        """The dock's saved state of an application (last and previous review, decisions, letter); ``{}`` when none."""
        path = self.state_dir(app_id) / STATE_FILE
        if not path.is_file():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RegisterError(f"{path}: the saved review of {app_id} cannot be read ({exc})") from exc
        return data if isinstance(data, dict) else {}

    def save_state(self, app_id: str, state: Mapping[str, object]) -> Path:
        path = self.state_dir(app_id) / STATE_FILE
        safe_files.write_json(path, dict(state), backup=True)
        return path


def check_fields(app: Application) -> None:
    """Refuse a status, date, round or unit the register cannot hold (one line naming the field)."""
    app.status = normalise_status(app.status)
    for name in ("received", "reviewed", "due"):
        setattr(app, name, _date(getattr(app, name), name))
    if app.round < 1:
        raise RegisterError(f"round {app.round}: give 1 or more")
    if app.dem_z_units and app.dem_z_units not in USER_Z_UNITS:
        raise RegisterError(f"dem_z_units '{app.dem_z_units}': give m, ft or us-ft")
    if app.project_class and app.project_class not in ("exempt", "minor", "major"):
        raise RegisterError(f"project_class '{app.project_class}': give exempt, minor or major (or nothing: computed)")
    if app.dem_accuracy_ft:
        try:
            ok = float(app.dem_accuracy_ft) >= 0
        except ValueError:
            ok = False
        if not ok:
            raise RegisterError(f"dem_accuracy_ft '{app.dem_accuracy_ft}': give a number of feet, 0 or more")


def set_field(app: Application, name: str, value: str) -> None:
    """Set one field from text (``round`` as a number, ``status`` normalised); refuses unknown or computed fields."""
    names = {f.name for f in fields(Application)} - {"id", "last_review", "extra"}
    if name not in names:
        raise RegisterError(f"field '{name}' is not one the register holds (fields: {', '.join(sorted(names))})")
    if name == "round":
        try:
            app.round = int(value)
        except ValueError:
            raise RegisterError(f"round '{value}' is not a number") from None
    else:
        setattr(app, name, value)
    check_fields(app)


def safe_name(app_id: str) -> str:
    """A folder name for an application id (characters other than letters, digits, '.', '-' and '_' become '_')."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", app_id).strip(".") or "_"


def _same_file_key(p: Path) -> str:
    try:
        return str(p.resolve())
    except OSError:
        return str(p.absolute())


__all__ = ["Application", "CLOSED", "REGISTER_FILE", "Register", "RegisterError", "ReviewCounts", "SETTINGS", "STATUSES",
           "check_fields", "counts_of", "normalise_status", "safe_name", "set_field"]
