"""The edge between QGIS and the QGIS-free core.

Everything here runs on the thread that owns the layers (the main thread for
the dock, the algorithm's thread for Processing sources) and produces plain
data: shapely geometries, numpy arrays and :class:`~stormwater_plugin.core.model.SiteInputs`.

This ``__init__`` imports nothing that needs shapely, so the plugin can load
(and say what is missing) when shapely 2 is not installed.
"""

from .deps import shapely_problem

__all__ = ["shapely_problem"]
