#!/usr/bin/env python3
"""Build ``dist/stormwater_plugin-<version>.zip``, the zip QGIS's "Install from ZIP" takes.

The zip holds one folder, ``stormwater_plugin/``, with the package's Python
files, ``metadata.txt`` (copied from the repository root) and ``resources/``
(icon and styles; the demo data is left out). Caches, tests and development
files are never included.

Usage::

    python scripts/package_plugin.py [--output-dir dist]
"""

from __future__ import annotations

import argparse
import configparser
import sys
import zipfile
from pathlib import Path

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


def collect() -> list[tuple[Path, str]]:
    """(source file, name in the zip) pairs, sorted."""
    out: list[tuple[Path, str]] = []
    pkg = ROOT / PACKAGE
    for p in sorted(pkg.rglob("*")):
        rel = p.relative_to(pkg)
        if _wanted(p) and not (set(rel.parts) & SKIP_PARTS) and p.suffix in PACKAGE_SUFFIXES:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    path = build(args.output_dir)
    with zipfile.ZipFile(path) as zf:
        n = len(zf.namelist())
    print(f"{path} ({n} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
