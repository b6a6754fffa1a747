"""Package metadata, single-sourced from ``metadata.txt``.

The plugin zip carries ``metadata.txt`` inside the plugin folder; a source
checkout keeps it one level up. Both are looked for, in that order.
"""

from __future__ import annotations

import configparser
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _read_metadata() -> configparser.SectionProxy | None:
    for candidate in (_HERE / "metadata.txt", _HERE.parent / "metadata.txt"):
        if candidate.is_file():
            parser = configparser.ConfigParser(interpolation=None)
            parser.read(candidate, encoding="utf-8")
            if parser.has_section("general"):
                return parser["general"]
    return None


_META = _read_metadata()

__title__: str = _META.get("name", "Stormwater Site-Plan Review") if _META else "Stormwater Site-Plan Review"
__version__: str = _META.get("version", "0+unknown") if _META else "0+unknown"
__qgis_min__: str = _META.get("qgisMinimumVersion", "3.22") if _META else "3.22"
