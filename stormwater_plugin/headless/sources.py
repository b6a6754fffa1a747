"""Which files and layers give each role: the site package's layers by name, ``--layer ROLE=PATH[:LAYER]`` options,
zip archives and GDAL virtual paths (see :mod:`~stormwater_plugin.services.intake` for the policy)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import fiona

from ..core.model import Warning_
from ..core.roles import ROLE_NOUN, ROLES
from ..services.cad_files import as_gis_data_problem, cad_kind
from ..services.intake import (
    NOT_LAYERS,
    role_for_layer_name,
)
from .archive_budget import check_archive
from .errors import InputError


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

    @property
    def gdal(self) -> str:
        """The path GDAL opens (:func:`gdal_path`)."""
        return self.text or gdal_path(self.path)


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
    return LayerSource(role, Path(path), layer, origin="--layer", text=path if _is_virtual(path) else "")


#: File names inside a zip archive that hold vector data (looked for when the archive's root holds none).
ZIP_DATA_SUFFIXES: tuple[str, ...] = (".shp", ".gpkg", ".geojson", ".json", ".kml", ".gml", ".fgb", ".tab", ".sqlite")


#: Drivers GDAL has that fiona does not list as supported; read only.
EXTRA_READ_DRIVERS: tuple[str, ...] = ("KML", "LIBKML")


def _enable_read_drivers() -> None:
    """Let fiona open KML and KMZ (GDAL's KML and LIBKML drivers, read only)."""
    from fiona import drvsupport

    for name in EXTRA_READ_DRIVERS:
        drvsupport.supported_drivers.setdefault(name, "r")


def _is_virtual(path: Path | str) -> bool:
    return str(path).replace("\\", "/").startswith("/vsi")


def gdal_path(path: Path) -> str:
    """The path GDAL opens for ``path``: a ``.zip`` archive becomes ``/vsizip/`` (its data file or folder inside)."""
    text = str(path)
    if _is_virtual(text) or path.suffix.lower() != ".zip":
        return text
    import posixpath
    import zipfile

    base = "/vsizip/" + str(path.resolve()).replace("\\", "/")
    try:
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist() if not n.startswith("__MACOSX") and not n.endswith("/")]
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: cannot be read as a zip archive ({_short(exc)})") from exc
    data = [n for n in names if n.lower().endswith(ZIP_DATA_SUFFIXES)]
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


def _exists(path: Path) -> bool:
    return _is_virtual(path) or path.exists()


def refuse_cad_file(path: Path, role: str | None = None) -> None:
    """Refuse a CAD drawing (DWG, DXF) given as GIS data in one line saying to import it (:mod:`~stormwater_plugin.services.cad_files`)."""
    kind = cad_kind(path)
    if kind is not None:
        raise InputError(as_gis_data_problem(path, kind, role))


def _list_layers(path: Path, text: str = "") -> list[str]:
    _enable_read_drivers()
    try:
        return list(fiona.listlayers(text or gdal_path(path)))
    except InputError:
        raise
    except Exception as exc:  # fiona raises several driver-specific errors
        raise InputError(
            f"{path}: cannot be read as a vector data source ({_short(exc)}); check it is a GeoPackage or another OGR format"
        ) from exc


def _one_layer(src: LayerSource) -> LayerSource:
    """``src`` with its layer named: a source of one layer is that layer; a source of several is refused unless ``:LAYER`` names one."""
    if src.layer is not None:
        return src
    if not _exists(src.path):
        raise InputError(f"{src.path}: file not found (for the '{src.role}' layer)")
    names = _list_layers(src.path, src.text)
    if len(names) > 1:
        shown = ", ".join(names[:12]) + (f", … ({len(names)} in all)" if len(names) > 12 else "")
        raise InputError(
            f"{src.path} holds {len(names)} layers ({shown}): which one is the '{src.role}' layer?\n"
            f"name it: --layer {src.role}={src.path}:LAYER"
        )
    return LayerSource(src.role, src.path, names[0] if names else None, src.origin, src.text)


def collect_sources(package: Path | None, layer_options: list[str]) -> tuple[dict[str, list[LayerSource]], list[Warning_]]:
    """Every source of every role: the package's layers by name, then ``--layer`` options (see :mod:`~stormwater_plugin.services.intake`).

    Several ``--layer`` options for one role are all read and merged; a ``--layer`` role replaces the
    package's layer(s) of that role (said in a warning). A package layer whose name begins with a role's
    (``devices_proposed``) is read into that role, and a layer matching no role is listed, both in warnings.
    """
    sources: dict[str, list[LayerSource]] = {}
    notes: list[Warning_] = []
    if package is not None:
        if not _exists(package):
            raise InputError(f"{package}: site package not found")
        refuse_cad_file(package)
        check_archive(package)  # within a size and ratio budget before GDAL parses it
        names = _list_layers(package)
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
    given: dict[str, list[LayerSource]] = {}
    for opt in layer_options:
        src = parse_layer_option(opt)
        refuse_cad_file(src.path, src.role)
        check_archive(src.path, src.text)
        given.setdefault(src.role, []).append(src)
    if package is not None:
        # a template's empty layer is not drawn (absent), not "none", until the applicant states none
        from .template_reading import template_reading  # lazy: reads the package's statements only when there is a package

        undrawn, drawn_notes = template_reading(package, {r: [s.layer for s in ss] for r, ss in sources.items() if r not in given},
                                                refuse_empty=not given)
        for role in undrawn:
            sources.pop(role, None)
        notes.extend(drawn_notes)
    for role, srcs in given.items():
        replaced = sources.get(role, [])
        if replaced:
            notes.append(Warning_("layer_replaced", f"--layer {role} replaces the package's layer(s) {', '.join(repr(s.layer) for s in replaced)} "
                                  f"for the '{role}' role (give the package layer with --layer too to check both)", role))
        sources[role] = [_one_layer(s) for s in srcs]
    return sources, notes


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:160]
