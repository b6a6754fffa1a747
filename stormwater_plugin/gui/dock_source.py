"""The dock's site and options for the one review use case (``services.site_source.check_site``), as the command line states them.

Planned on the main thread in milliseconds; the check task (and the live re-check) read and check it in the background.
"""

from __future__ import annotations

from typing import Any, Mapping

from qgis.core import Qgis, QgsProject
from qgis.PyQt.QtCore import QCoreApplication

from ..core.model import Warning_
from ..qgis_bridge.snapshot import PlannedSiteSource, QgisSiteSource
from ..services.accuracy import parse_accuracy, parse_dem_vertical
from ..services.packs import load_pack
from ..services.site_source import ReviewOptions


def tr(text: str) -> str:
    return QCoreApplication.translate("ReviewDock", text)


def contour_count() -> int:
    """Features of the project's ``contours`` layers (existing grade, e.g. from a CAD import), as the command line counts its package's."""
    from ..services.completeness import CONTOURS_LAYER  # lazy: only the layer name

    n = 0
    for layer in QgsProject.instance().mapLayersByName(CONTOURS_LAYER):
        try:
            n += max(int(layer.featureCount()), 0)
        except (AttributeError, RuntimeError):  # a raster of that name, or a layer being deleted
            continue
    return n


def dock_source(dock: Any, quiet: bool = False, layers: Mapping[str, Any] | None = None) -> tuple[PlannedSiteSource, ReviewOptions] | None:
    """The site as the check task reads it (planned here, main thread, milliseconds) and the use case's options from the dock.

    The options are the command line's: the stated accuracy (its words, parsed by the use case), the
    class, no moves in the task (the dock suggests them after), the completeness list; the check
    keeps what the live re-check's incremental run starts from (``review.basis``, ``services.incremental``).
    ``None`` with a message (none when ``quiet``) when the layers or the accuracy cannot be used. ``layers``: the
    role layers to read (default the dock's roles; the live re-check gives the feature sources it took earlier of
    the layers not edited since).
    """
    accuracy = dock.accuracy.text().strip()
    options = ReviewOptions(accuracy=(accuracy,) if accuracy else (), dem_vertical_accuracy_ft=dock.dem_accuracy.text().strip() or None,
                            project_class=dock.project_class.currentData(), moves=False, completeness=True, incremental=True)
    try:  # a bad entry is said before any reading, as the command line refuses its arguments
        parse_accuracy(list(options.accuracy))
        parse_dem_vertical(options.dem_vertical_accuracy_ft)
    except ValueError as exc:
        if not quiet:
            dock.message(tr("Data accuracy: {0}").format(exc), Qgis.MessageLevel.Warning)
        return None
    planned = dock_site(dock, quiet, layers)
    return None if planned is None else (planned, options)


def envelope_options(dock: Any) -> ReviewOptions:
    """The use case's options for the dock's siting envelope: the class, as for the check (the envelope reads no accuracy)."""
    return ReviewOptions(project_class=dock.project_class.currentData(), moves=False)


def dock_site(dock: Any, quiet: bool = False, layers: Mapping[str, Any] | None = None) -> PlannedSiteSource | None:
    """The dock's layers as a :class:`QgisSiteSource` planned for the chosen pack (main thread, milliseconds).

    ``None`` with a message (none when ``quiet``) when the layers cannot be read or none is chosen. ``layers``: the
    role layers to read (default the dock's roles).
    """
    notes = tuple(Warning_(
        "role_layer_removed",
        f"the layer chosen for this role ({name}) was removed from the project; the role was left empty and its rules are not checked",
        role,
    ) for role, name in dock.roles.removed.items())
    site = QgisSiteSource(dock.roles.role_layers() if layers is None else layers, dock.roles.dem_layer(), dock.roles.z_unit(),
                          dock.site_parcel.text().strip() or None, contour_count=contour_count(), notes=notes)
    try:
        planned = site.plan(load_pack(dock.jurisdiction.currentData()))
    except Exception as exc:
        if not quiet:
            dock.message(tr("Could not read the layers: {0}").format(exc), Qgis.MessageLevel.Critical, 0)
        return None
    if not planned.snapshot_plan.sources:
        if not quiet:
            dock.message(tr("Choose at least one layer (devices, parcels…) before running the check."), Qgis.MessageLevel.Warning)
        return None
    return planned
