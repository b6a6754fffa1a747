"""Which layers give each role: the site package's layers by name, ``--layer ROLE=PATH[:LAYER]`` options and zip archives.

The policy is :mod:`~stormwater_plugin.services.intake`; this module applies it to the names the file reader lists
(``headless.sources`` opens the package and the archives) and words the warnings and refusals: a layer read into a
role by its name's beginning, a layer matching no role, a ``--layer`` replacing the package's, a file of several
layers given without one named.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from ..core.model import Warning_
from ..core.roles import ROLE_NOUN, ROLES
from .input_errors import InputError
from .intake import NOT_LAYERS, role_for_layer_name


@dataclass
class LayerSource:
    """Where a role's features come from."""

    role: str
    path: Path
    layer: str | None = None
    #: ``package`` (a layer of the site package by its name) or ``--layer``.
    origin: str = "--layer"
    #: The path as typed when it is a GDAL virtual path (``/vsizip//abs/plan.zip/septic.shp``), which a Path would change.
    text: str = ""

    def describe(self) -> str:
        return f"{self.text or self.path}{':' + self.layer if self.layer else ''}"


def is_virtual(path: Path | str) -> bool:
    """Whether ``path`` is a GDAL virtual path (``/vsizip/…``, ``/vsicurl/…``): GDAL, not the file system, says whether it exists."""
    return str(path).replace("\\", "/").startswith("/vsi")


def parse_layer_option(text: str) -> LayerSource:
    """Parse ``ROLE=PATH[:LAYER]`` from ``--layer``."""
    if "=" not in text:
        raise InputError(f"--layer {text}: expected ROLE=PATH[:LAYER], e.g. wells=wells.shp")
    role, rest = text.split("=", 1)
    role = role.strip()
    if role not in ROLES:
        raise InputError(f"--layer {text}: unknown role '{role}'; roles are {', '.join(ROLES)}")
    path, layer = rest, None
    # PATH may itself hold a colon (a Windows drive); split on the last colon only if what is before it exists
    # (a GDAL virtual path, /vsizip/…, is taken as existing: GDAL says whether it does).
    if ":" in rest:
        head, tail = rest.rsplit(":", 1)
        if head and (Path(head).exists() or head.startswith("/vsi")) and not Path(rest).exists() and "/" not in tail and "\\" not in tail:
            path, layer = head, tail
    return LayerSource(role, Path(path), layer, origin="--layer", text=path if is_virtual(path) else "")


#: File names inside a zip archive that hold vector data (looked for when the archive's root holds none).
ZIP_DATA_SUFFIXES: tuple[str, ...] = (".shp", ".gpkg", ".geojson", ".json", ".kml", ".gml", ".fgb", ".tab", ".sqlite")


def zip_member(path: Path, names: Sequence[str]) -> str:
    """The path GDAL opens for the zip archive ``path`` holding the files ``names``: ``/vsizip/`` and its data file or folder inside."""
    base = "/vsizip/" + str(path.resolve()).replace("\\", "/")
    files = [n for n in names if not n.startswith("__MACOSX") and not n.endswith("/")]
    data = [n for n in files if n.lower().endswith(ZIP_DATA_SUFFIXES)]
    if not data:
        raise InputError(f"{path}: the archive holds no vector file (.shp, .gpkg, .geojson, .kml …); unzip it and give the file with --layer")
    shp_dirs = {posixpath.dirname(n) for n in data if n.lower().endswith(".shp")}
    others = [n for n in data if not n.lower().endswith(".shp")]
    if not others and len(shp_dirs) == 1:
        folder = shp_dirs.pop()
        return base if folder == "" else f"{base}/{folder}"
    if len(others) == 1 and not shp_dirs:
        return f"{base}/{others[0]}"
    return base


def package_sources(package: Path, names: Sequence[str]) -> tuple[dict[str, list[LayerSource]], list[Warning_]]:
    """The roles the package's layers ``names`` give by their names (:func:`~stormwater_plugin.services.intake.role_for_layer_name`).

    A layer whose name begins with a role's (``devices_proposed``) is read into that role, and a layer matching
    no role is listed, both in warnings.
    """
    sources: dict[str, list[LayerSource]] = {}
    notes: list[Warning_] = []
    unmatched: list[str] = []
    for name in names:
        role, exact = role_for_layer_name(name, ROLES)
        if role is None:
            if name.strip().lower() not in NOT_LAYERS:
                unmatched.append(name)
            continue
        sources.setdefault(role, []).append(LayerSource(role, package, name, origin="package"))
        if not exact:
            notes.append(Warning_("layer_name_prefix", f"package layer '{name}' was read as part of the '{role}' role (its name begins with "
                                  f"'{role}'); rename it if it is not {ROLE_NOUN.get(role, role)} data", role))
    if unmatched:
        notes.append(Warning_("layers_not_read", f"package layer(s) {', '.join(repr(n) for n in unmatched)} match no role and were not read; "
                              f"rename each to a role ({', '.join(ROLES)}) or give it with --layer ROLE=PATH:LAYER"))
    return sources, notes


def replaced_by_option(role: str, replaced: Sequence[LayerSource]) -> Warning_:
    """The warning that ``--layer`` for ``role`` replaces the package's layer(s) ``replaced`` of that role."""
    return Warning_("layer_replaced", f"--layer {role} replaces the package's layer(s) {', '.join(repr(s.layer) for s in replaced)} "
                    f"for the '{role}' role (give the package layer with --layer too to check both)", role)


def one_layer(src: LayerSource, names: Sequence[str]) -> LayerSource:
    """``src`` (given without ``:LAYER``) with its layer named, its file holding the layers ``names``: a source of one
    layer is that layer; a source of several is refused."""
    if len(names) > 1:
        shown = ", ".join(names[:12]) + (f", … ({len(names)} in all)" if len(names) > 12 else "")
        raise InputError(
            f"{src.path} holds {len(names)} layers ({shown}): which one is the '{src.role}' layer?\n"
            f"name it: --layer {src.role}={src.path}:LAYER"
        )
    return LayerSource(src.role, src.path, names[0] if names else None, src.origin, src.text)


def describe_sources(sources: Mapping[str, Sequence[LayerSource]]) -> dict[str, str]:
    """Each role's sources in words (``site.gpkg:wells + wells_2024.shp``), as findings.json records them."""
    return {role: " + ".join(src.describe() for src in srcs) for role, srcs in sources.items()}


def read_description(package: Path | None, layers: dict[str, str], dem: str | None, dem_z: str | None,
                     context_catalog: Path | None) -> dict[str, object]:
    """What the file reader read, as findings.json's ``inputs`` records it: the package, each role's sources
    (:func:`describe_sources`), the DEM and its elevation unit's note, and the context catalog when one filled roles."""
    description: dict[str, object] = {"site": str(package) if package else None, "layers": layers, "dem": dem, "dem_z": dem_z}
    if context_catalog:
        description["context_catalog"] = str(context_catalog)
    return description
