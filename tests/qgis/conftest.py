"""QGIS tests: offscreen Qt, the Processing plugin on sys.path, and small site builders."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_PROCESSING_PLUGINS = "/usr/share/qgis/python/plugins"
if os.path.isdir(_PROCESSING_PLUGINS) and _PROCESSING_PLUGINS not in sys.path:
    sys.path.append(_PROCESSING_PLUGINS)

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEMO_GPKG = REPO / "resources" / "demo" / "site.gpkg"
DEMO_DEM = REPO / "resources" / "demo" / "dem.tif"
sys.path.insert(0, str(Path(__file__).resolve().parent))  # synthetic_site

_MISSING_IFACE_METHODS = ("addPluginToVectorMenu", "removePluginVectorMenu", "removeDockWidget", "removePluginMenu")


@pytest.fixture()
def iface(qgis_iface):
    """pytest-qgis's mock interface with the few methods it lacks (no-ops, as the plugin only adds and removes)."""
    calls = []
    for name in _MISSING_IFACE_METHODS:
        if not hasattr(qgis_iface, name):
            setattr(qgis_iface, name, lambda *a, _n=name: calls.append((_n, a)))
    qgis_iface.calls = calls
    return qgis_iface


@pytest.fixture(autouse=True, scope="session")
def _collect_before_qgis_exits(qgis_app):
    """The tests' cyclic garbage (a dock, its tasks and layers in reference cycles) is collected while QGIS still runs.

    pytest-qgis ends QGIS (``exitQgis``) when the session's fixtures are torn down; garbage left until the next collection,
    wherever that falls after it (pytest's summary importing a module), deletes Qt objects on a torn-down application and
    the process ends in a segmentation fault, every test having passed. Requesting ``qgis_app``, this is torn down first.
    """
    yield
    import gc

    from qgis.PyQt.QtCore import QCoreApplication

    gc.collect()
    QCoreApplication.processEvents()  # what the collection scheduled for deletion (deleteLater) goes now too
    gc.collect()


@pytest.fixture(autouse=True)
def _fresh_project(request):
    """Each test starts from a cleared project, as *Project › New* gives a reviewer.

    pytest-qgis's ``qgis_new_project`` removes the layers but keeps the
    project's custom entries; the dock stores its roles and the last review
    there, so a test would otherwise inherit the previous test's choices.
    """
    if "qgis_app" in request.fixturenames or "qgis_iface" in request.fixturenames or "iface" in request.fixturenames \
            or "qgis_new_project" in request.fixturenames:
        from qgis.core import QgsProject

        QgsProject.instance().clear()
    yield


def wait_for(pred, timeout: float = 60.0) -> None:
    """Process Qt events until ``pred()`` holds (a background task finished); fail after ``timeout`` seconds."""
    import time

    from qgis.PyQt.QtCore import QCoreApplication

    deadline = time.monotonic() + timeout
    while not pred() and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    assert pred(), "timed out"


_COPY: list[Path] = []


def _demo_copy() -> Path:
    """A private copy of the demo GeoPackage: QGIS rewrites a GeoPackage's header when it opens it."""
    if not _COPY:
        import shutil
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="stormwater-demo-"))
        shutil.copy2(DEMO_GPKG, folder / "site.gpkg")
        _COPY.append(folder / "site.gpkg")
    return _COPY[0]


def demo_layers():
    """The demo site's layers (role name = layer name) and DEM, or skip when the demo is not built yet."""
    if not DEMO_GPKG.is_file() or not DEMO_DEM.is_file():
        pytest.skip("resources/demo/site.gpkg or dem.tif does not exist yet (built by scripts/make_demo_site.py)")
    from qgis.core import QgsRasterLayer, QgsVectorLayer

    from stormwater_plugin.core.roles import ROLES

    layers = {}
    gpkg = _demo_copy()
    for role in ROLES:
        lyr = QgsVectorLayer(f"{gpkg}|layername={role}", role, "ogr")
        if lyr.isValid():
            layers[role] = lyr
    dem = QgsRasterLayer(str(DEMO_DEM), "dem")
    assert dem.isValid()
    return layers, dem


def roll_back_all(layers) -> None:
    """Roll back every layer of ``layers`` left in edit mode (a layer already removed with its project is passed over)."""
    for layer in layers.values():
        try:
            if layer.isEditable():
                layer.rollBack()
        except RuntimeError:
            pass


def _demo_dock(iface, project_class: str | None):
    from qgis.core import QgsProject

    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    dock = ReviewDock(iface)
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
    if project_class is not None:
        dock.project_class.setCurrentIndex(dock.project_class.findData(project_class))
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None, 300)
    assert dock.result is not None
    wait_for(lambda: dock.moves_task is None, 600)
    try:
        yield dock, layers, dem
    finally:
        roll_back_all(layers)
        if not getattr(dock, "_torn_down", False):
            dock.teardown()
        QgsProject.instance().removeAllMapLayers()
        QgsProject.instance().clear()


@pytest.fixture()
def live_demo_dock(iface):
    """The review dock on the demo under Lake George (the class computed), after a Run and its moves.

    Yields ``(dock, layers, dem)``; afterwards the edits are rolled back, the dock torn down (unless the test did) and
    the project cleared.
    """
    yield from _demo_dock(iface, None)


@pytest.fixture()
def minor_demo_dock(iface):
    """:func:`live_demo_dock` with the class stated minor (as computed): features a test deletes or moves off the mapped
    areas leave it as it is."""
    yield from _demo_dock(iface, "minor")


@pytest.fixture(scope="module")
def provider(qgis_processing):
    """The "Stormwater review" Processing provider, registered once per test module."""
    from qgis.core import QgsApplication

    from stormwater_plugin.processing.provider import StormwaterProvider

    registry = QgsApplication.processingRegistry()
    existing = registry.providerById("stormwater_review")
    if existing is not None:
        yield existing
        return
    prov = StormwaterProvider()
    assert registry.addProvider(prov)
    yield prov
    registry.removeProvider(prov)


@pytest.fixture()
def site(tmp_path):
    """The synthetic EPSG:2260 site of synthetic_site.py, with its DEM, in the project."""
    from qgis.core import QgsProject
    from synthetic_site import site_layers, write_dem

    layers = site_layers()
    dem = write_dem(tmp_path / "dem.tif")
    for lyr in list(layers.values()) + [dem]:
        QgsProject.instance().addMapLayer(lyr)
    yield layers, dem
    QgsProject.instance().removeAllMapLayers()


@pytest.fixture()
def layer_tree_view():
    """QGIS 3.40's Processing loads results through ``iface.layerTreeView()``, which pytest-qgis's mock lacks: a real view.

    QGIS 3.22 never asks for it; the view shows the project's layer tree as the desktop's Layers panel does.
    """
    from qgis.core import QgsLayerTreeModel, QgsProject
    from qgis.gui import QgsLayerTreeView
    from qgis.utils import iface as utils_iface

    view = QgsLayerTreeView()
    model = QgsLayerTreeModel(QgsProject.instance().layerTreeRoot())
    view.setModel(model)
    target = utils_iface
    had = target is not None and hasattr(target, "layerTreeView")
    if target is not None and not had:
        target.layerTreeView = lambda: view
    yield view
    if target is not None and not had:
        del target.layerTreeView
    # torn down now, while QGIS runs: a view or model left to the interpreter's exit outlives the application
    view.setModel(None)
    from qgis.PyQt import sip

    for obj in (view, model):
        if not sip.isdeleted(obj):
            sip.delete(obj)
