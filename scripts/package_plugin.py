#!/usr/bin/env python3
"""Build ``dist/stormwater_plugin-<version>.zip``, the zip QGIS's "Install from ZIP" takes.

The zip holds one folder, ``stormwater_plugin/``, with the Python modules the
plugin can import (followed from its entry points: the command line and the
headless edge with geopandas and rasterio stay out), the packs and templates,
``metadata.txt`` (copied from the repository root) and ``resources/`` (icon
and styles; the demo data is left out). Caches, tests and development files are
never included.

The zip is then checked the way plugins.qgis.org checks an upload (:func:`validate`):
one top folder with a valid name, ``metadata.txt`` with the required fields and
well-formed links and e-mail, a LICENSE file, no ``__pycache__``/``.pyc``/``.git``,
under 25 MB. A zip that breaks any of these fails (exit 1); what only the project can
supply (the public tracker and repository addresses, a real contact e-mail) is named
as missing for upload, and fails only with ``--for-upload``.

Usage::

    python scripts/package_plugin.py [--output-dir dist] [--for-upload]
"""

from __future__ import annotations

import argparse
import configparser
import re
import sys
import zipfile
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "stormwater_plugin"

#: Files of the package that go in (by suffix).
PACKAGE_SUFFIXES = {".py", ".json", ".txt", ".md", ".qml", ".svg", ".png", ".j2", ".html", ".css", ".csv"}
#: Resource subfolders that go in; ``resources/demo`` stays out.
RESOURCE_ITEMS = ("icon.svg", "styles")
SKIP_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "tests", "demo"}


def version() -> str:
    """The plugin version from ``metadata.txt``."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "metadata.txt", encoding="utf-8")
    return parser["general"]["version"]


def _wanted(path: Path) -> bool:
    return path.is_file() and not (set(path.parts) & SKIP_PARTS) and not path.name.startswith(".") and path.suffix not in {".pyc", ".pyo"}


#: Where QGIS enters the plugin: the package, the plugin class and everything the dock and Processing load, and the
#: whole QGIS-free engine (core and services): the engine loads each rule kind's handler by name from the rule-kind
#: registry (core/kinds.py), which no import statement names.
ENTRY_MODULES = ("__init__.py", "processing", "gui", "core", "services")


def _module_file(pkg: Path, dotted: str) -> Path | None:
    """The file of a ``stormwater_plugin.a.b`` module (package ``__init__`` or module), if it exists."""
    parts = dotted.split(".")[1:]
    base = pkg.joinpath(*parts) if parts else pkg
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _imports(path: Path, pkg: Path) -> set[str]:
    """Dotted names of the package's own modules that ``path`` imports (absolute or relative, at any depth in the file)."""
    import ast

    here = list(path.relative_to(pkg.parent).with_suffix("").parts[:-1])  # the package a relative import starts from
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != PACKAGE:
                continue
            out.add(mod)
            for alias in node.names:  # ``from . import x`` imports a module
                out.add(f"{mod}.{alias.name}")
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
    return out


def plugin_modules(pkg: Path) -> set[Path]:
    """Every module of the package the plugin can import, from its entry points (the zip carries only these)."""
    todo: list[Path] = []
    for entry in ENTRY_MODULES:
        p = pkg / entry
        todo.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        # a module's package __init__ files run first
        parent = path.parent
        while parent != pkg.parent and (parent / "__init__.py").is_file():
            todo.append(parent / "__init__.py")
            parent = parent.parent
        for dotted in _imports(path, pkg):
            f = _module_file(pkg, dotted)
            if f is not None:
                todo.append(f)
    return seen


def collect() -> list[tuple[Path, str]]:
    """(source file, name in the zip) pairs, sorted: the modules the plugin imports and their data files."""
    out: list[tuple[Path, str]] = []
    pkg = ROOT / PACKAGE
    modules = plugin_modules(pkg)
    for p in sorted(pkg.rglob("*")):
        rel = p.relative_to(pkg)
        if not (_wanted(p) and not (set(rel.parts) & SKIP_PARTS) and p.suffix in PACKAGE_SUFFIXES):
            continue
        if p.suffix == ".py" and p not in modules:
            continue  # the command line and the headless edge (geopandas, rasterio) stay out of the plugin
        out.append((p, f"{PACKAGE}/{rel.as_posix()}"))
    out.append((ROOT / "metadata.txt", f"{PACKAGE}/metadata.txt"))
    res = ROOT / "resources"
    for item in RESOURCE_ITEMS:
        src = res / item
        files = [src] if src.is_file() else sorted(q for q in src.rglob("*") if _wanted(q)) if src.is_dir() else []
        for q in files:
            out.append((q, f"{PACKAGE}/resources/{q.relative_to(res).as_posix()}"))
    for extra in ("LICENSE", "LICENSE.txt", "LICENSE.md"):
        if (ROOT / extra).is_file():
            out.append((ROOT / extra, f"{PACKAGE}/{extra}"))
    return out


def build(output_dir: Path) -> Path:
    """Write the zip and return its path."""
    output_dir.mkdir(parents=True, exist_ok=True)
    target = output_dir / f"{PACKAGE}-{version()}.zip"
    entries = collect()
    missing = [n for n in (f"{PACKAGE}/metadata.txt", f"{PACKAGE}/resources/icon.svg", f"{PACKAGE}/__init__.py") if n not in {e[1] for e in entries}]
    if missing:
        raise SystemExit(f"cannot package: missing {', '.join(missing)}")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for src, name in entries:
            zf.write(src, name)
    return target


#: The metadata fields plugins.qgis.org requires of an upload.
REQUIRED_METADATA = ("name", "qgisMinimumVersion", "description", "about", "version", "author", "email", "repository", "tracker")
#: Fields holding a web address, when present.
URL_FIELDS = ("homepage", "tracker", "repository")
#: The repository's upload limit, bytes.
MAX_ZIP_BYTES = 25 * 1024 * 1024
#: A top folder name the repository accepts: an ASCII letter, then ASCII letters, digits, ``-`` and ``_``.
TOP_FOLDER = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
#: Entries the repository refuses in a zip (by path component or suffix).
FORBIDDEN_PARTS = {"__pycache__", ".git", "__MACOSX", ".svn", ".hg"}
FORBIDDEN_SUFFIXES = (".pyc", ".pyo")
#: Reserved domains (RFC 2606): an address there is a placeholder, never the project's.
PLACEHOLDER_DOMAIN = re.compile(r"(^|\.)(example\.(org|com|net)|invalid|localhost|test)$", re.IGNORECASE)
EMAIL = re.compile(r"^[^@\s]+@([A-Za-z0-9-]+\.)+[A-Za-z]{2,}$")
VERSION = re.compile(r"^\d+(\.\d+){1,2}([-.]?[A-Za-z0-9]+)*$")
QGIS_VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")
#: Flags the repository no longer reads: ``qgisMaximumVersion=4.99`` says the plugin runs on QGIS 4.
DROPPED_FIELDS = ("supportsqt6",)
LICENSE_NAMES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "COPYING")


class Validation(NamedTuple):
    """The outcome of :func:`validate`.

    Attributes
    ----------
    errors : list of str
        What makes the zip itself unacceptable (the build must fail).
    missing : list of str
        What only the project can supply before an upload (addresses, a real e-mail).
    """

    errors: list[str]
    missing: list[str]


def _well_formed_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and "." in (parts.hostname or "") and " " not in value


def _qgis_version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def validate(zip_path: Path) -> Validation:
    """Check a plugin zip as plugins.qgis.org checks an upload.

    Parameters
    ----------
    zip_path : Path
        The zip :func:`build` wrote.
    """
    out = Validation([], [])
    size = zip_path.stat().st_size
    if size > MAX_ZIP_BYTES:
        out.errors.append(f"the zip is {size / 1e6:.1f} MB; the repository takes at most {MAX_ZIP_BYTES // (1024 * 1024)} MB")
    try:
        zf = zipfile.ZipFile(zip_path)
    except zipfile.BadZipFile as exc:
        out.errors.append(f"not a valid zip ({exc})")
        return out
    with zf:
        names = zf.namelist()
        bad = zf.testzip()
        if bad is not None:
            out.errors.append(f"corrupt entry {bad}")
        tops = sorted({n.split("/")[0] for n in names})
        if len(tops) != 1 or not all("/" in n for n in names):
            out.errors.append(f"the zip must hold exactly one top folder, not {tops}")
            return out
        top = tops[0]
        if not TOP_FOLDER.match(top):
            out.errors.append(f"top folder {top!r}: it must start with an ASCII letter and hold only ASCII letters, digits, '-' and '_'")
        forbidden = [n for n in names if set(n.split("/")) & FORBIDDEN_PARTS or n.endswith(FORBIDDEN_SUFFIXES)]
        if forbidden:
            out.errors.append(f"{len(forbidden)} forbidden entries (__pycache__, .pyc, .git, __MACOSX), e.g. {forbidden[0]}")
        if not any(f"{top}/{name}" in names for name in LICENSE_NAMES):
            out.errors.append(f"no LICENSE file in {top}/")
        init = f"{top}/__init__.py"
        if init not in names or "def classFactory" not in zf.read(init).decode("utf-8", "replace"):
            out.errors.append(f"{init} with a classFactory function is missing")
        if f"{top}/metadata.txt" not in names:
            out.errors.append(f"{top}/metadata.txt is missing")
            return out
        text = zf.read(f"{top}/metadata.txt").decode("utf-8")
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
        meta = dict(parser["general"])  # keys lower-cased by configparser
    except (configparser.Error, KeyError) as exc:
        out.errors.append(f"metadata.txt cannot be read as the repository reads it ({exc})")
        return out
    for key in REQUIRED_METADATA:
        if not meta.get(key.lower(), "").strip():
            out.missing.append(f"metadata.txt: {key}= (required by plugins.qgis.org" + (
                "; the project's public address, which does not exist yet)" if key in URL_FIELDS else ")"))
    for key in URL_FIELDS:
        value = meta.get(key.lower(), "").strip()
        if not value:
            continue
        if not _well_formed_url(value):
            out.errors.append(f"metadata.txt: {key}={value} is not a well-formed http(s) address")
        elif PLACEHOLDER_DOMAIN.search(urlsplit(value).hostname or ""):
            out.missing.append(f"metadata.txt: {key}={value} is a placeholder; the real address is needed")
    if not meta.get("homepage", "").strip():
        out.missing.append("metadata.txt: homepage= (recommended; the project's public page, which does not exist yet)")
    email = meta.get("email", "").strip()
    if email:
        if not EMAIL.match(email):
            out.errors.append(f"metadata.txt: email={email} is not an e-mail address")
        elif PLACEHOLDER_DOMAIN.search(email.rsplit("@", 1)[1]):
            out.missing.append(f"metadata.txt: email={email} is a placeholder; a real contact address is needed")
    version = meta.get("version", "").strip()
    if version and not VERSION.match(version):
        out.errors.append(f"metadata.txt: version={version} is not a version number")
    qmin, qmax = meta.get("qgisminimumversion", "").strip(), meta.get("qgismaximumversion", "").strip()
    for key, value in (("qgisMinimumVersion", qmin), ("qgisMaximumVersion", qmax)):
        if value and not QGIS_VERSION.match(value):
            out.errors.append(f"metadata.txt: {key}={value} is not a QGIS version (x.y or x.y.z)")
    if qmin and qmax and QGIS_VERSION.match(qmin) and QGIS_VERSION.match(qmax) and _qgis_version(qmax) < _qgis_version(qmin):
        out.errors.append(f"metadata.txt: qgisMaximumVersion={qmax} is below qgisMinimumVersion={qmin}")
    for key in DROPPED_FIELDS:
        if key in meta:
            out.errors.append(f"metadata.txt: {key} is no longer read by the repository; qgisMaximumVersion=4.99 says the plugin runs on QGIS 4")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=ROOT / "dist")
    parser.add_argument("--for-upload", action="store_true", help="also fail when something needed for an upload is missing")
    args = parser.parse_args(argv)
    path = build(args.output_dir)
    with zipfile.ZipFile(path) as zf:
        n = len(zf.namelist())
    print(f"{path} ({n} files, {path.stat().st_size / 1e6:.1f} MB)")
    result = validate(path)
    for line in result.errors:
        print(f"ERROR: {line}")
    if result.errors:
        print("the zip does not pass plugins.qgis.org's checks")
        return 1
    print("the zip passes plugins.qgis.org's checks of its layout and metadata")
    if result.missing:
        print("missing for an upload to plugins.qgis.org:")
        for line in result.missing:
            print(f"  - {line}")
        return 1 if args.for_upload else 0
    print("ready for upload")
    return 0


if __name__ == "__main__":
    sys.exit(main())
