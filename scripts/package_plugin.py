#!/usr/bin/env python3
"""Build ``dist/stormwater_plugin-<version>.zip``, the zip QGIS's "Install from ZIP" takes.

The zip holds one folder, ``stormwater_plugin/``, with the Python modules the
plugin can import (followed from its entry points: the command line and the
headless edge with geopandas and rasterio stay out), the packs and templates,
``metadata.txt`` (copied from the repository root) and ``resources/`` (icon
and styles; the demo data is left out). Caches, tests and development files are
never included.

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
