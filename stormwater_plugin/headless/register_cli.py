"""``stormwater-check register``: the register of applications (issue 28), the same one the dock's register panel reads.

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

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence

from ..core.model import DEVICE_TYPES
from ..core.rulepack import JURISDICTIONS
from ..core.units import USER_Z_UNITS
from ..services.register import STATUSES, Application, Register, RegisterError, check_fields, set_field
from .errors import fail

PROG = "stormwater-check register"
_STATUS_HELP = "; ".join(f'"{s}"' for s in STATUSES)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description="The register of applications: who applied, where the site package and DEM are, the per-application settings, "
        "the status and the last review's counts. REGISTER is a folder holding register.json.",
        epilog=f"Statuses: {_STATUS_HELP} (case and hyphens ignored).",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    a = sub.add_parser("add", help="add an application (creates the register when the folder has none)",
                       epilog=f"Statuses: {_STATUS_HELP}. Paths are stored relative to REGISTER when inside it.")
    a.add_argument("register", type=Path)
    a.add_argument("id", help="the application's id (e.g. SW-2026-014)")
    for name, hlp in (("applicant", None), ("address", "the property's address"), ("parcel", "tax parcel (section-block-lot)"),
                      ("reviewer", None), ("reference", "the file's reference number (report header)"),
                      ("received", "date received, YYYY-MM-DD (default today)"), ("due", "date the review is due, YYYY-MM-DD"),
                      ("site-parcel", "id of the site parcel in the package (default: is_site, else the only parcel)"),
                      ("accuracy", "horizontal accuracy per role, e.g. 'septic=10, wells=15' (ft, 95%%)"),
                      ("dem-accuracy-ft", "the DEM's vertical accuracy in feet (95%%)"), ("notes", None)):
        a.add_argument(f"--{name}", default="", help=hlp)
    a.add_argument("--jurisdiction", choices=JURISDICTIONS, default="")
    a.add_argument("--round", type=int, default=1)
    a.add_argument("--status", default="received", help=f"one of: {_STATUS_HELP}")
    a.add_argument("--package", type=Path, help="the site package (GeoPackage with standard layer names)")
    a.add_argument("--dem", type=Path, help="the DEM raster")
    a.add_argument("--context", type=Path, help="the town's context layers for this application (default: the register's)")
    a.add_argument("--dem-z-units", choices=USER_Z_UNITS, default="")
    a.add_argument("--class", dest="project_class", choices=("exempt", "minor", "major"), default="")
    a.add_argument("--device-type", choices=DEVICE_TYPES, default="", help="device type for the siting aid")
    a.add_argument("--town", default="", help="the town's name (only when the register is created)")

    ls = sub.add_parser("list", help="list the applications with status and counts", epilog=f"Statuses: {_STATUS_HELP}.")
    ls.add_argument("register", type=Path)
    ls.add_argument("--status", action="append", default=[], help="only these statuses (repeatable)")
    ls.add_argument("--worst-first", action="store_true", help="most violations first, then most undetermined; unscreened last")
    ls.add_argument("--json", action="store_true")

    sh = sub.add_parser("show", help="every field of one application")
    sh.add_argument("register", type=Path)
    sh.add_argument("id")
    sh.add_argument("--json", action="store_true")

    ss = sub.add_parser("set-status", help="move an application to a status", epilog=f"Statuses: {_STATUS_HELP}.")
    ss.add_argument("register", type=Path)
    ss.add_argument("id")
    ss.add_argument("status", help=f"one of: {_STATUS_HELP}")
    ss.add_argument("--date", default="", help="date of the change for 'comments sent' and the decisions (default today)")

    st = sub.add_parser("set", help="change fields of an application (FIELD=VALUE; an empty VALUE clears it)")
    st.add_argument("register", type=Path)
    st.add_argument("id")
    st.add_argument("assignments", nargs="+", metavar="FIELD=VALUE")

    rc = sub.add_parser("record", help="store a check's counts (its --out folder) as the application's last review")
    rc.add_argument("register", type=Path)
    rc.add_argument("id")
    rc.add_argument("review", type=Path, help="the check's output folder (or its findings.json)")

    rs = sub.add_parser("resubmit", help="a resubmission: next round, the last review becomes the previous round's")
    rs.add_argument("register", type=Path)
    rs.add_argument("id")
    rs.add_argument("--package", type=Path, help="the revised site package")
    rs.add_argument("--received", default="")
    return p


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
    if not isinstance(doc, dict) or "findings" not in doc:
        raise RegisterError(f"{f}: not a findings.json of stormwater-check")
    return doc, f.parent


def _show_lines(reg: Register, app: Application) -> list[str]:
    d = app.as_dict()
    d.pop("last_review")
    lr = app.last_review
    width = max(len(k) for k in d)
    lines = [f"{k.ljust(width)}  {v}" for k, v in d.items() if v not in ("", None, {})]
    lines.append(f"{'last review'.ljust(width)}  {app.counts_text()}" + (f" ({lr.by}, {lr.checked}: {lr.output})" if lr else ""))
    return lines


def main(argv: Sequence[str]) -> int:
    """Run ``stormwater-check register``; 0 on success, 2 on unusable input (one line on stderr)."""
    args = build_parser().parse_args(list(argv))
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
            print(f"Added {app.id} ({app.status}, round {app.round}) to {reg.file}")
            return 0
        reg = Register.open(args.register)
        if args.command == "list":
            apps = reg.filtered(args.status or None, worst_first=args.worst_first)
            if args.json:
                print(json.dumps([a.as_dict() for a in apps], indent=2, ensure_ascii=False))
                return 0
            rows = [("id", "status", "round", "due", "applicant", "address", "last review")]
            rows += [(a.id, a.status, str(a.round), a.due, a.applicant, a.address, a.counts_text()) for a in apps]
            widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
            for r in rows:
                print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
            print(f"{len(apps)} of {len(reg.applications)} application(s)" + (f" with status {', '.join(args.status)}" if args.status else ""))
            return 0
        if args.command == "show":
            app = reg.get(args.id)
            print(json.dumps(app.as_dict(), indent=2, ensure_ascii=False) if args.json else "\n".join(_show_lines(reg, app)))
            return 0
        if args.command == "set-status":
            app = reg.set_status(args.id, args.status, args.date)
            reg.save()
            print(f"{app.id}: {app.status}")
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
            print(f"{app.id}: set {', '.join(a.partition('=')[0] for a in args.assignments)}")
            return 0
        if args.command == "record":
            doc, folder = _read_doc(args.review)
            app = reg.record_review(args.id, doc, output=reg.relative(folder), by="check")
            reg.save()
            print(f"{app.id}: {app.counts_text()}")
            return 0
        if args.command == "resubmit":
            app = reg.resubmit(args.id, package=_path_arg(reg, args.package), received=args.received)
            reg.save()
            print(f"{app.id}: round {app.round}, received; previous round's review {app.previous_output or '(none recorded)'}")
            return 0
    except RegisterError as exc:
        fail(PROG, str(exc))
    raise AssertionError(args.command)  # pragma: no cover - argparse requires a known command


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
