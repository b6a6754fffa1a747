"""Issue 24 item 5: the longest main-thread stall of the dock's steps, inside a real QGIS process.

A ``QTimer`` ticks every 10 ms on the main thread and records the gaps between its ticks while the dock
runs the check (Run: plan, read, check, result layers), writes the review package (with the print
layout) and draws the slope mask; a gap is time the desktop could not repaint or take a click
(Cancel). Also the siting envelope, the project opened again (QGIS's read, then the review
restored from the project in a task) and the restore alone. Each step runs on the demo site and on the demo with N synthetic neighbour parcels
(default 50,000 lots of 30 x 45 m west of the site, not site parcels; optionally as many far wetlands
to exercise the context filter). Prints the longest and the second-longest gap and the step's
duration, and the main thread's own CPU seconds in the longest gap (on a loaded machine a gap can be
mostly waiting for a core). Targets: no gap over 0.2 s on the demo, 0.5 s on 50,000 features. A
benchmark, not a timed test.

Usage::

    QT_QPA_PLATFORM=offscreen PYTHONPATH=$PWD python benchmarks/bench_dock_freeze.py [--parcels 50000] [--wetlands 0] [--export-only] [--gc-freeze off] [--gc-watch]

``bench_export`` (also alone with ``--export-only``) measures the report export by itself: with and without the
print layout, and the report's two maps (CPU seconds, geometries drawn). ``--gc-freeze off`` runs the tasks
without :func:`stormwater_plugin.gui.gc_pause.frozen_heap` (the reference); ``--gc-watch`` prints the longest
garbage collection off the main thread in each export.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEMO = ROOT / "resources" / "demo"


def write_site(folder: Path, n_parcels: int, n_wetlands: int) -> Path:
    """The demo package with ``n_parcels`` extra neighbour lots (and ``n_wetlands`` far wetlands) in ``folder``."""
    import fiona
    from shapely.geometry import box, mapping

    out = folder / "site.gpkg"
    shutil.copy(DEMO / "site.gpkg", out)
    if n_parcels:
        with fiona.open(str(out), "a", layer="parcels") as dst:
            props = {k: None for k in dst.schema["properties"]}
            cols = 200
            rows = -(-n_parcels // cols)
            x1, y_mid = 607900.0, 4817200.0
            recs = []
            for k in range(n_parcels):
                c, r = k % cols, k // cols
                x = x1 - (c + 1) * 30.0
                y = y_mid + (r - rows / 2) * 45.0
                p = dict(props)
                p.update({"id": f"SYN-{k}", "is_site": 0})
                recs.append({"geometry": mapping(box(x, y, x + 30.0, y + 45.0)), "properties": p})
            dst.writerecords(recs)
    if n_wetlands:
        with fiona.open(str(out), "a", layer="wetlands") as dst:
            props = {k: None for k in dst.schema["properties"]}
            recs = []
            for k in range(n_wetlands):
                x, y = 600000.0 - (k % 300) * 20.0, 4810000.0 + (k // 300) * 20.0
                p = dict(props)
                p["id"] = f"W-{k}"
                recs.append({"geometry": mapping(box(x, y, x + 5.0, y + 5.0)), "properties": p})
            dst.writerecords(recs)
    return out


class StallMeter:
    """Gaps between the ticks of a 10 ms main-thread timer, seconds."""

    def __init__(self) -> None:
        from qgis.PyQt.QtCore import QTimer

        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.gaps: list[float] = []
        #: The main thread's CPU seconds in each gap (a gap with little CPU waited: for the machine's cores, or for the GIL).
        self.cpu: list[float] = []
        self._last = 0.0
        self._last_cpu = 0.0

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.gaps.append(now - self._last)
        self.cpu.append(cpu - self._last_cpu)
        self._last, self._last_cpu = now, cpu

    def worst_cpu(self) -> float:
        """The main thread's CPU seconds in the longest gap of the last :meth:`measure`."""
        return self.cpu[max(range(len(self.gaps)), key=self.gaps.__getitem__)] if self.gaps else 0.0

    def measure(self, start: Callable[[], Any], done: Callable[[], bool], timeout: float = 900.0) -> tuple[float, float, float]:
        """Run ``start`` from the event loop, spin until ``done()``; (longest gap, second longest, seconds)."""
        from qgis.PyQt.QtCore import QCoreApplication, QTimer

        self.gaps, self.cpu = [], []
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        t0 = self._last
        self.timer.start()
        QTimer.singleShot(0, start)  # the step starts from a tick of the event loop, as a click does
        for _ in range(3):
            QCoreApplication.processEvents()
        deadline = time.monotonic() + timeout
        while not done() and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.002)
        QCoreApplication.processEvents()
        self._tick()
        self.timer.stop()
        gaps = sorted(self.gaps, reverse=True) + [0.0, 0.0]
        return gaps[0], gaps[1], time.perf_counter() - t0


class GcWatch:
    """The garbage collector's passes during a step: the longest one off the main thread (seconds, generation)."""

    def __init__(self) -> None:
        import gc
        import threading

        self._gc, self._threading = gc, threading
        self._start: dict[int, float] = {}
        self.longest = (0.0, 0)
        gc.callbacks.append(self._cb)

    def reset(self) -> None:
        self.longest = (0.0, 0)

    def _cb(self, phase: str, info: dict[str, Any]) -> None:
        tid = self._threading.get_ident()
        if tid == self._threading.main_thread().ident:
            return
        if phase == "start":
            self._start[tid] = time.perf_counter()
        elif tid in self._start:
            dt = time.perf_counter() - self._start.pop(tid)
            if dt > self.longest[0]:
                self.longest = (dt, int(info.get("generation", 0)))


#: Set by ``main`` (``--gc-watch``).
GC_WATCH: GcWatch | None = None


def bench(label: str, gpkg: Path, iface: Any, limit: float, export: bool = True) -> list[tuple[str, float]]:
    from qgis.core import QgsProject, QgsRasterLayer, QgsVectorLayer

    from stormwater_plugin.core.roles import ROLES
    from stormwater_plugin.gui.dock import ReviewDock

    QgsProject.instance().clear()
    layers = [QgsVectorLayer(f"{gpkg}|layername={r}", r, "ogr") for r in ROLES]
    layers = [lyr for lyr in layers if lyr.isValid()]
    dem = QgsRasterLayer(str(DEMO / "dem.tif"), "dem")
    QgsProject.instance().addMapLayers(layers + [dem])
    n = max(int(lyr.featureCount()) for lyr in layers)
    dock = ReviewDock(iface)
    dock.roles.guess()
    dock.message = lambda *a, **k: None
    meter = StallMeter()
    rows: list[tuple[str, float]] = []

    def report(step: str, figures: tuple[float, float, float]) -> None:
        worst, second, secs = figures
        flag = "ok" if worst <= limit else f"OVER {limit:.1f} s"
        print(f"{label:<28} {step:<22} longest stall {worst:6.3f} s (main-thread CPU {meter.worst_cpu():5.3f} s)  next {second:6.3f} s  "
              f"step {secs:6.2f} s  [{flag}]", flush=True)
        rows.append((step, worst))

    # Run: the plan (main thread), the read and the check (task), then the result layers, slope mask included (main thread)
    report("run check", meter.measure(dock.run_check, lambda: dock.task is None and dock.result is not None))
    out = Path(tempfile.mkdtemp(prefix="s24bench-"))
    try:
        from stormwater_plugin.qgis_bridge.deps import reportlab_problem

        if export and reportlab_problem() is None:
            report("export report+layout", meter.measure(lambda: dock.export_report(str(out / "pkg")),
                                                         lambda: dock.export_task is None and (out / "pkg").exists()))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    # the siting envelope: the layers and the parcel's DEM are read in its task
    report("siting envelope", meter.measure(dock.find_envelope, lambda: dock.envelope_task is None and dock.envelope is not None))
    # the project opened again: QGIS reads it (its own work), then the dock restores the saved review in a task
    meter.measure(lambda: None, lambda: dock.moves_task is None)
    proj = Path(tempfile.mkdtemp(prefix="s24proj-")) / "review.qgz"
    try:
        QgsProject.instance().write(str(proj))

        def reopen() -> None:
            QgsProject.instance().clear()
            QgsProject.instance().read(str(proj))

        report("project open + restore", meter.measure(reopen, lambda: dock.restore_task is None and dock.result is not None))
        t0 = time.perf_counter()
        QgsProject.instance().clear()
        QgsProject.instance().read(str(proj))
        t_read = time.perf_counter() - t0
        meter.measure(lambda: None, lambda: dock.restore_task is None and dock.result is not None)
        print(f"{label:<28} {'QgsProject.read alone':<22} {t_read:6.3f} s (QGIS's own, main thread)", flush=True)

        def restore() -> None:
            dock.session.clear()
            dock.restore_review()

        report("restore review only", meter.measure(restore, lambda: dock.restore_task is None and dock.result is not None))
    finally:
        shutil.rmtree(proj.parent, ignore_errors=True)
    # the layout built and exported directly, alone (the old main-thread path, kept for export_report(wait=True))
    from stormwater_plugin.gui import print_layout
    from stormwater_plugin.gui.report_export import site_extent

    t0 = time.perf_counter()
    lay = print_layout.build_layout(QgsProject.instance(), "bench", site_extent(dock.result, dock.snap), dock.snap.crs, "summary", "bench")
    t1 = time.perf_counter()
    pdf = Path(tempfile.mkdtemp(prefix="s24lay-"))
    print_layout.export_pdf(lay, pdf / "layout.pdf")
    t2 = time.perf_counter()
    shutil.rmtree(pdf, ignore_errors=True)
    print(f"{label:<28} {'layout: build / pdf':<22} {t1 - t0:6.3f} s / {t2 - t1:6.3f} s (main thread)", flush=True)
    dock.teardown()
    dock.deleteLater()
    QgsProject.instance().clear()
    print(f"{label:<28} largest layer: {n:,} features", flush=True)
    return rows


def bench_export(label: str, gpkg: Path, iface: Any, limit: float) -> list[tuple[str, float]]:
    """The report export alone (issue 24): its stalls with and without the print layout, and what the maps draw.

    Runs the check (not timed), then exports three times from the event loop: the report package without
    the layout (all of it in the export task), with it (the layout in short main-thread steps while
    ``QgsMapRendererTask`` draws its map: ``gui/report_export.py::LayoutExport``), and the report's
    two maps alone (``report/maps.py``, the part that drew every parcel), with the main thread's CPU
    seconds and the number of geometries each map drew.
    """
    import time as _time

    from qgis.core import QgsProject, QgsRasterLayer, QgsVectorLayer

    from stormwater_plugin.core.roles import ROLES
    from stormwater_plugin.gui.dock import ReviewDock
    from stormwater_plugin.qgis_bridge.deps import reportlab_problem
    from stormwater_plugin.report import maps

    rows: list[tuple[str, float]] = []
    if reportlab_problem() is not None:
        print(f"{label:<28} export: reportlab is missing, skipped", flush=True)
        return rows
    QgsProject.instance().clear()
    layers = [QgsVectorLayer(f"{gpkg}|layername={r}", r, "ogr") for r in ROLES]
    layers = [lyr for lyr in layers if lyr.isValid()]
    dem = QgsRasterLayer(str(DEMO / "dem.tif"), "dem")
    QgsProject.instance().addMapLayers(layers + [dem])
    dock = ReviewDock(iface)
    dock.roles.guess()
    dock.message = lambda *a, **k: None
    meter = StallMeter()
    meter.measure(dock.run_check, lambda: dock.task is None and dock.result is not None)
    out = Path(tempfile.mkdtemp(prefix="s24export-"))
    try:
        for step, layout in (("export, no layout", False), ("export with layout", True)):
            target = out / ("pkg-layout" if layout else "pkg")
            cpu0 = _time.process_time()
            if GC_WATCH is not None:
                GC_WATCH.reset()
            worst, second, secs = meter.measure(lambda t=target, lay=layout: dock.export_report(str(t), layout=lay),
                                                lambda t=target: dock.export_task is None and t.exists())
            cpu = _time.process_time() - cpu0
            flag = "ok" if worst <= limit else f"OVER {limit:.1f} s"
            gc_note = f"  task-thread GC max {GC_WATCH.longest[0]:5.3f} s (gen {GC_WATCH.longest[1]})" if GC_WATCH is not None else ""
            print(f"{label:<28} {step:<22} longest stall {worst:6.3f} s (main-thread CPU {meter.worst_cpu():5.3f} s)  next {second:6.3f} s  "
                  f"step {secs:6.2f} s  process CPU {cpu:6.2f} s{gc_note}  [{flag}]", flush=True)
            rows.append((step, worst))
        # the maps alone, on this thread: CPU seconds and geometries drawn
        from stormwater_plugin.report.model import build_report_model
        from stormwater_plugin.services.review import review_of

        review = review_of(dock.result, crs_name=dock.snap.inputs.crs_name)
        model = build_report_model(dock.result, dock.snap.inputs.layers, dock.snap.inputs.unit_to_ft, doc=review.doc)
        drawn = {"n": 0}
        real_draw = maps.draw

        def counting_draw(ax: Any, g: Any, **kw: Any) -> None:
            drawn["n"] += 0 if g is None or g.is_empty else 1
            real_draw(ax, g, **kw)

        maps.draw = counting_draw  # type: ignore[assignment]
        try:
            cpu0 = _time.process_time()
            maps.render_figures(dock.result, model, dock.snap.inputs.layers, dock.snap.inputs.unit_to_ft, review.doc.get("findings", []))
            cpu = _time.process_time() - cpu0
        finally:
            maps.draw = real_draw  # type: ignore[assignment]
        print(f"{label:<28} {'report maps alone':<22} {cpu:6.2f} s CPU, {drawn['n']:,} geometries drawn", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
        dock.teardown()
        dock.deleteLater()
        QgsProject.instance().clear()
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parcels", type=int, default=50_000)
    ap.add_argument("--wetlands", type=int, default=0)
    ap.add_argument("--export-only", action="store_true", help="only the report export (bench_export), not every dock step")
    ap.add_argument("--no-export", action="store_true", help="leave out the report export step (minutes on a loaded machine)")
    ap.add_argument("--gc-freeze", choices=("on", "off"), default="on",
                    help="off: the tasks without gc_pause.frozen_heap (the reference for the collector's share of the stall)")
    ap.add_argument("--gc-watch", action="store_true", help="print the longest garbage collection off the main thread in each export")
    args = ap.parse_args(argv)
    global GC_WATCH
    if args.gc_watch:
        GC_WATCH = GcWatch()
    if args.gc_freeze == "off":
        from stormwater_plugin.gui import gc_pause

        gc_pause.ENABLED = False
    from pytest_qgis.mock_qgis_classes import MockMessageBar
    from pytest_qgis.qgis_interface import QgisInterface
    from qgis.core import QgsApplication
    from qgis.gui import QgsMapCanvas
    from qgis.PyQt.QtWidgets import QMainWindow

    app = QgsApplication([], True)
    app.initQgis()
    window = QMainWindow()
    canvas = QgsMapCanvas(window)
    iface = QgisInterface(canvas, MockMessageBar(), window)
    tmp = Path(tempfile.mkdtemp(prefix="s24site-"))
    try:
        demo = write_site(tmp / "demo", 0, 0) if (tmp / "demo").mkdir() is None else None
        big = write_site(tmp / "big", args.parcels, args.wetlands) if (tmp / "big").mkdir() is None else None
        assert demo is not None and big is not None
        big_label = f"demo + {args.parcels:,} parcels" + (f" + {args.wetlands:,} wetlands" if args.wetlands else "")
        if not args.export_only:
            bench("demo", demo, iface, 0.2, export=False)
            bench(big_label, big, iface, 0.5, export=False)
        if not args.no_export:
            bench_export("demo", demo, iface, 0.2)
            bench_export(big_label, big, iface, 0.5)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    app.exitQgis()
    return 0


if __name__ == "__main__":
    sys.exit(main())
