"""QGIS-free core: numpy arrays and shapely geometries in, cited findings out.

Nothing in this package imports qgis, PyQt or osgeo; ``tests/core/test_architecture.py``
enforces it.
"""
