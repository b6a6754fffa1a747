"""QGIS stays up and says what happened: two runs at once, cancel, a layer removed or the project cleared mid-run."""

from __future__ import annotations

import time

import pytest
from conftest import demo_layers
from qgis.core import Qgis, QgsApplication, QgsProject
from qgis.PyQt.QtCore import QCoreApplication


@pytest.fixture()
def dock(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = ReviewDock(iface)
    d.jurisdiction.setCurrentIndex(d.jurisdiction.findData("lgpc"))
    yield d, layers, dem
    d.teardown()
    QgsProject.instance().removeAllMapLayers()


def _wait(d, timeout=60):
    deadline = time.monotonic() + timeout
    while d.task is not None and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    assert d.task is None, "the check did not finish"


def _messages(d, level):
    return d.iface.messageBar().get_messages(level)


def test_a_second_run_while_one_is_running_is_refused_with_a_message(dock):
    d, _, _ = dock
    first = d.run_check()
    assert first is not None
    assert d.run_check() is None
    assert any("already running" in m for m in _messages(d, Qgis.Warning))
    _wait(d)
    assert d.result is not None


def test_cancel_mid_run_stops_the_check_leaves_qgis_running_and_says_so(dock, monkeypatch):
    """Cancel lands while the engine is between rules (held there until the button is pressed): no result, a message."""
    import threading

    from stormwater_plugin.services import site_source

    d, _, _ = dock
    pressed = threading.Event()
    reached = []
    real = site_source.check  # what the one use case the task runs (check_site) calls: services.review.check

    def held(inputs, pack, *args, progress=None, **kwargs):
        def gate(fraction):
            if not reached:  # the first report between rules waits for the Cancel button
                reached.append(fraction)
                pressed.wait(30)
            return progress(fraction)

        return real(inputs, pack, *args, progress=gate, **kwargs)

    monkeypatch.setattr(site_source, "check", held)
    task = d.run_check()
    assert task is not None
    deadline = time.monotonic() + 30
    while not reached and time.monotonic() < deadline:  # the engine is running, held between rules
        QCoreApplication.processEvents()
        time.sleep(0.01)
    assert reached, "the check never reached the engine"
    d.cancel()
    pressed.set()
    _wait(d)
    assert task.isCanceled()
    assert d.result is None  # the engine stopped: no result was drawn
    assert any("cancelled" in m for m in _messages(d, Qgis.Info))
    assert d.run_button.isEnabled()
    assert QgsApplication.instance() is not None


def test_removing_an_input_layer_during_a_run_still_gives_results_from_the_snapshot(dock):
    d, layers, _ = dock
    d.run_check()
    QgsProject.instance().removeMapLayer(layers["wells"].id())
    _wait(d)
    assert d.result is not None
    assert any(f.other and f.other.layer == "wells" for f in d.result.findings)


def test_clearing_the_project_during_a_run_discards_the_results_with_a_message(dock):
    d, _, _ = dock
    d.run_check()
    QgsProject.instance().clear()
    _wait(d)
    assert d.result is None
    assert any("cleared" in m for m in _messages(d, Qgis.Warning))
    assert QgsProject.instance().layerTreeRoot().findGroup("Stormwater review — lgpc") is None
