"""Stormwater Site-Plan Review: a QGIS plugin around a QGIS-free checking engine.

This module must stay importable without QGIS: the headless CLI imports
``stormwater_plugin.core`` and Python runs this file first. QGIS calls
:func:`classFactory`, which imports the plugin class only then.
"""


def classFactory(iface):  # noqa: N802 - the name QGIS looks for
    """Create the plugin for QGIS.

    Parameters
    ----------
    iface : qgis.gui.QgisInterface
        The QGIS interface handed over by the plugin loader.

    Returns
    -------
    stormwater_plugin.gui.plugin.StormwaterPlugin
    """
    from .gui.plugin import StormwaterPlugin  # lazy: QGIS-only; importing the package must not need QGIS

    return StormwaterPlugin(iface)
