"""The edge between QGIS and the QGIS-free core.

Everything here runs on the thread that owns the layers (the main thread for
the dock, the algorithm's thread for Processing sources) and produces plain
data: shapely geometries, numpy arrays and :class:`~stormwater_plugin.core.model.SiteInputs`.

This ``__init__`` imports nothing that needs shapely, so the plugin can load
(and say what is missing) when shapely 2 is not installed.
"""

from .deps import shapely_problem


def snapshot_inputs(*args, **kwargs):
    """See :func:`stormwater_plugin.qgis_bridge.snapshot.snapshot_inputs` (imported lazily)."""
    # lazy: snapshot needs shapely; this package imports without it (see the module docstring)
    from .snapshot import snapshot_inputs as _snapshot_inputs

    return _snapshot_inputs(*args, **kwargs)


__all__ = ["snapshot_inputs", "shapely_problem"]
