"""Run in a fresh interpreter: load the packaged plugin from a plugins folder through qgis.utils.

Usage: python zip_loader.py PLUGINS_DIR. Prints one JSON line with what it saw.
"""

import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
plugins_dir = sys.argv[1]
sys.path.insert(0, plugins_dir)

if os.environ.get("SW_BLOCK_SHAPELY"):
    class _NoShapely:
        """Pretend shapely is not installed: the error Python raises for a missing module.

        ``ModuleNotFoundError``, not a bare ``ImportError``: QGIS 3.40's ``qgis.core`` imports shapely itself and
        catches only ``ModuleNotFoundError``, as it would for a machine without shapely.
        """

        def find_spec(self, name, path=None, target=None):
            if name == "shapely" or name.startswith("shapely."):
                raise ModuleNotFoundError("No module named 'shapely' (blocked by the test)", name=name)
            return None

    sys.meta_path.insert(0, _NoShapely())

from qgis.core import QgsApplication  # noqa: E402

app = QgsApplication([], True)
app.initQgis()

import qgis.utils  # noqa: E402
from qgis.gui import QgsMapCanvas, QgsMessageBar  # noqa: E402
from qgis.PyQt.QtWidgets import QMainWindow  # noqa: E402


class Iface:
    """The few QgisInterface methods the plugin calls."""

    def __init__(self):
        self.window = QMainWindow()
        self.canvas = QgsMapCanvas(self.window)
        self.bar = QgsMessageBar(self.window)

    def mainWindow(self):  # noqa: N802
        return self.window

    def mapCanvas(self):  # noqa: N802
        return self.canvas

    def messageBar(self):  # noqa: N802
        return self.bar

    def addDockWidget(self, area, dock):  # noqa: N802
        self.window.addDockWidget(area, dock)

    def removeDockWidget(self, dock):  # noqa: N802
        self.window.removeDockWidget(dock)

    def addToolBarIcon(self, action):  # noqa: N802
        pass

    removeToolBarIcon = addToolBarIcon

    def addPluginToVectorMenu(self, menu, action):  # noqa: N802
        pass

    removePluginVectorMenu = addPluginToVectorMenu


iface = Iface()
qgis.utils.iface = iface
qgis.utils.plugin_paths = [plugins_dir]
qgis.utils.updateAvailablePlugins()
out = {"available": "stormwater_plugin" in qgis.utils.available_plugins}
out["loaded"] = qgis.utils.loadPlugin("stormwater_plugin")
mod = sys.modules.get("stormwater_plugin")
out["module_file"] = getattr(mod, "__file__", None)
out["started"] = qgis.utils.startPlugin("stormwater_plugin")
plugin = qgis.utils.plugins.get("stormwater_plugin")
out["problem"] = getattr(plugin, "problem", None)
from stormwater_plugin.__about__ import __version__  # noqa: E402
from stormwater_plugin.resources_path import icon_path, resources_dir  # noqa: E402

out["version"] = __version__
out["resources_dir"] = str(resources_dir())
out["icon_exists"] = os.path.isfile(icon_path())
registry = QgsApplication.processingRegistry()
prov = registry.providerById("stormwater_review")
out["algorithms"] = sorted(a.name() for a in prov.algorithms()) if prov else []
if not out["problem"]:
    plugin.action.setChecked(True)
out["dock"] = plugin.dock is not None
out["shapely_imported"] = "shapely" in sys.modules
out["unloaded"] = qgis.utils.unloadPlugin("stormwater_plugin")
out["provider_after_unload"] = registry.providerById("stormwater_review") is not None
print("RESULT " + json.dumps(out))
sys.stdout.flush()
os._exit(0)
