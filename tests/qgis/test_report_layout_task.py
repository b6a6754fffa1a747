"""Issue 24 item 5: the report's print layout never holds the desktop, and layout.pdf is still a whole page.

QGIS's layouts are not thread-safe, so the dock builds, copies and exports the layout on the main
thread in separate steps while QGIS's ``QgsMapRendererTask`` draws its map; the exported copy shows
that drawing. These tests show where the map is drawn, that the PDF is valid, and that closing the
project or unloading the plugin while the map task runs leaves nothing behind (the timings are
measured by ``benchmarks/bench_dock_freeze.py --export-only``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

import pytest
from conftest import demo_layers, wait_for
from qgis.core import QgsApplication, QgsLayoutItemMap, QgsLayoutItemPicture, QgsProject
from qgis.PyQt.QtCore import QCoreApplication

from stormwater_plugin.gui import print_layout
from stormwater_plugin.gui.report_export import LayoutExport

LAYOUT = "Stormwater review — 171.15-1-23"


@pytest.fixture()
def demo_dock(iface):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    dock = ReviewDock(iface)
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
    dock.roles.z_units.setCurrentIndex(dock.roles.z_units.findData("m"))
    said: list[str] = []
    dock.message = lambda text, *a, **k: said.append(str(text))
    dock.said = said
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None, timeout=300)
    assert dock.result is not None, said
    wait_for(lambda: dock.moves_task is None, timeout=300)
    yield dock
    dock.teardown()
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


def _settle() -> None:
    deadline = time.monotonic() + 120
    while QgsApplication.taskManager().countActiveTasks() and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    for _ in range(20):
        QCoreApplication.processEvents()


def _pdf_pages(path) -> int:
    data = path.read_bytes()
    assert data.startswith(b"%PDF") and b"%%EOF" in data[-1024:]
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
        return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    return data.count(b"/Type /Page\n") or data.count(b"/Type/Page")


def test_layout_map_is_drawn_by_a_task_and_the_exported_copy_renders_no_layer(demo_dock, tmp_path, monkeypatch):
    """The map's layers are drawn by QgsMapRendererTask; the main thread exports a copy whose map frame is that drawing."""
    drawn: list[object] = []
    exported: list[tuple[bool, bool]] = []
    real_task, real_export = print_layout.map_render_task, print_layout.export_pdf

    def spy_task(layout, png, *a, **k):
        task = real_task(layout, png, *a, **k)
        drawn.append(type(task).__name__)
        return task

    def spy_export(layout, path):
        maps = [i for i in layout.items() if isinstance(i, QgsLayoutItemMap)]
        pictures = [i for i in layout.items() if isinstance(i, QgsLayoutItemPicture) and i.id() == "map picture"]
        exported.append((all(not m.isVisible() for m in maps), len(pictures) == 1))
        return real_export(layout, path)

    monkeypatch.setattr(print_layout, "map_render_task", spy_task)
    monkeypatch.setattr(print_layout, "export_pdf", spy_export)
    task = demo_dock.export_report(str(tmp_path / "pkg"))
    assert task is not None
    wait_for(lambda: demo_dock.export_task is None, timeout=300)
    assert task.outcome is not None and task.outcome["layout_error"] is None, demo_dock.said
    assert drawn == ["QgsMapRendererTask"]
    # the page QgsLayoutExporter rendered on the main thread had no visible map item: no layer was drawn there
    assert exported == [(True, True)]
    pdf = tmp_path / "pkg" / "layout.pdf"
    assert pdf.stat().st_size > 20_000 and _pdf_pages(pdf) == 1
    if shutil.which("pdfimages"):  # the map drawing is on the page, at 300 dpi over the whole frame
        listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
        sizes = {(int(r.split()[3]), int(r.split()[4])) for r in listing.splitlines()[2:] if r.split()[2] == "image"}
        assert any(abs(w - 2000) <= 2 and abs(h - 1617) <= 2 for w, h in sizes), listing
    # the reviewer's layout in the project keeps its live map (not the picture)
    layout = QgsProject.instance().layoutManager().layoutByName(LAYOUT)
    assert layout is not None
    assert print_layout.map_item(layout) is not None and print_layout.map_item(layout).isVisible()
    assert layout.itemById("map picture") is None
    assert not list(tmp_path.glob(".stormwater-*")) and not (tmp_path / "pkg" / "map.png").exists()


def test_unloading_while_the_map_task_runs_leaves_nothing(demo_dock, tmp_path):
    """Teardown during the layout's map task cancels it: no package, no staging folder, no picture, no error."""
    task = demo_dock.export_report(str(tmp_path / "pkg"))
    wait_for(lambda: isinstance(demo_dock.export_task, LayoutExport) and demo_dock.export_task.map_task is not None, timeout=300)
    steps = demo_dock.export_task
    work = steps.work_dir
    errors: list[str] = []
    old_hook = sys.excepthook
    sys.excepthook = lambda t, v, tb: errors.append(f"{t.__name__}: {v}")
    try:
        demo_dock.teardown()
        _settle()
    finally:
        sys.excepthook = old_hook
    assert not errors, errors
    assert steps.done and steps.cancelled and task.outcome is None
    assert not (tmp_path / "pkg").exists() or not list((tmp_path / "pkg").iterdir())
    assert not list(tmp_path.glob(".stormwater-*")) and work is not None and not work.exists()


def test_closing_the_project_while_the_map_task_runs_writes_the_package_without_the_layout(demo_dock, tmp_path):
    """Project ▸ New during the map task: the report files are written, the layout is not, and nothing reaches the new project."""
    task = demo_dock.export_report(str(tmp_path / "pkg"))
    wait_for(lambda: isinstance(demo_dock.export_task, LayoutExport) and demo_dock.export_task.map_task is not None, timeout=300)
    QgsProject.instance().clear()
    wait_for(lambda: demo_dock.export_task is None, timeout=300)
    _settle()
    assert task.outcome is not None and "project was closed" in (task.outcome["layout_error"] or "")
    names = {p.name for p in (tmp_path / "pkg").iterdir()}
    assert {"findings.json", "report.pdf"} <= names and "layout.pdf" not in names
    assert not QgsProject.instance().layoutManager().printLayouts()
    assert not list(tmp_path.glob(".stormwater-*"))


def test_ten_exports_in_a_row(demo_dock, tmp_path):
    """Repeated exports (the layout replaced each time) all finish with a one-page layout.pdf."""
    for k in range(10):
        task = demo_dock.export_report(str(tmp_path / f"pkg{k}"))
        assert task is not None
        wait_for(lambda: demo_dock.export_task is None, timeout=300)
        assert task.outcome is not None and task.outcome["layout_error"] is None, demo_dock.said
        assert _pdf_pages(tmp_path / f"pkg{k}" / "layout.pdf") == 1
    names = [lay.name() for lay in QgsProject.instance().layoutManager().printLayouts()]
    assert names == [LAYOUT]


def _legend_entries(layout) -> list[tuple[str, list[str]]]:
    """What the layout's legend draws: each layer's name and its entries (a layer left without entries under the filter is skipped, as QGIS does)."""
    from qgis.core import QgsLayoutItemLegend
    from qgis.PyQt.QtCore import Qt

    legend = next(i for i in layout.items() if isinstance(i, QgsLayoutItemLegend))
    model = legend.model()
    out = []
    for node in model.rootGroup().findLayers():
        nodes = model.layerLegendNodes(node)
        if not nodes and legend.legendFilterByMapEnabled():
            continue
        out.append((node.name(), [str(n.data(Qt.ItemDataRole.DisplayRole) or "") for n in nodes]))
    return out


def test_the_legend_is_filtered_in_a_task_and_keeps_what_qgis_filter_keeps(demo_dock, tmp_path, monkeypatch):
    """Issue 24 item 5: the legend's hit test (QGIS's filter by map content) runs in a task; layout.pdf's legend is the one QGIS's filter gives."""
    import threading

    from stormwater_plugin.gui import legend_filter

    threads: list[threading.Thread] = []
    exported: list[tuple[bool, list]] = []
    real_run, real_export = legend_filter.LegendHitTask.run, print_layout.export_pdf

    def spy_run(self):
        threads.append(threading.current_thread())
        return real_run(self)

    def spy_export(layout, path):
        from qgis.core import QgsLayoutItemLegend

        legends = [i for i in layout.items() if isinstance(i, QgsLayoutItemLegend)]
        exported.append((any(lg.legendFilterByMapEnabled() for lg in legends), _legend_entries(layout)))
        return real_export(layout, path)

    def no_main_thread_filter(layout):
        raise AssertionError("the legend was filtered on the main thread")

    monkeypatch.setattr(legend_filter.LegendHitTask, "run", spy_run)
    monkeypatch.setattr(print_layout, "export_pdf", spy_export)
    monkeypatch.setattr(print_layout, "prepare_legend", no_main_thread_filter)
    task = demo_dock.export_report(str(tmp_path / "pkg"))
    wait_for(lambda: demo_dock.export_task is None, timeout=300)
    assert task.outcome is not None and task.outcome["layout_error"] is None, demo_dock.said
    assert threads and all(t is not threading.main_thread() for t in threads), threads
    assert len(exported) == 1
    filtered_at_export, entries = exported[0]
    assert not filtered_at_export  # nothing left for QgsLayoutExporter to test on the main thread
    # QGIS's own filter on the reviewer's layout (the same map), for comparison
    monkeypatch.undo()
    reference = QgsProject.instance().layoutManager().layoutByName(LAYOUT).clone()
    unfiltered = len(_legend_entries(reference))
    print_layout.prepare_legend(reference)
    expected = _legend_entries(reference)
    assert entries == expected
    assert len(expected) < unfiltered  # the demo has layers with nothing under the map: the test means something
    assert any("Violation" in labels for _, labels in expected)
