"""Siting aid in the dock: the envelope and the suggested moves, computed in a ``QgsTask``, drawn as layers.

``SitingTask`` runs the envelope use case
(:func:`~stormwater_plugin.services.site_source.site_envelope`, as the command
line and Processing do: the site read, the options stated, the envelope) and/or
:func:`~stormwater_plugin.services.review.suggest` in the background (no QGIS
layer touched). The functions below turn the outcome into styled memory layers
in the review group, on the main thread.
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from qgis.core import (
    QgsArrowSymbolLayer,
    QgsFillSymbol,
    QgsLayerTreeGroup,
    QgsLineSymbol,
    QgsMapLayer,
    QgsPalLayerSettings,
    QgsProject,
    QgsSingleSymbolRenderer,
    QgsTask,
    QgsVectorLayer,
    QgsVectorLayerSimpleLabeling,
)
from qgis.PyQt.QtGui import QColor

from ..core.errors import StormwaterError
from ..qgis_bridge.compat import FIELD_DOUBLE, FIELD_STRING
from ..qgis_bridge.results import field_specs
from ..qgis_bridge.snapshot import PlannedSiteSource, Snapshot, SnapshotPlan
from ..services import presentation
from ..services.layer_rows import Row
from ..services.layer_rows import envelope_layers as envelope_rows_with_labels
from ..services.packs import RulePack, load_pack
from ..services.presentation import compass, device_label, move_arrow_label, move_text  # noqa: F401 - re-exported for the dock
from ..services.review import CheckCancelled, Move, suggest
from ..services.site_source import ReviewOptions, SiteRead, SiteSource, read_stated, site_envelope
from .check_task import _TaskFeedback, task_source
from .gc_pause import in_frozen_heap
from .result_layers import add_rows, group_name, memory_layer
from .styles import apply_style, text_format

_LABEL = (("label", FIELD_STRING),)
#: The envelope layers' schemas (services.presentation, as Processing and envelope.gpkg write them), plus a label for the map.
ENVELOPE_FIELDS = field_specs(presentation.ENVELOPE_SCHEMA) + _LABEL
EXCLUDED_FIELDS = field_specs(presentation.EXCLUDED_SCHEMA) + _LABEL
DESIGN_FIELDS = field_specs(presentation.DESIGN_SCHEMA) + _LABEL
MOVE_FIELDS = (
    ("device_id", FIELD_STRING),
    ("device_type", FIELD_STRING),
    ("distance_ft", FIELD_DOUBLE),
    ("bearing_deg", FIELD_DOUBLE),
    ("rules", FIELD_STRING),
    ("message", FIELD_STRING),
    ("label", FIELD_STRING),
)

#: Layer names (the envelope's carries the device type).
EXCLUDED_NAME = "Excluded zones"
MOVES_NAME = "Suggested moves"
#: Style name of each siting layer (QML in ``resources/styles``).
SITING_STYLES = {"envelope": "siting_envelope", "excluded": "siting_excluded", "professional": "siting_professional", "moves": "siting_moves"}
_GEOMETRY = {"siting_envelope": "Polygon", "siting_excluded": "Polygon", "siting_professional": "Polygon", "siting_moves": "LineString"}


def envelope_name(device_type: str) -> str:
    return f"Siting envelope — {device_label(device_type)}"


def professional_name(threshold_pct: float | None) -> str:
    t = "" if threshold_pct is None else f" (slope > {threshold_pct:g}%)"
    return f"Needs a licensed professional's design{t}"


# --------------------------------------------------------------------------- the task


class NoParcelRead(StormwaterError):
    """The siting envelope is drawn on the site parcel, and no parcel was read."""


@dataclass
class _ReadInTask:
    """``source`` read in the task: stopped when Cancel was pressed meanwhile, refused without parcels when an envelope is asked."""

    source: SiteSource
    task: QgsTask
    parcels: bool

    def read(self, pack: Any) -> SiteRead:
        site = self.source.read(pack)
        if self.task.isCanceled():
            raise CheckCancelled()
        if self.parcels and "parcels" not in site.inputs.layers:
            raise NoParcelRead("the siting envelope is drawn on the site parcel: no parcel was read")
        return site


class SitingTask(QgsTask):
    """Build the siting envelope and/or the moves of a check result in the background.

    Parameters
    ----------
    source : SiteSource, SnapshotPlan or Snapshot
        The site: a :class:`~stormwater_plugin.qgis_bridge.snapshot.PlannedSiteSource`
        (:meth:`~stormwater_plugin.qgis_bridge.snapshot.QgisSiteSource.plan`, taken on the
        main thread in milliseconds with the pack; the layers and the DEM window the
        pack's rules and the envelope need are then read here, off the main thread), a
        bare plan, or plain inputs already read. ``snapshot`` is the :class:`Snapshot`
        once run.
    jurisdiction : str
        The rule pack.
    on_done : callable
        Called on the main thread with the task from :meth:`finished`.
    device_type, high_traffic : str, bool
        The envelope's device; ``device_type=None`` builds no envelope.
    result : CheckResult, optional
        When given (and it has setback violations), the moves are suggested too.
    options : ReviewOptions, optional
        The use case's options (the project class); by default none stated.
    pack : RulePack, optional
        The pack to apply when the caller holds it (the check's, for its moves); else the plan's, else ``jurisdiction``'s.
    """

    def __init__(
        self,
        source: SiteSource | SnapshotPlan | Snapshot,
        jurisdiction: str,
        on_done: Callable[[SitingTask], None],
        *,
        device_type: str | None = None,
        high_traffic: bool = False,
        result: Any = None,
        options: ReviewOptions | None = None,
        pack: RulePack | None = None,
    ) -> None:
        what = "siting envelope" if device_type else "suggested moves"
        super().__init__(f"Stormwater review: {what} ({jurisdiction})", QgsTask.Flag.CanCancel)
        self.source, self.snapshot = task_source(source)
        self.options = options if options is not None else ReviewOptions(moves=False)
        self.jurisdiction = jurisdiction
        self.device_type = device_type
        self.high_traffic = bool(high_traffic)
        self.check_result = result
        planned = getattr(source, "snapshot_plan", None)
        #: The rule pack the task applied (the plan's when it holds one), for the dock's message once it has run.
        self.pack: RulePack | None = pack if pack is not None else planned.pack if planned is not None else None
        self.envelope: Any = None
        self.moves: tuple[Move, ...] | None = None
        self.error: str | None = None
        self.details = ""
        self._on_done = on_done

    @in_frozen_heap  # the collections in this thread do not walk the project's long-lived objects
    def run(self) -> bool:  # noqa: D401 - QgsTask API
        """Read the site and compute through the use case; never raises."""
        try:
            import numpy as np

            pack = self.pack if self.pack is not None else load_pack(self.jurisdiction)
            self.pack = pack
            source = self.source
            if isinstance(source, PlannedSiteSource):  # the task's Cancel and progress for the read, held by this call only
                source = replace(source, feedback=_TaskFeedback(self), progress=lambda f: self.setProgress(1 + 8 * f))
            reading = _ReadInTask(source, self, bool(self.device_type))
            try:
                with np.errstate(invalid="ignore"):
                    if self.device_type:
                        site, self.envelope = site_envelope(reading, pack, self.options, device_type=self.device_type, high_traffic=self.high_traffic)
                    else:
                        site = read_stated(reading, pack, self.options)
            except CheckCancelled:
                return False
            except NoParcelRead as exc:
                self.error = str(exc)
                return False
            snap = site.source
            if self.isCanceled() or not isinstance(snap, Snapshot):
                return False
            self.snapshot = snap
            self.setProgress(60)
            r = self.check_result
            if r is not None:
                with np.errstate(invalid="ignore"):
                    self.moves = suggest(snap.inputs, pack, r)
            self.setProgress(100)
            return not self.isCanceled()
        except Exception as exc:  # shown in the message bar by the dock
            self.error = f"{type(exc).__name__}: {exc}"
            self.details = traceback.format_exc()
            return False

    def finished(self, ok: bool) -> None:  # noqa: D401 - QgsTask API
        try:
            self._on_done(self)
        except Exception:  # never let a slot exception reach the task manager
            traceback.print_exc()


# --------------------------------------------------------------------------- layers


def envelope_layers(env: Any, crs: Any) -> list[tuple[QgsVectorLayer, str]]:
    """The three envelope layers (envelope, excluded zones, professional design) with their style names.

    Rows and labels are :func:`~stormwater_plugin.services.layer_rows.envelope_layers`' (what Processing writes, plus the label).
    """

    built = envelope_rows_with_labels(env, bool(env.high_traffic))

    def labelled(rows: list[Row], labels: list[str]) -> list[tuple[Any, list[Any]]]:
        return [(g, [*attrs, label]) for (g, attrs), label in zip(rows, labels)]

    envelope = memory_layer("polygon", envelope_name(env.device_type), crs, ENVELOPE_FIELDS)
    add_rows(envelope, labelled(built.envelope, built.envelope_labels), skip_empty=True)
    excluded = memory_layer("polygon", EXCLUDED_NAME, crs, EXCLUDED_FIELDS)
    add_rows(excluded, labelled(built.excluded, built.excluded_labels), skip_empty=True)
    design = memory_layer("polygon", professional_name(built.design_threshold_pct), crs, DESIGN_FIELDS)
    add_rows(design, labelled(built.design, built.design_labels), skip_empty=True)
    return [(design, SITING_STYLES["professional"]), (excluded, SITING_STYLES["excluded"]), (envelope, SITING_STYLES["envelope"])]


def _move_rows(moves: Sequence[Move]) -> list[tuple[Any, list[Any]]]:
    """The moves layer's rows: a line per possible move, from the device to its suggested position."""
    from shapely.geometry import LineString

    return [
        (LineString([m.start, m.end]), [m.device_id, m.device_type, m.distance_ft, float(m.bearing_deg or 0.0), ", ".join(m.rules), m.message,
                                        move_arrow_label(m)])
        for m in moves if m.drawable and m.start is not None and m.end is not None
    ]


def moves_layer(moves: Sequence[Move], crs: Any) -> QgsVectorLayer | None:
    """A line per possible move, from the device to its suggested position (``None`` when there is none)."""
    rows = _move_rows(moves)
    if not rows:
        return None
    layer = memory_layer("line", MOVES_NAME, crs, MOVE_FIELDS)
    add_rows(layer, rows, skip_empty=True)
    return layer


def show_moves(moves: Sequence[Move], crs: Any, jurisdiction: str, project: QgsProject | None = None) -> QgsVectorLayer | None:
    """The suggested moves on the map, in the review group: the moves layer shown takes the new arrows in place (its style,
    visibility and place in the layer tree kept, its entry's "updating" mark taken off), or a layer is added; with no move
    to draw, the layer shown goes (its arrows were drawn for where the devices stood before). Returns the layer shown.

    The moves follow every live edit that leaves a violation: replacing the layer (removed, made, styled, added) held the
    main thread ~5 ms each time on the demo.
    """
    project = project or QgsProject.instance()
    rows = _move_rows(moves)
    group = review_group(jurisdiction, project)
    if not rows:
        remove_siting_layers(group, moves=True, project=project)
        return None
    shown = [n for n in group.findLayers() if n.layer() is not None and n.layer().name() == MOVES_NAME]
    if len(shown) == 1:
        node, layer = shown[0], shown[0].layer()
        if (layer.providerType() == "memory" and not layer.isEditable() and layer.crs() == crs
                and layer.fields().names() == [name for name, *_ in MOVE_FIELDS] and layer.dataProvider().truncate()):
            add_rows(layer, rows, skip_empty=True)
            layer.triggerRepaint()
            if not node.useLayerName():
                node.setUseLayerName(True)
            return layer
    layer = memory_layer("line", MOVES_NAME, crs, MOVE_FIELDS)
    add_rows(layer, rows, skip_empty=True)
    add_siting_layers([(layer, "siting_moves")], jurisdiction, moves=True, project=project)
    return layer


def review_group(jurisdiction: str, project: QgsProject | None = None) -> QgsLayerTreeGroup:
    """The review group of ``jurisdiction`` (created at the top when the check has not drawn it yet)."""

    project = project or QgsProject.instance()
    root = project.layerTreeRoot()
    group = root.findGroup(group_name(jurisdiction))
    if group is None:
        group = root.insertGroup(0, group_name(jurisdiction))
    return group


def is_siting_layer(layer: Any) -> bool:
    """Whether ``layer`` is a siting envelope layer or the suggested moves (kept across re-runs of the check)."""
    name = layer.name()
    return name == MOVES_NAME or name.startswith("Siting envelope — ") or name == EXCLUDED_NAME or name.startswith("Needs a licensed professional")


def remove_siting_layers(group: QgsLayerTreeGroup, moves: bool = False, project: QgsProject | None = None) -> None:
    """Remove the envelope layers (or the moves layer) of an earlier run from ``group``."""
    project = project or QgsProject.instance()
    for node in group.findLayers():
        lyr = node.layer()
        if lyr is None:
            continue
        hit = lyr.name() == MOVES_NAME if moves else (is_siting_layer(lyr) and lyr.name() != MOVES_NAME)
        if hit:
            project.removeMapLayer(lyr.id())


def add_siting_layers(layers: list[tuple[QgsVectorLayer, str]], jurisdiction: str, *, moves: bool = False, project: QgsProject | None = None) -> QgsLayerTreeGroup:
    """Style the layers and put them at the top of the review group, replacing an earlier envelope (or moves layer)."""
    project = project or QgsProject.instance()
    group = review_group(jurisdiction, project)
    remove_siting_layers(group, moves=moves, project=project)
    at = 0
    if not moves:  # the arrows stay above the envelope's areas
        names = [n.layer().name() if n.layer() else "" for n in group.children() if hasattr(n, "layer")]
        at = 1 if names[:1] == [MOVES_NAME] else 0
    for layer, style in reversed(layers):  # inserted at one place: the first of the list ends on top
        apply_siting_style(layer, style)
        project.addMapLayer(layer, False)
        group.insertLayer(at, layer)
    return group


# --------------------------------------------------------------------------- styles


def _labeling(colour: str, placement: Any, size: float = 7.5, bold: bool = False, priority: int = 6) -> QgsVectorLayerSimpleLabeling:
    pal = QgsPalLayerSettings()
    pal.fieldName = "label"
    pal.placement = placement
    pal.priority = priority
    pal.setFormat(text_format(colour, size, bold))
    pal.enabled = True
    return QgsVectorLayerSimpleLabeling(pal)


def build_siting_style(layer: QgsVectorLayer, name: str) -> None:
    """The style ``name`` in code: the fallback when the QML is missing, and the source of the QML files."""
    if name == "siting_envelope":
        sym = QgsFillSymbol.createSimple({"color": "26,150,65,55", "outline_color": "26,150,65,255", "outline_width": "0.9"})
        layer.setRenderer(QgsSingleSymbolRenderer(sym))
        layer.setLabeling(_labeling("#0b5d1e", QgsPalLayerSettings.Placement.OverPoint, 8.0, bold=True))
    elif name == "siting_excluded":
        sym = QgsFillSymbol.createSimple({"color": "215,25,28,150", "style": "f_diagonal", "outline_color": "215,25,28,200", "outline_width": "0.4", "outline_style": "dash"})
        layer.setRenderer(QgsSingleSymbolRenderer(sym))
        layer.setLabeling(_labeling("#a50f15", QgsPalLayerSettings.Placement.Horizontal if hasattr(QgsPalLayerSettings.Placement, "Horizontal") else QgsPalLayerSettings.Placement.OverPoint, 7.0))
    elif name == "siting_professional":
        sym = QgsFillSymbol.createSimple({"color": "140,81,10,55", "outline_color": "140,81,10,230", "outline_width": "0.5", "outline_style": "dot"})
        layer.setRenderer(QgsSingleSymbolRenderer(sym))
        layer.setLabeling(_labeling("#8c510a", QgsPalLayerSettings.Placement.OverPoint, 7.0))
    elif name == "siting_moves":
        arrow = QgsArrowSymbolLayer()
        arrow.setIsCurved(False)
        arrow.setIsRepeated(False)
        arrow.setArrowWidth(0.9)
        arrow.setArrowStartWidth(0.9)
        arrow.setHeadLength(3.0)
        arrow.setHeadThickness(2.0)
        arrow.subSymbol().setColor(QColor("#2166ac"))
        sym = QgsLineSymbol()
        sym.changeSymbolLayer(0, arrow)
        layer.setRenderer(QgsSingleSymbolRenderer(sym))
        labeling = _labeling("#2166ac", QgsPalLayerSettings.Placement.Line, 8.0, bold=True, priority=10)
        pal = labeling.settings()
        try:  # above the arrow, and allowed to run past a short one (a 6 ft move is a few pixels long)
            from qgis.core import QgsLabeling

            pal.lineSettings().setPlacementFlags(QgsLabeling.LinePlacementFlag.AboveLine | QgsLabeling.LinePlacementFlag.MapOrientation)
            pal.lineSettings().setOverrunDistance(60.0)
            pal.dist = 1.5
        except (AttributeError, TypeError):  # pragma: no cover - API moved
            pass
        labeling.setSettings(pal)
        layer.setLabeling(labeling)
    layer.setLabelsEnabled(True)


def apply_siting_style(layer: QgsVectorLayer, name: str) -> None:
    """Load the shipped QML ``name``; build it in code when the file is missing or fails."""
    apply_style(layer, name, build_siting_style)


def write_siting_qml(folder: Any) -> list[Any]:
    """Write the siting styles as QML files into ``folder`` (run inside a QGIS Python)."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, geom in _GEOMETRY.items():
        layer = QgsVectorLayer(f"{geom}?field=label:string", name, "memory")
        build_siting_style(layer, name)
        path = folder / f"{name}.qml"
        layer.saveNamedStyle(str(path), categories=QgsMapLayer.StyleCategory.Symbology | QgsMapLayer.StyleCategory.Labeling | QgsMapLayer.StyleCategory.Rendering)
        out.append(path)
    return out


def line_angle(move: Move) -> float:
    """Bearing of a move, from its coordinates (for tests and tooltips)."""
    if move.start is None or move.end is None:
        raise ValueError(f"move of {move.device_id}: no position")
    (x0, y0), (x1, y1) = move.start, move.end
    return math.degrees(math.atan2(x1 - x0, y1 - y0)) % 360.0


if __name__ == "__main__":  # pragma: no cover - maintenance: python -m stormwater_plugin.gui.envelope_task resources/styles
    import sys

    from qgis.core import QgsApplication

    app = QgsApplication([], False)
    app.initQgis()
    for p in write_siting_qml(sys.argv[1] if len(sys.argv) > 1 else "resources/styles"):
        print(p)
