"""Which files and layers give each role: fiona lists the site package's and the ``--layer`` files' layers, zip
archives are listed, and :mod:`~stormwater_plugin.services.layer_sources` decides (see
:mod:`~stormwater_plugin.services.intake` for the policy)."""

from __future__ import annotations

from pathlib import Path

import fiona

from ..core.model import Warning_
from ..services.cad_files import as_gis_data_problem, cad_kind
from ..services.input_errors import short_reason as _short
from ..services.layer_sources import LayerSource, is_virtual, one_layer, package_sources, parse_layer_option, replaced_by_option, zip_member
from .archive_budget import check_archive
from .errors import InputError

#: Drivers GDAL has that fiona does not list as supported; read only.
EXTRA_READ_DRIVERS: tuple[str, ...] = ("KML", "LIBKML")


def _enable_read_drivers() -> None:
    """Let fiona open KML and KMZ (GDAL's KML and LIBKML drivers, read only)."""
    from fiona import drvsupport

    for name in EXTRA_READ_DRIVERS:
        drvsupport.supported_drivers.setdefault(name, "r")


def gdal_path(path: Path) -> str:
    """The path GDAL opens for ``path``: a ``.zip`` archive becomes ``/vsizip/`` (its data file or folder inside,
    :func:`~stormwater_plugin.services.layer_sources.zip_member`)."""
    text = str(path)
    if is_virtual(text) or path.suffix.lower() != ".zip":
        return text
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: cannot be read as a zip archive ({_short(exc)})") from exc
    return zip_member(path, names)


def _exists(path: Path) -> bool:
    return is_virtual(path) or path.exists()


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
    """``src`` with its layer named (:func:`~stormwater_plugin.services.layer_sources.one_layer`)."""
    if src.layer is not None:
        return src
    if not _exists(src.path):
        raise InputError(f"{src.path}: file not found (for the '{src.role}' layer)")
    return one_layer(src, _list_layers(src.path, src.text))


def collect_sources(package: Path | None, layer_options: list[str]) -> tuple[dict[str, list[LayerSource]], list[Warning_]]:
    """Every source of every role: the package's layers by name, then ``--layer`` options (see :mod:`~stormwater_plugin.services.layer_sources`).

    Several ``--layer`` options for one role are all read and merged; a ``--layer`` role replaces the
    package's layer(s) of that role (said in a warning).
    """
    sources: dict[str, list[LayerSource]] = {}
    notes: list[Warning_] = []
    if package is not None:
        if not _exists(package):
            raise InputError(f"{package}: site package not found")
        refuse_cad_file(package)
        check_archive(package)  # within a size and ratio budget before GDAL parses it
        sources, notes = package_sources(package, _list_layers(package))
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
            notes.append(replaced_by_option(role, replaced))
        sources[role] = [_one_layer(s) for s in srcs]
    return sources, notes
