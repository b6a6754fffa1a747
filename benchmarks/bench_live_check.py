"""Issue 39: edit-to-updated-table latency of the live re-check, and the main thread's stall per edit, inside QGIS.

The dock runs the check once (Run), then a device is moved 20 times with its layer's edit buffer
(``changeGeometry``, uncommitted, as QGIS's Move Feature tool does), alternately 1 ft west and back. Each
edit is timed from ``changeGeometry`` to the live re-check's findings in the table and the device panel
(the dock's ``live.updated``, the debounce included). A 10 ms main-thread timer records the longest
gap during each edit's loop (time the desktop could not repaint or take a click); the live check's own
main-thread work is timed apart (the edit slot; the plan and start; drawing the result). The full check
(Run) is timed on the same site for scale: three Runs before the edits (the first pays the process's one-time costs and
is left out) and one after every ``FULL_EVERY``-th edit. The CPU per edit is the check's own threads' (the main thread
from the edit to the updated table, plus the live task's thread) against a Run's (the main thread from Run to the
findings drawn, plus the check task's thread); the suggested moves that follow are outside both. The process's CPU
(every thread, until the benchmark saw the update) is printed too. The live task's CPU per edit is also compared
with the same task run in full, sampled three times before the edits and again after every ``FULL_EVERY``-th edit (the
machine's speed drifts by up to 30 % within a run: the two are taken in the same stretches of it). The load
average is printed before and after: the machine is shared.

Sites: the demo (Lake George, class computed) and North Collins, NY (``../shared/realdata/north-collins-ny``:
the Erie County parcels, waterways and water, the derived 1 m DEM, a dry well on parcel 269.00-6-5, LGPC
major, as ``tests/qgis/test_site_sources_agree.py`` reads it; skipped when absent). A benchmark, not a timed test.

Usage::

    QT_QPA_PLATFORM=offscreen PYTHONPATH=$PWD python benchmarks/bench_live_check.py [--edits 20] [--no-realdata] [--pack mamakating]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
DEMO = ROOT / "resources" / "demo"
#: ``../shared/realdata`` of the main checkout (a worktree sits one level further down).
NORTH_COLLINS = next((p / "shared" / "realdata" / "north-collins-ny" for p in (ROOT.parent, ROOT.parent.parent)
                      if (p / "shared" / "realdata" / "north-collins-ny").is_dir()), ROOT.parent / "shared" / "realdata" / "north-collins-ny")
NC_SITE = "269.00-6-5"
#: The same task in full is run again after every this many edits (its median is the ratio's denominator).
FULL_EVERY = 5


def north_collins(folder: Path) -> tuple[dict[str, Path], Path] | None:
    """The North Collins roles as GeoPackages in NY West ftUS (EPSG:2262), a dry well on the site parcel; ``None`` when absent."""
    if not (NORTH_COLLINS / "Erie_2018_Tax_Parcels_SHP_1907.shp").is_file():
        return None
    import geopandas as gpd

    parcels = gpd.read_file(NORTH_COLLINS / "Erie_2018_Tax_Parcels_SHP_1907.shp")
    site = parcels[parcels["PRINT_KEY"] == NC_SITE]
    pt = site.geometry.iloc[0].representative_point()
    frames = {
        "parcels": parcels,
        "streams": gpd.read_file(NORTH_COLLINS / "waterways.gpkg", layer="waterways"),
        "waterbodies": gpd.read_file(NORTH_COLLINS / "water.gpkg", layer="water"),
        "devices": gpd.GeoDataFrame({"id": ["D1"], "device_type": ["dry_well"], "high_traffic": [0]}, geometry=[pt], crs=parcels.crs),
    }
    out = {}
    for role, frame in frames.items():
        frame.to_crs(2262).to_file(folder / f"{role}.gpkg", layer=role, driver="GPKG")
        out[role] = folder / f"{role}.gpkg"
    return out, NORTH_COLLINS / "dem_from_iso-1m_contours_2m_DERIVED.tif"


#: The live task's parts timed with ``--parts`` (label, module, attribute): thread CPU inside the live task only.
PARTS: tuple[tuple[str, str, str], ...] = (
    ("read", "stormwater_plugin.gui.check_task", "_SomeLayers.read"),
    ("check", "stormwater_plugin.services.review", "run_check"),
    ("  class, cleaning, site parcel", "stormwater_plugin.core.engine", "prepare_context"),
    ("  rules", "stormwater_plugin.services.incremental", "Recorder.__call__"),
    ("review document", "stormwater_plugin.services.review", "review_of"),
    ("completeness", "stormwater_plugin.services.site_source", "site_completeness"),
    ("slope mask", "stormwater_plugin.gui.check_task", "precompute_slope_mask"),
    ("result layers", "stormwater_plugin.gui.live_task", "plan_layers"),
    ("  their rows", "stormwater_plugin.gui.live_layers", "result_layer_specs"),
    ("marks", "stormwater_plugin.gui.live_task", "LiveTask._marks"),
)


class PartTimer:
    """Thread CPU of :data:`PARTS` within each live task run (``--parts``): the functions are wrapped, nothing else changes."""

    def __init__(self) -> None:
        import importlib
        import threading

        from stormwater_plugin.gui.live_task import LiveTask

        self.runs: list[dict[str, float]] = []
        self.on = False
        local = threading.local()
        current: dict[str, float] = {}

        def timed(label: str, fn: Any) -> Any:
            def wrapped(*a: Any, **k: Any) -> Any:
                if not getattr(local, "live", False):
                    return fn(*a, **k)
                t = time.thread_time()
                try:
                    return fn(*a, **k)
                finally:
                    current[label] = current.get(label, 0.0) + time.thread_time() - t
            return wrapped

        for label, module, attr in PARTS:
            owner: Any = importlib.import_module(module)
            *path, name = attr.split(".")
            for part in path:
                owner = getattr(owner, part)
            if hasattr(owner, name):
                setattr(owner, name, timed(label, getattr(owner, name)))
        run = LiveTask.run

        def live_run(task: Any) -> bool:
            local.live = True
            current.clear()
            t = time.thread_time()
            try:
                return bool(run(task))
            finally:
                local.live = False
                if self.on:
                    self.runs.append(dict(current, task=time.thread_time() - t))

        LiveTask.run = live_run  # type: ignore[method-assign]

    def report(self, label: str) -> None:
        if not self.runs:
            return
        med = statistics.median
        total = med(r["task"] for r in self.runs)
        print(f"{label}: the live task's thread CPU per edit by part, median of {len(self.runs)} (ms; total {total * 1000:.1f}):", flush=True)
        for part, _m, _a in PARTS:
            print(f"    {part:<32} {med(r.get(part, 0.0) for r in self.runs) * 1000:6.1f}", flush=True)
        self.runs.clear()


def spin_until(pred: Any, timeout: float = 300.0) -> bool:
    from qgis.PyQt.QtCore import QCoreApplication

    deadline = time.monotonic() + timeout
    while not pred() and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.001)
    return bool(pred())


def bench(label: str, layers: dict[str, Any], dem: Any, iface: Any, jurisdiction: str, device: str, n_edits: int, site: str = "",
          cls: str | None = None, step_units: float = 0.3048, parts: PartTimer | None = None) -> None:
    from bench_dock_freeze import StallMeter
    from qgis.core import QgsGeometry, QgsProject

    from stormwater_plugin.gui.check_task import CheckTask
    from stormwater_plugin.gui.dock import ReviewDock
    from stormwater_plugin.gui.live_check import DEBOUNCE_MS

    QgsProject.instance().clear()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    dock = ReviewDock(iface)
    dock.message = lambda *a, **k: None
    dock.roles.guess()
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData(jurisdiction))
    if site:
        dock.site_parcel.setText(site)
    if cls:
        dock.project_class.setCurrentIndex(dock.project_class.findData(cls))
    # Run three times: the first in the process also pays one-time costs (imports, the pack's first read, the result
    # layers' styles), so the edits are compared with the later runs' median (a reviewer's Run in a session)
    runs: list[tuple[float, float]] = []
    run_threads: list[float] = []  # the CPU of the check's own threads: the main thread to the findings drawn + the check's task
    drawn_at: list[float] = []
    show = dock.show_result

    def timed_show(*a: Any, **k: Any) -> Any:
        try:
            return show(*a, **k)
        finally:
            drawn_at.append(time.thread_time())

    dock.show_result = timed_show  # the dock calls its own attribute: the main thread's CPU until the findings are drawn
    check_run = CheckTask.run

    def timed_run(task: Any) -> bool:
        t = time.thread_time()
        try:
            return check_run(task)
        finally:
            task.bench_cpu_s = time.thread_time() - t

    CheckTask.run = timed_run  # type: ignore[method-assign]  # the Run's task: its thread's CPU

    def run_once() -> None:
        cpu0, t0, main0 = time.process_time(), time.perf_counter(), time.thread_time()
        task = dock.run_check()
        spin_until(lambda: dock.task is None, 900)
        runs.append((time.perf_counter() - t0, time.process_time() - cpu0))
        run_threads.append(drawn_at[-1] - main0 + getattr(task, "bench_cpu_s", float("nan")))
        spin_until(lambda: dock.moves_task is None, 900)

    for _ in range(3):
        run_once()
    first_s, first_cpu = runs[0]
    full_s, full_cpu = statistics.median(r[0] for r in runs[1:]), statistics.median(r[1] for r in runs[1:])
    if dock.result is None:
        print(f"{label}: the check failed", flush=True)
        dock.teardown()
        return
    # The same task in full, sampled before the edits and again after every FULL_EVERY-th edit: this machine's speed moves
    # every part by up to 30 % from one stretch of seconds to the next, so the edits are compared with samples taken among them
    full_tasks = [_full_task_cpu(dock) for _ in range(3)]
    devices = layers["devices"]
    fid = next(f.id() for f in devices.getFeatures() if f["id"] == device)
    devices.startEditing()
    meter = StallMeter()
    latencies, gaps, cpus, edit_ms, start_ms, apply_ms, task_cpus = [], [], [], [], [], [], []
    reused: list[int] = []
    move_gaps: list[float] = []
    conversions: list[tuple[int, int]] = []  # the read's conversions reused and made anew (gui.live_read)
    updated: list[float] = []
    updated_main: list[float] = []  # the main thread's CPU clock when the table was updated
    edit_threads: list[float] = []  # the main thread from the edit to the updated table + the live task
    dock.live.updated.connect(lambda: (updated.append(time.perf_counter()), updated_main.append(time.thread_time())))
    if parts is not None:
        parts.on = True
    for k in range(n_edits):
        p = devices.getFeature(fid).geometry().asPoint()
        g = QgsGeometry.fromWkt(f"POINT ({p.x() + (-step_units if k % 2 == 0 else step_units)} {p.y()})")
        target = dock.live.edits + 1
        state: dict[str, float] = {}

        def edit(g: Any = g, state: dict[str, float] = state) -> None:
            state["cpu"] = time.process_time()
            state["main"] = time.thread_time()
            state["t"] = time.perf_counter()
            devices.changeGeometry(fid, g)

        def done(target: int = target) -> bool:
            live = dock.live
            return live.task is None and live.shown_edit is not None and live.shown_edit.number >= target and live.state == "current"

        worst, _second, _secs = meter.measure(edit, done, 300)
        if not done():
            print(f"{label}: edit {k} did not settle", flush=True)
            continue
        latencies.append(updated[-1] - state["t"])
        cpus.append(time.process_time() - state["cpu"])
        gaps.append(worst)
        edit_ms.append(dock.live.stalls.get("edit", 0.0) * 1000)
        start_ms.append(dock.live.stalls.get("start", 0.0) * 1000)
        apply_ms.append(dock.live.stalls.get("apply", 0.0) * 1000)
        task_cpus.append(dock.live.stalls.get("task_cpu", 0.0))
        edit_threads.append(updated_main[-1] - state["main"] + task_cpus[-1])
        basis = getattr(dock.session.review, "basis", None)
        reused.append(len(basis.replayed) + len(basis.narrowed) if basis is not None else 0)
        memo = dock.live.planner.memo
        conversions.append((len(memo.reused), len(memo.converted)) if memo is not None else (0, 0))
        # the moves follow outside the latency budget (never under the next edit), but the main thread shows them: its gaps too
        looked: list[bool] = []  # whether moves were looked for (a violation left)
        gap = meter.measure(lambda looked=looked: looked.append(dock.moves_task is not None),
                            lambda looked=looked: bool(looked) and dock.moves_task is None, 300)[0]
        if looked and looked[0]:
            move_gaps.append(gap)
        if (k + 1) % FULL_EVERY == 0:
            if parts is not None:
                parts.on = False
            full_tasks.append(_full_task_cpu(dock))  # on the edited layer as it stands: the same site as the edits'
            run_once()  # and a Run, for the same reason: the edit after it is the first after a Run, as a reviewer's is
            if parts is not None:
                parts.on = True
    if parts is not None:
        parts.on = False
    del dock.show_result
    CheckTask.run = check_run  # type: ignore[method-assign]
    run_thread_cpu = statistics.median(run_threads[1:])  # the process's first Run pays one-time costs
    devices.rollBack()
    spin_until(lambda: dock.live.task is None, 60)
    dock.teardown()
    QgsProject.instance().clear()
    if not latencies:
        return
    med = statistics.median
    print(f"{label}: full check (Run) {full_s:.3f} s wall, {full_cpu:.3f} s CPU (median of the 2nd and 3rd Run; the process's first: "
          f"{first_s:.3f} s wall, {first_cpu:.3f} s CPU)", flush=True)
    print(f"{label}: edit to updated table, median of {len(latencies)}: {med(latencies) * 1000:.0f} ms "
          f"(min {min(latencies) * 1000:.0f}, max {max(latencies) * 1000:.0f}; the {DEBOUNCE_MS} ms debounce included)", flush=True)
    print(f"{label}: main thread per edit, median: edit slot {med(edit_ms):.2f} ms, plan and start {med(start_ms):.1f} ms, "
          f"drawing the findings {med(apply_ms):.1f} ms; longest main-thread gap per edit: median {med(gaps) * 1000:.0f} ms, "
          f"max {max(gaps) * 1000:.0f} ms", flush=True)
    if move_gaps:
        print(f"{label}: the suggested moves shown after {len(move_gaps)} edits: longest main-thread gap median {med(move_gaps) * 1000:.0f} ms, "
              f"max {max(move_gaps) * 1000:.0f} ms", flush=True)
    print(f"{label}: CPU per edit, median {med(edit_threads) * 1000:.1f} ms = {med(edit_threads) / run_thread_cpu:.1%} of a full check's "
          f"({run_thread_cpu * 1000:.1f} ms, the median of {len(run_threads) - 1} Runs among the edits, "
          f"{min(run_threads[1:]) * 1000:.0f}-{max(run_threads[1:]) * 1000:.0f} ms): the main thread from the edit (Run) to the findings drawn plus the check's task; "
          f"the moves that follow are outside both", flush=True)
    print(f"{label}: process CPU per edit, median {med(cpus):.3f} s = {med(cpus) / full_cpu:.0%} of the full check's (a later Run, drawing included; "
          f"every thread until the benchmark saw the update: the moves' start and the benchmark's own polling included)", flush=True)
    full_task = med(full_tasks)
    print(f"{label}: the live task's CPU per edit, median {med(task_cpus) * 1000:.1f} ms = {med(task_cpus) / full_task:.1%} of the same task "
          f"checking in full ({full_task * 1000:.1f} ms: read, check, slope mask, result layers; median of {len(full_tasks)} runs among the edits, "
          f"{min(full_tasks) * 1000:.0f}-{max(full_tasks) * 1000:.0f} ms); rules reused per edit, median "
          f"{med(reused):.0f}; the read's conversions reused per edit, median {med(c[0] for c in conversions):.0f} "
          f"(made anew {med(c[1] for c in conversions):.0f}: the edited layer and its CRS fit)", flush=True)
    print(f"{label}: the first edit after Run: {latencies[0] * 1000:.0f} ms to the table, task CPU {task_cpus[0] * 1000:.1f} ms, the read's "
          f"conversions reused {conversions[0][0]}, made anew {conversions[0][1]} (Run's read reused)", flush=True)
    if parts is not None:
        parts.report(label)


def _full_task_cpu(dock: Any) -> float:
    """CPU seconds of the live task's work done in full (no basis), run here: read, check, slope mask, result layers."""
    from dataclasses import replace

    from stormwater_plugin.gui.dock_source import dock_source
    from stormwater_plugin.gui.live_task import LiveTask

    planned = dock_source(dock, quiet=True)
    assert planned is not None
    source, options = planned
    dem = source.snapshot_plan.dem
    if dem is not None:  # the DEM clone opened before the task, as the plan opened it until the band's metadata came from the layer
        dem.provider.colorInterpretation(1)  # (qgis_bridge.dem): the full figure is not made larger by the file's opening
    task = LiveTask(source, dock.jurisdiction.currentData(), lambda _t: None, replace(options, basis=None))
    task.shown_layers = None  # nothing shown to compare with: every result layer is built, as after Run
    task.run()
    return task.cpu_s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--no-realdata", action="store_true")
    ap.add_argument("--pack", default="lake-george", help="the demo's pack (mamakating: the flow trace decides the class at every edit)")
    ap.add_argument("--parts", action="store_true", help="time the live task's parts (thread CPU): read, check, document, result layers…")
    ap.add_argument("--county", type=int, default=0, help="add this many square parcels beside the demo's (bench_county_parcels.build)")
    args = ap.parse_args(argv)
    from pytest_qgis.mock_qgis_classes import MockMessageBar
    from pytest_qgis.qgis_interface import QgisInterface
    from qgis.core import QgsApplication, QgsRasterLayer, QgsVectorLayer
    from qgis.gui import QgsMapCanvas
    from qgis.PyQt.QtWidgets import QMainWindow

    from stormwater_plugin.core.roles import ROLES

    app = QgsApplication([], True)
    app.initQgis()
    window = QMainWindow()
    iface = QgisInterface(QgsMapCanvas(window), MockMessageBar(), window)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)", flush=True)
    parts = PartTimer() if args.parts else None
    tmp = Path(tempfile.mkdtemp(prefix="s39live-"))
    try:
        shutil.copy(DEMO / "site.gpkg", tmp / "demo.gpkg")
        if args.county:  # a county's parcels layer beside the demo's
            from bench_county_parcels import build

            shutil.move(str(build(args.county, tmp)), tmp / "demo.gpkg")
        layers = {r: QgsVectorLayer(f"{tmp / 'demo.gpkg'}|layername={r}", r, "ogr") for r in ROLES}
        layers = {r: lyr for r, lyr in layers.items() if lyr.isValid()}
        bench(f"demo ({args.pack})" + (f" + {args.county:,} parcels" if args.county else ""), layers, QgsRasterLayer(str(DEMO / "dem.tif"), "dem"), iface, args.pack, "DW-1", args.edits, parts=parts)
        del layers
        if not args.no_realdata:
            (tmp / "nc").mkdir()
            nc = north_collins(tmp / "nc")
            if nc is None:
                print("north-collins-ny is absent from ../shared/realdata: skipped", flush=True)
            else:
                paths, dem = nc
                layers = {r: QgsVectorLayer(f"{p}|layername={r}", r, "ogr") for r, p in paths.items()}
                bench("North Collins (lgpc major)", layers, QgsRasterLayer(str(dem), "dem"), iface, "lgpc", "D1", args.edits, site=NC_SITE,
                      cls="major", step_units=1.0, parts=parts)
                del layers
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    app.exitQgis()
    return 0


if __name__ == "__main__":
    sys.exit(main())
