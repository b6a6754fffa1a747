"""Reading CAD drawings into site roles: the sorting of entities by layer, block and attribute names (QGIS-free)."""
