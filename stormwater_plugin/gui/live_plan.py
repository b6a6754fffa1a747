"""The live re-check's plan: a new feature source only for the layers edited since the last plan.

Planning a read takes, on the main thread, a feature source of every role layer (``QgsVectorLayerFeatureSource``: a
copy of the layer's features and edit buffer that another thread may read), about half a millisecond a layer on
the demo. A layer not edited since the last live plan holds the same features, so its source of then is read again;
only the edited layers get a new one. The plan is otherwise the dock's (``dock_source``), and its record of what
was read (``layers_read``) is completed with the sources kept, in the roles' order, so the read is the same.

The read itself converts through a memo of the last complete live read (``gui.live_read``): a source kept is not
converted again when the working CRS and its window are the same, nor the DEM window when it has not moved. An edited
layer's new source is read from the source taken of it before: when the edit buffer, taken with each source, says only
geometries changed between the two (``qgis_bridge.edit_state``), the read takes the earlier features with those replaced.

The check the reviewer runs (Run) reads through a memo too (:meth:`LivePlanner.for_run`): once its findings are shown
(:meth:`LivePlanner.adopt_run`) its sources and conversions are the first live edit's to reuse, but those of a layer
edited since its plan was taken (the dock follows the role layers' edits from Run on).
"""

from __future__ import annotations

import math
from typing import Any

from qgis.core import Qgis, QgsGeometry, QgsRectangle, QgsVectorLayer, QgsWkbTypes

from ..qgis_bridge.edit_state import EditState, edit_state, geometry_changes
from ..qgis_bridge.layer_parts import geometry_part, role_layer_status
from ..qgis_bridge.snapshot import DetachedSource, PlannedSiteSource, SnapshotPlan
from ..services.live_read import Conversion, ReadMemo
from ..services.site_source import ReviewOptions
from .dock_source import dock_source
from .live_read import live_readers

#: A geometry of unknown type, which a layer's extent leaves out (QGIS 3.30 moved the enum to ``Qgis.GeometryType``).
_UNKNOWN = getattr(getattr(Qgis, "GeometryType", None), "Unknown", None) or getattr(QgsWkbTypes, "UnknownGeometry", None)


def _box(geom: QgsGeometry) -> tuple[float, float, float, float] | None:
    """A geometry's bounding box as QGIS's layer extent takes it in (``None``: null, empty, of unknown type, or not finite)."""
    if geom.isNull() or geom.isEmpty() or _UNKNOWN is None or geom.type() == _UNKNOWN:
        return None
    r = geom.boundingBox()
    if r.isNull():
        return None
    b = (r.xMinimum(), r.yMinimum(), r.xMaximum(), r.yMaximum())
    return b if all(math.isfinite(v) for v in b) else None


def carried_extent(before: Any, was: EditState | None, now: EditState | None) -> QgsRectangle | None:
    """The extent of a layer now, from ``before``, its extent when its edit buffer was ``was`` (a feature source taken of it
    then), or ``None`` when it must be asked of the layer.

    A layer whose buffer deletes or changes a geometry (``was``) has, for extent, the union of its features' bounding boxes
    (``QgsVectorLayer.extent`` reads every feature for it; that union's sides are the least and greatest coordinates of the
    boxes, a feature without geometry or with a null box left out). When only geometries changed since
    (``qgis_bridge.edit_state.geometry_changes``), each changed feature's box lay strictly inside ``before`` (so other
    features reach each of its sides) and its new box lies within ``before``, the union is ``before`` again, to the bit.
    Anything else (a feature moved from the file's geometry, to or from a side, out of the extent, cleared, emptied; a
    feature added or deleted, an attribute, a commit, a rollback; a buffer that changed no geometry before, whose layer
    gives the provider's extent) gives ``None``.
    """
    try:
        return _carried(before, was, now)
    except Exception:  # noqa: BLE001 - never in the edit's way: a rectangle or geometry this cannot read is asked of the layer
        return None


def _carried(before: Any, was: EditState | None, now: EditState | None) -> QgsRectangle | None:
    if before is None or before.isNull() or was is None or now is None or not (was.geometries or was.deleted):
        return None
    changed = geometry_changes(was, now)
    if changed is None:
        return None
    x0, y0, x1, y1 = before.xMinimum(), before.yMinimum(), before.xMaximum(), before.yMaximum()
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
        return None
    for fid, geom in changed.items():
        held = was.geometries.get(fid)
        old = None if held is None else _box(held[1])  # not held: the file's geometry, whose box is not known here
        new = _box(geom)
        if old is None or new is None:
            return None
        if not (x0 < old[0] and y0 < old[1] and old[2] < x1 and old[3] < y1):  # it may have been the one reaching a side
            return None
        if not (x0 <= new[0] and y0 <= new[1] and new[2] <= x1 and new[3] <= y1):
            return None
    return QgsRectangle(before)


class LivePlanner:
    """Plans each live read, keeping the feature sources of the layers not edited since (:meth:`edited` names those that were)."""

    def __init__(self) -> None:
        #: Role to (the layer, its feature source, what was read of it) as last planned.
        self._kept: dict[str, tuple[Any, DetachedSource, Any]] = {}
        self._edited: set[str] = set()
        #: The conversions of the last complete live read (:meth:`keep`) and the transformation context they were made in.
        self._conversions: dict[Any, Conversion] = {}
        self._context: Any = None
        #: The memo of the last plan's read (the task hands it to :meth:`keep` once its findings are shown).
        self.memo: ReadMemo | None = None
        #: Role to the feature source last planned and the layer's edit buffer as that source holds it (``qgis_bridge.edit_state``).
        self._states: dict[str, tuple[DetachedSource, EditState | None]] = {}
        #: The plan of the check the reviewer runs, its memo, the layers it read and the roles edited since (:meth:`for_run`).
        self._run: tuple[SnapshotPlan, ReadMemo, dict[str, Any], set[str]] | None = None

    def edited(self, role: str) -> None:
        """A layer of ``role`` changed: its next plan takes a new source."""
        self._edited.add(role)
        if self._run is not None:
            self._run[3].add(role)

    def forget(self, run: bool = False) -> None:
        """Take every source anew at the next plan (after a check the reviewer ran, or roles changed); ``run``: forget Run's plan too."""
        self._kept.clear()
        self._edited.clear()
        self._states = {}
        self._conversions = {}
        self.memo = None
        if run:
            self._run = None

    def for_run(self, plan: SnapshotPlan, chosen: dict[str, Any]) -> None:
        """The check the reviewer runs reads ``plan`` (the role layers ``chosen``) through a memo of its own (main thread)."""
        memo = ReadMemo()
        plan.readers = live_readers(memo)
        self._run = (plan, memo, dict(chosen), set())

    def adopt_run(self, plan: Any) -> bool:
        """The check the reviewer ran of ``plan`` is shown: its sources and conversions are the next live read's. Returns whether taken."""
        run, self._run = self._run, None
        if run is None or run[0] is not plan:
            return False
        plan, memo, chosen, edited = run
        self._conversions, self._context = dict(memo.made), plan.context
        self._kept = {r: kept for r, kept in self._kept_of(plan, chosen).items() if r not in edited}
        self._edited = set(edited)
        return True

    @staticmethod
    def _kept_of(plan: SnapshotPlan, chosen: dict[str, Any]) -> dict[str, tuple[Any, DetachedSource, Any]]:
        return {r: (chosen[r], src, plan.layers_read.get(r)) for r, src in plan.sources.items()
                if isinstance(src, DetachedSource) and isinstance(chosen.get(r), QgsVectorLayer)}

    def keep(self, memo: ReadMemo | None) -> None:
        """The read of ``memo`` completed and its findings are shown: the next read may reuse its conversions."""
        if memo is not None:
            self._conversions = memo.made

    @staticmethod
    def _carry(role: str, layer: Any, before: DetachedSource, was: EditState | None, now: EditState | None, layers: dict[str, Any],
               reused: dict[str, Any]) -> None:
        """The source of an edited ``layer`` taken here with its extent carried from ``before`` (:func:`carried_extent`), as the plan
        would take it of the whole layer, and its status as the plan would say it; left to the plan when not carried."""
        try:
            if geometry_part(layer) is not None or (extent := carried_extent(before.sourceExtent(), was, now)) is None:
                return
            source, status = DetachedSource(layer, extent), role_layer_status(layer)
        except Exception:  # noqa: BLE001 - a layer being deleted: the plan takes it and says why it cannot be read
            return
        layers[role], reused[role] = source, status

    def plan(self, dock: Any) -> tuple[PlannedSiteSource, ReviewOptions] | None:
        """:func:`~.dock_source.dock_source` (quiet), reading again the sources of the layers not edited since the last plan."""
        chosen = dock.roles.role_layers()
        layers: dict[str, Any] = {}
        reused: dict[str, Any] = {}
        taken: dict[str, EditState | None] = {}  # an edited layer's buffer now: the new source is taken with it, nothing between
        for role, layer in chosen.items():
            kept = self._kept.get(role)
            whole = kept is not None and kept[0] is layer and kept[2] is not None and kept[2].part is None
            if kept is not None and whole and role not in self._edited:
                layers[role] = kept[1]
                reused[role] = kept[2]
                continue
            layers[role] = layer
            if isinstance(layer, QgsVectorLayer):
                taken[role] = now = edit_state(layer)
                held = self._states.get(role)
                if kept is not None and whole and held is not None and held[0] is kept[1]:
                    self._carry(role, layer, kept[1], held[1], now, layers, reused)
        planned = dock_source(dock, quiet=True, layers=layers)
        self._edited.clear()
        if planned is None:
            self._kept.clear()
            return None
        plan = planned[0].snapshot_plan
        read = dict(plan.layers_read)
        read.update({r: st for r, st in reused.items() if r in plan.sources})
        plan.layers_read = {r: read[r] for r in chosen if r in read}
        if plan.context != self._context:  # the project's datum transformations changed: nothing converted is reused
            self._conversions, self._context = {}, plan.context
        edited_from: dict[Any, tuple[Any, EditState | None, EditState | None]] = {}
        states: dict[str, tuple[DetachedSource, EditState | None]] = {}
        for role, now in plan.sources.items():  # the edit buffer as each source holds it, taken with it (the main thread's turn)
            if not isinstance(now, DetachedSource) or not isinstance(layer := chosen.get(role), QgsVectorLayer):
                continue
            held = self._states.get(role)
            if held is not None and held[0] is now:
                states[role] = held  # a source kept: its state of then
                continue
            states[role] = (now, taken[role] if role in taken else edit_state(layer))
            kept = self._kept.get(role)
            if kept is not None and kept[0] is layer and held is not None and held[0] is kept[1]:
                edited_from[now] = (kept[1], held[1], states[role][1])  # read from the source before where only geometries changed
        self._states = states
        self.memo = ReadMemo(self._conversions)
        plan.readers = live_readers(self.memo, edited_from)
        self._kept = self._kept_of(plan, chosen)
        return planned


__all__ = ["LivePlanner"]
