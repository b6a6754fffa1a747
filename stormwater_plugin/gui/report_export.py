"""Export the review package from the dock.

Writes, into one folder, what ``stormwater-check --out`` writes beside its
GeoPackage: ``findings.json`` (with the reviewer's decisions and the moves),
``report.html``, ``report.pdf``, ``notification.csv``, ``labels.pdf`` (the
QGIS-free :mod:`stormwater_plugin.report`), plus a QGIS print layout of the
site exported as ``layout.pdf``: in the dock, :class:`ExportTask` writes the
package off the main thread, then :class:`LayoutExport` makes the layout in
short main-thread steps while QGIS's map renderer task draws its map.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from qgis.core import QgsProject, QgsRectangle, QgsTask
from qgis.PyQt.QtCore import QObject, pyqtSignal

from ..core.model import CheckResult
from ..qgis_bridge.snapshot import Snapshot
from ..services.findings_doc import findings_json
from ..services.review import Review
from . import print_layout
from .gc_pause import frozen_heap

#: Every file the dock writes (``layout.pdf`` only when the layout is made).
EXPORT_FILES: tuple[str, ...] = ("findings.json", "report.html", "report.pdf", "notification.csv", "labels.pdf", "layout.pdf")


def site_extent(result: CheckResult, snap: Snapshot) -> QgsRectangle:
    """The site parcel's bounds in the working CRS (else the findings', else every layer's)."""
    import numpy as np
    import shapely

    geoms: list[Any] = []
    parcels = snap.inputs.layers.get("parcels")
    wanted = set(result.site_parcel_ids)
    if parcels is not None and wanted:
        geoms = [g for i, g in zip(parcels.ids, parcels.geoms) if i in wanted and g is not None]
    if not geoms:
        geoms = [f.geometry for f in result.findings if f.geometry is not None and not f.geometry.is_empty]
    if not geoms:
        geoms = [g for lyr in snap.inputs.layers.values() for g in lyr.geoms if g is not None and not g.is_empty]
    if not geoms:
        return QgsRectangle()
    b = shapely.total_bounds(np.array(geoms, dtype=object))
    return QgsRectangle(float(b[0]), float(b[1]), float(b[2]), float(b[3]))


def export_report(
    review: Review,
    snap: Snapshot,
    out_dir: Path,
    *,
    reviewer: str = "",
    reference: str = "",
    layout: bool = True,
    project: QgsProject | None = None,
) -> dict[str, Any]:
    """Write the review package of ``review`` (:func:`stormwater_plugin.services.review.review_of`) into ``out_dir`` (created).

    Returns
    -------
    dict
        ``files`` (paths written), ``doc`` (findings.json), ``labels`` (from
        the label writer), ``layout`` (the ``QgsPrintLayout`` or ``None``),
        ``layout_error`` (why there is no ``layout.pdf``, or ``None``).

    Raises
    ------
    stormwater_plugin.report.package.ReportError
        When a library or the font the report needs is missing (findings.json is written first).
    """
    from ..report import package  # lazy: loads reportlab, jinja2 and matplotlib, only when a report is written

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = findings_json(review.document)  # findings.json, made here at the edge (the report reads the typed document)
    files: list[Path] = [write_findings(doc, out_dir)]
    info = package.write_report_package(review.result, snap.inputs.layers, snap.inputs.unit_to_ft, out_dir, doc=review.document, reviewer=reviewer,
                                        reference=reference, pack=review.pack)
    files.extend(Path(p) for p in info["files"])
    out: dict[str, Any] = {"files": files, "doc": doc, "labels": info.get("labels"), "layout": None, "layout_error": None}
    if layout:

        project = project or QgsProject.instance()
        result = review.result
        try:
            title = f"Stormwater review — site parcel {result.site_parcel_id or '?'}"
            lay = print_layout.build_layout(project, title, site_extent(result, snap), snap.crs, print_layout.summary_text(review.document, reviewer, reference),
                                            print_layout.layout_name(result.site_parcel_id))
            out["layout"] = lay
            files.append(print_layout.export_pdf(lay, out_dir / "layout.pdf"))
        except Exception as exc:  # the report package is written; the layout is a convenience
            out["layout_error"] = f"{type(exc).__name__}: {exc}"
    return out


def write_findings(doc: dict[str, Any], out_dir: Path) -> Path:
    """Write the review's findings.json document into ``out_dir``."""
    path = out_dir / "findings.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return path


def move_into(staging: Path, out_dir: Path) -> list[Path]:
    """Move every file of ``staging`` into ``out_dir`` (created) and remove ``staging``; returns the new paths.

    The package is written whole into a staging folder first, so a failure
    leaves nothing half-written in ``out_dir``. The files are renamed into place
    together, over files the folder's manifest says the tool wrote only
   : a same-named file the tool did not write (the applicant's
    report.pdf) raises :class:`~stormwater_plugin.services.output_manifest.ForeignFilesError`
    naming it, and nothing is moved.
    """
    import shutil

    from ..services.output_manifest import Part, publish  # lazy: needed only when a package is moved into place

    out_dir.mkdir(parents=True, exist_ok=True)
    names = sorted(p.name for p in staging.iterdir() if p.is_file())
    try:
        publish([Part(out_dir, "report", files=[(n, str(staging / n)) for n in names], known=EXPORT_FILES)])
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out_dir / n for n in names]


class ExportTask(QgsTask):
    """Writes the QGIS-free part of the review package (findings.json and the report files) off the main thread.

    The staging folder is created beside the target so the final move is a
    rename on the same disk. ``on_done(task)`` runs on the main thread; it adds
    the print layout (which needs the project's layers) and moves the files.
    """

    def __init__(self, review: Review, snap: Snapshot, out_dir: Path, on_done: Any, *, layout: bool = True, reviewer: str = "",
                 reference: str = "") -> None:
        super().__init__("Stormwater review: writing the report", QgsTask.Flag.CanCancel)
        self.review = review
        self.result = review.result
        self.snap = snap
        self.out_dir = Path(out_dir)
        self.layout = layout
        self.reviewer = reviewer
        self.reference = reference
        self.on_done = on_done
        self.staging: Path | None = None
        self.doc: dict[str, Any] | None = None
        self.info: dict[str, Any] | None = None
        #: What the dock made of it (files, labels, layout), set on the main thread when the package is in place.
        self.outcome: dict[str, Any] | None = None
        self.error: str | None = None
        self.details = ""
        #: The session's ticket when the export started (the layout is made only in that project) and whether the caller waits.
        self.ticket: Any = None
        self.wait = False

    def run(self) -> bool:  # noqa: D401 - QgsTask API
        from ..report import package  # lazy: loads reportlab, jinja2 and matplotlib, only when a report is written

        with frozen_heap():  # the snapshot's geometries are not walked by every collection in this thread
            return self._write(package)

    def _write(self, package: Any) -> bool:
        """The body of :meth:`run`: findings.json, then the report package, into a new staging folder."""
        import tempfile
        import traceback

        try:
            self.out_dir.parent.mkdir(parents=True, exist_ok=True)
            self.staging = Path(tempfile.mkdtemp(prefix=".stormwater-report-", dir=str(self.out_dir.parent)))
            self.setProgress(5)
            doc = findings_json(self.review.document)  # findings.json, made here at the edge (the report reads the typed document)
            write_findings(doc, self.staging)
            self.setProgress(20)
            if self.isCanceled():
                return False
            self.info = package.write_report_package(self.result, self.snap.inputs.layers, self.snap.inputs.unit_to_ft, self.staging,
                                                     doc=self.review.document, reviewer=self.reviewer, reference=self.reference, pack=self.review.pack)
            self.doc = doc
            self.setProgress(90)
            return not self.isCanceled()
        except Exception as exc:  # reported by the dock; never raised into QGIS's task manager
            self.error = f"{type(exc).__name__}: {exc}"
            self.details = traceback.format_exc()
            return False

    def discard(self) -> None:
        """Remove the staging folder (after a failure or a cancel): nothing partial is left."""
        import shutil

        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None

    def finished(self, ok: bool) -> None:  # noqa: D401 - QgsTask API
        try:
            self.on_done(self, ok)
        except Exception:  # never let a slot exception reach QGIS's task manager
            import traceback

            traceback.print_exc()
            self.discard()


#: The layout steps under way (kept alive between their event-loop turns), and their legend tasks until they finish.
_RUNNING: set[Any] = set()
#: Milliseconds between two layout steps: a zero timer can run the next step before the desktop repaints.
_STEP_GAP_MS = 20


class LayoutExport(QObject):
    """The print layout of the export and its ``layout.pdf``, without holding the desktop.

    QGIS's layouts are not thread-safe, so the layout is built, copied and
    exported on the main thread, each step in its own turn of the event loop;
    what takes time runs in tasks: drawing the map's layers in QGIS's map
    renderer task (:func:`~.print_layout.map_render_task`; the exported copy
    shows that drawing, :func:`~.print_layout.layout_for_pdf`), and the legend's
    filter by the map's content, a hit test over every feature under the map,
    in :class:`~.legend_filter.LegendHitTask`. Steps:

    1. build the layout and add it to the project's layout manager (the reviewer opens it), then its legend;
    2. start the map renderer task and the legend's hit test;
    3. when both tasks are done: copy the layout, then show the drawing in the copy's map frame;
    4. give the copy's legend the entries the hit test found (QGIS's own filter on this thread only if the test failed);
    5. export the copy to ``pdf``.

    ``on_done(layout, error)`` runs on the main thread at the end: ``layout``
    the one in the manager (or ``None``), ``error`` why there is no ``layout.pdf``
    (or ``None``). After :meth:`cancel` it does not run; ``on_cancel()`` does.
    Every step first asks ``is_current()``: when the project was closed meanwhile,
    it stops with an error and touches nothing of the new project.
    """

    progressChanged = pyqtSignal(float)

    def __init__(self, project: QgsProject, title: str, extent: QgsRectangle, crs: Any, summary: str, name: str, pdf: Path,
                 on_done: Callable[[Any, str | None], None], *, on_cancel: Callable[[], None] | None = None,
                 is_current: Callable[[], bool] = lambda: True) -> None:
        super().__init__()
        self.project = project
        self.title, self.extent, self.crs, self.summary, self.name = title, extent, crs, summary, name
        self.pdf = Path(pdf)
        self.on_done = on_done
        self.on_cancel = on_cancel
        self.is_current = is_current
        self.layout: Any = None
        self.copy: Any = None
        self.map_task: Any = None
        self.legend_task: Any = None
        #: Legend keys per layer id from the hit test (``None``: not tested, or the test failed).
        self.legend_keys: dict[str, set[str]] | None = None
        #: What step 3 waits for: the map drawn, the legend tested.
        self._waiting: set[str] = set()
        self.work_dir: Path | None = None
        self.cancelled = False
        self.done = False

    def start(self) -> None:
        _RUNNING.add(self)
        self._next(self._build)

    def cancel(self) -> None:
        """Stop (plugin unloaded): the map task is cancelled, the picture removed, ``on_cancel`` called; ``on_done`` never is."""
        if self.done:
            return
        self.cancelled = True
        self.done = True
        for task in (self.map_task, self.legend_task):
            if task is not None:
                try:
                    task.cancel()
                except RuntimeError:  # the task manager has deleted it already
                    pass
        self.map_task = self.legend_task = None
        self._cleanup()
        if self.on_cancel is not None:
            try:
                self.on_cancel()
            except Exception:  # pragma: no cover - never raised into Qt
                import traceback

                traceback.print_exc()

    # -- the steps ----------------------------------------------------------------

    def _next(self, step: Callable[[], None]) -> None:
        """Run ``step`` from a later turn of the event loop (a short timer, not a zero one: repaints and clicks come first)."""
        from qgis.PyQt.QtCore import QTimer

        QTimer.singleShot(_STEP_GAP_MS, lambda: self._run(step))

    def _run(self, step: Callable[[], None]) -> None:
        if self.done:
            return
        if not self.is_current():
            self._finish("the project was closed while the print layout was made")
            return
        try:
            step()
        except Exception as exc:  # the report package is written; the layout is a convenience
            self._finish(f"{type(exc).__name__}: {exc}")

    def _build(self) -> None:

        self.layout = print_layout.build_layout(self.project, self.title, self.extent, self.crs, self.summary, self.name, legend=False)
        self.progressChanged.emit(91.0)
        self._next(self._add_legend)

    def _add_legend(self) -> None:

        print_layout.add_legend(self.layout, self.project)
        self.progressChanged.emit(92.0)
        self._next(self._draw)

    def _draw(self) -> None:
        import tempfile

        from qgis.core import QgsApplication

        from .legend_filter import LegendHitTask, legend_layers  # lazy: as this module's layout classes, only when a layout is exported

        self.work_dir = Path(tempfile.mkdtemp(prefix=".stormwater-map-"))
        task = print_layout.map_render_task(self.layout, self.work_dir / "map.bmp")
        task.renderingComplete.connect(self._drawn)
        task.errorOccurred.connect(self._not_drawn)
        self.map_task = task
        self._waiting = {"map", "legend"}
        layers = legend_layers(self.layout)
        if layers:
            hits = LegendHitTask(print_layout.map_settings(self.layout), layers)
            hits.taskCompleted.connect(lambda: self._tested(hits, True))
            hits.taskTerminated.connect(lambda: self._tested(hits, False))
            self.legend_task = hits
            _RUNNING.add(hits)  # a Python task is kept alive until it has finished, even after a cancel
            QgsApplication.taskManager().addTask(hits)
        else:
            self._waiting.discard("legend")
        QgsApplication.taskManager().addTask(task)

    def _drawn(self) -> None:
        if self.done:
            return
        self.map_task = None
        self.progressChanged.emit(96.0)
        self._ready("map")

    def _not_drawn(self, code: int) -> None:
        if self.done:
            return
        self.map_task = None
        self._finish(f"the map could not be drawn (QgsMapRendererTask error {code})")

    def _tested(self, task: Any, ok: bool) -> None:
        """The legend's hit test is over (main thread): keep its keys, or none when it failed (QGIS's filter is then used)."""
        _RUNNING.discard(task)
        if self.done or task is not self.legend_task:
            return
        self.legend_task = None
        self.legend_keys = dict(task.keys) if ok and task.error is None else None
        self._ready("legend")

    def _ready(self, what: str) -> None:
        self._waiting.discard(what)
        if not self._waiting:
            self._next(self._copy)

    def _copy(self) -> None:

        # after the tasks, not beside them: the legend's test runs Python, and would share the interpreter with this step
        self.copy = self.layout.clone()
        self._next(self._picture)

    def _picture(self) -> None:

        assert self.work_dir is not None
        print_layout.show_map_picture(self.copy, self.work_dir / "map.bmp")
        self._next(self._legend)

    def _legend(self) -> None:
        from .legend_filter import apply_legend_hits  # lazy: as in _draw

        if self.legend_keys is not None:
            apply_legend_hits(self.copy, self.legend_keys)  # the entries the task found: nothing is tested here
        else:
            print_layout.prepare_legend(self.copy)  # the test failed: QGIS's own filter, on this thread
        self._next(self._export)

    def _export(self) -> None:

        print_layout.export_pdf(self.copy, self.pdf)
        self._finish(None)

    def _cleanup(self) -> None:
        import shutil

        hits, self.legend_task = self.legend_task, None
        if hits is not None:  # the map failed or the project closed while the legend was tested
            try:
                hits.cancel()
            except RuntimeError:  # the task manager has deleted it already
                pass
        self.copy = None
        if self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)
            self.work_dir = None
        _RUNNING.discard(self)

    def _finish(self, error: str | None) -> None:
        self.done = True
        if error is not None and self.pdf.exists():
            self.pdf.unlink()
        self._cleanup()
        try:
            layout = self.layout if self.is_current() else None
            self.on_done(layout, error)
        except Exception:  # never let a slot exception reach Qt
            import traceback

            traceback.print_exc()
