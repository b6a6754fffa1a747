"""``stormwater-check register``: the register of applications, the same one the dock's register panel reads.

Usage::

    stormwater-check register add REGISTER ID [--applicant ..] [--package SITE.gpkg] [--dem DEM.tif] ...
    stormwater-check register list REGISTER [--status STATUS]... [--worst-first]
    stormwater-check register show REGISTER ID [--json]
    stormwater-check register set-status REGISTER ID STATUS [--date YYYY-MM-DD]
    stormwater-check register set REGISTER ID FIELD=VALUE...
    stormwater-check register record REGISTER ID REVIEW_DIR
    stormwater-check register resubmit REGISTER ID [--package SITE.gpkg] [--received YYYY-MM-DD]

REGISTER is a folder holding ``register.json`` (created by the first ``add``); the format is
:mod:`stormwater_plugin.services.register`. ``stormwater-check batch --register REGISTER`` fills
the counts of every application whose package the batch screened.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click

from ..core.model import DEVICE_TYPES
from ..core.printable import printable_changed, printable_text
from ..services.register import STATUSES, Application, Register, RegisterError, check_fields, set_field
from ..services.review_doc import findings_doc_problem
from .command_line import Choice, Command, Group, dem_option, dem_z_units_option, jurisdiction_option, namespace, project_class_option
from .errors import fail

PROG = "stormwater-check register"
_STATUS_HELP = "; ".join(f'"{s}"' for s in STATUSES)


def _run(**values: Any) -> int:
    """The callback of every ``register`` command: its values, with the command's name, to :func:`main`."""
    return main(namespace({"command": click.get_current_context().info_name, **values}))


command = Group(
    name="register",
    help="The register of applications: who applied, where the site package and DEM are, the per-application settings, "
    "the status and the last review's counts. REGISTER is a folder holding register.json.",
    epilog=f"Statuses: {_STATUS_HELP} (case and hyphens ignored).",
)

_REGISTER = click.argument("register", type=Path)
_ID = click.argument("id")


def _add_options(f: Any) -> Any:
    for name, hlp in reversed((("applicant", None), ("address", "the property's address"), ("parcel", "tax parcel (section-block-lot)"),
                               ("reviewer", None), ("reference", "the file's reference number (report header)"),
                               ("received", "date received, YYYY-MM-DD (default today)"), ("due", "date the review is due, YYYY-MM-DD"),
                               ("site-parcel", "id of the site parcel in the package (default: is_site, else the only parcel)"),
                               ("accuracy", "horizontal accuracy per role, e.g. 'septic=10, wells=15' (ft, 95%)"),
                               ("dem-accuracy-ft", "the DEM's vertical accuracy in feet (95%)"), ("notes", None))):
        f = click.option(f"--{name}", default="", help=hlp)(f)
    return f


@command.command("add", cls=Command, help="add an application (creates the register when the folder has none); ID: the application's id "
                 "(e.g. SW-2026-014)", epilog=f"Statuses: {_STATUS_HELP}. Paths are stored relative to REGISTER when inside it.")
@_REGISTER
@_ID
@_add_options
@jurisdiction_option(required=False, default="")
@click.option("--round", type=int, default=1)
@click.option("--status", default="received", help=f"one of: {_STATUS_HELP}")
@click.option("--package", type=Path, help="the site package (GeoPackage with standard layer names)")
@dem_option("the DEM raster")
@click.option("--context", type=Path, help="the town's context layers for this application (default: the register's)")
@dem_z_units_option("", default="")
@project_class_option("", default="")
@click.option("--device-type", type=Choice(DEVICE_TYPES), default="", help="device type for the siting aid")
@click.option("--town", default="", help="the town's name (only when the register is created)")
def _add(**values: Any) -> int:
    return _run(**values)


@command.command("list", cls=Command, help="list the applications with status and counts", epilog=f"Statuses: {_STATUS_HELP}.")
@_REGISTER
@click.option("--status", multiple=True, help="only these statuses (repeatable)")
@click.option("--worst-first", is_flag=True, help="most violations first, then most undetermined; unscreened last")
@click.option("--json", is_flag=True)
def _list(**values: Any) -> int:
    return _run(**values)


@command.command("show", cls=Command, help="every field of one application")
@_REGISTER
@_ID
@click.option("--json", is_flag=True)
def _show(**values: Any) -> int:
    return _run(**values)


@command.command("set-status", cls=Command, help="move an application to a status", epilog=f"Statuses: {_STATUS_HELP}.")
@_REGISTER
@_ID
@click.argument("status")
@click.option("--date", default="", help="date of the change for 'comments sent' and the decisions (default today)")
def _set_status(**values: Any) -> int:
    return _run(**values)


@command.command("set", cls=Command, help="change fields of an application (FIELD=VALUE; an empty VALUE clears it)")
@_REGISTER
@_ID
@click.argument("assignments", nargs=-1, required=True, metavar="FIELD=VALUE...")
def _set(**values: Any) -> int:
    return _run(**values)


@command.command("record", cls=Command, help="store a check's counts (its --out folder, or its findings.json) as the application's last review")
@_REGISTER
@_ID
@click.argument("review", type=Path)
def _record(**values: Any) -> int:
    return _run(**values)


@command.command("resubmit", cls=Command, help="a resubmission: next round, the last review becomes the previous round's")
@_REGISTER
@_ID
@click.option("--package", type=Path, help="the revised site package")
@click.option("--received", default="")
def _resubmit(**values: Any) -> int:
    return _run(**values)


def _path_arg(reg: Register, p: Path | None) -> str:
    return reg.relative(p) if p is not None else ""


def _read_doc(path: Path) -> tuple[dict[str, Any], Path]:
    f = path / "findings.json" if path.is_dir() else path
    try:
        doc = json.loads(f.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RegisterError(f"{f}: cannot read the review ({exc.strerror})") from exc
    except ValueError as exc:
        raise RegisterError(f"{f}: not JSON ({exc})") from exc
    problem = findings_doc_problem(doc)  # a hand-edited or tampered file: one line naming the entry and field
    if problem is not None:
        raise RegisterError(f"{f}: {problem}")
    return doc, f.parent


def _show_lines(reg: Register, app: Application) -> list[str]:
    d = app.as_dict()
    d.pop("last_review")
    lr = app.last_review
    width = max(len(k) for k in d)
    lines = [f"{k.ljust(width)}  {v}" for k, v in d.items() if v not in ("", None, {})]
    lines.append(f"{'last review'.ljust(width)}  {app.counts_text()}" + (f" ({lr.by}, {lr.checked}: {lr.output})" if lr else ""))
    return lines


def _say(text: str) -> None:
    """Print ``text`` with every line passed through :func:`~stormwater_plugin.core.printable.printable_text`: an applicant's name
    holding a terminal escape sequence or a line break never reaches the clerk's terminal as such; a note on stderr says so."""
    lines = text.split("\n")
    shown = [printable_text(line) for line in lines]
    print("\n".join(shown))
    if shown != lines:
        sys.stderr.write(f"{PROG}: note: control characters (terminal escapes, line breaks) in the register's text were left out of what is shown\n")


def main(args: SimpleNamespace) -> int:
    """Run one ``stormwater-check register`` command (``args.command``); 0 on success, 2 on unusable input (one line on stderr)."""
    try:
        if args.command == "add":
            if (args.register / "register.json").is_file():
                reg = Register.open(args.register)
            else:  # a new register: written by the save below, merged with one another clerk may create meanwhile
                reg = Register(args.register)
                reg.town = args.town
            app = Application(
                id=args.id.strip(), applicant=args.applicant, address=args.address, parcel=args.parcel, jurisdiction=args.jurisdiction,
                round=args.round, status=args.status, received=args.received, due=args.due, reviewer=args.reviewer,
                reference=args.reference, package=_path_arg(reg, args.package), dem=_path_arg(reg, args.dem), context=_path_arg(reg, args.context),
                dem_z_units=args.dem_z_units, project_class=args.project_class, site_parcel=args.site_parcel, accuracy=args.accuracy,
                dem_accuracy_ft=args.dem_accuracy_ft, device_type=args.device_type, notes=args.notes,
            )
            if not app.received:
                import datetime as _dt

                app.received = _dt.date.today().isoformat()
            for label, value in (("--package", args.package), ("--dem", args.dem), ("--context", args.context)):
                if value is not None and not value.exists():
                    raise RegisterError(f"{label} {value}: file not found")
            reg.add(app)
            reg.save()
            _say(f"Added {app.id} ({app.status}, round {app.round}) to {reg.file}")
            return 0
        reg = Register.open(args.register)
        if args.command == "list":
            apps = reg.filtered(args.status or None, worst_first=args.worst_first)
            if args.json:
                _say(json.dumps([a.as_dict() for a in apps], indent=2, ensure_ascii=False))
                return 0
            rows: list[tuple[str, ...]] = [("id", "status", "round", "due", "applicant", "address", "last review")]
            rows += [(a.id, a.status, str(a.round), a.due, a.applicant, a.address, a.counts_text()) for a in apps]
            if any(printable_changed(c) for r in rows for c in r):
                sys.stderr.write(f"{PROG}: note: control characters (terminal escapes, line breaks) in the register's text were left out of what is shown\n")
                rows = [tuple(printable_text(c) for c in r) for r in rows]
            widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
            for r in rows:
                _say("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
            _say(f"{len(apps)} of {len(reg.applications)} application(s)" + (f" with status {', '.join(args.status)}" if args.status else ""))
            return 0
        if args.command == "show":
            app = reg.get(args.id)
            _say(json.dumps(app.as_dict(), indent=2, ensure_ascii=False) if args.json else "\n".join(_show_lines(reg, app)))
            return 0
        if args.command == "set-status":
            app = reg.set_status(args.id, args.status, args.date)
            reg.save()
            _say(f"{app.id}: {app.status}")
            return 0
        if args.command == "set":
            app = reg.get(args.id)
            for item in args.assignments:
                name, sep, value = item.partition("=")
                if not sep:
                    raise RegisterError(f"'{item}': give FIELD=VALUE")
                name = name.strip().replace("-", "_")
                if name in ("package", "dem", "context", "previous_output") and value:
                    value = reg.relative(Path(value))
                set_field(app, name, value)
            check_fields(app)
            reg.save()
            _say(f"{app.id}: set {', '.join(a.partition('=')[0] for a in args.assignments)}")
            return 0
        if args.command == "record":
            doc, folder = _read_doc(args.review)
            app = reg.record_review(args.id, doc, output=reg.relative(folder), by="check")
            reg.save()
            _say(f"{app.id}: {app.counts_text()}")
            return 0
        if args.command == "resubmit":
            app = reg.resubmit(args.id, package=_path_arg(reg, args.package), received=args.received)
            reg.save()
            _say(f"{app.id}: round {app.round}, received; previous round's review {app.previous_output or '(none recorded)'}")
            return 0
    except RegisterError as exc:
        fail(PROG, str(exc))
    raise AssertionError(args.command)  # pragma: no cover - the group runs only the commands above


def fill_from_batch(register: Path, package: Path, out: Path) -> list[str]:
    """After ``stormwater-check batch``: the counts of each application of ``register`` whose package is ``package``.

    The application's site is its ``site_parcel`` (else its ``parcel``), else the batch's only site. An application
    whose site the batch did not check keeps its counts and is named in the returned lines.

    Returns
    -------
    list of str
        One line per application touched, for the console.
    """
    reg = Register.open(register)
    apps = reg.find_by_package(package)
    if not apps:
        return [f"register: no application of {reg.file} has the package {package}; no counts filled"]
    try:
        with (out / "summary.csv").open(encoding="utf-8", newline="") as fh:
            rows = {r["site_parcel"]: r for r in csv.DictReader(fh)}
    except OSError as exc:
        raise RegisterError(f"{out / 'summary.csv'}: cannot be read ({exc.strerror})") from exc
    lines = []
    for app in apps:
        site = app.site_parcel or app.parcel
        row = rows.get(site) if site else (next(iter(rows.values())) if len(rows) == 1 else None)
        if row is None or not row.get("findings_json"):
            why = (row or {}).get("error") or (f"site {site} not screened" if site else "the batch screened several sites; set the application's site_parcel")
            lines.append(f"register: {app.id}: counts not filled ({why})")
            continue
        doc, folder = _read_doc(out / row["findings_json"])
        reg.record_review(app.id, doc, output=reg.relative(folder), by="batch")
        lines.append(f"register: {app.id}: {app.counts_text()}")
    reg.save()
    return lines
