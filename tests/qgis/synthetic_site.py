"""A tiny site in EPSG:2260 (NY East, US survey feet) built from memory layers, with exact answers.

Parcels (US ft): site P1 0..300 square; P2 adjacent on the east (300..600);
P3 400 ft east of the site (700..900); P4 700 ft east (1000..1200).
Septic S1 is the square 100..110; device D1 is the point (129.9, 105), so it
lies 19.9 US ft = 19.90004 ft from S1. The DEM rises 0.1 ft per ft eastward,
so D1's ground is 1.99 ft above S1's nearest point: D1 is upgradient.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from qgis.core import QgsFeature, QgsGeometry, QgsRasterLayer, QgsVectorLayer

CRS = "EPSG:2260"
US_FT = 1200.0 / 3937.0 / 0.3048
D1_TO_S1_FT = 19.9 * US_FT


def memory_layer(kind: str, name: str, fields: str, rows: list[tuple[str, list]]) -> QgsVectorLayer:
    """A memory layer from ``(wkt, attributes)`` rows; ``fields`` is the URI field part."""
    layer = QgsVectorLayer(f"{kind}?crs={CRS}&{fields}", name, "memory")
    feats = []
    for wkt, attrs in rows:
        f = QgsFeature(layer.fields())
        f.setGeometry(QgsGeometry.fromWkt(wkt))
        f.setAttributes(attrs)
        feats.append(f)
    assert layer.dataProvider().addFeatures(feats)[0]
    layer.updateExtents()
    return layer


def square(x0: float, y0: float, x1: float, y1: float) -> str:
    return f"POLYGON(({x0} {y0},{x1} {y0},{x1} {y1},{x0} {y1},{x0} {y0}))"


def site_layers() -> dict[str, QgsVectorLayer]:
    """Role to memory layer."""
    parcel_fields = "field=PRINT_KEY:string&field=is_site:integer&field=PRMY_OWNER:string&field=MAIL_ADDR:string&field=MAIL_CITY:string&field=MAIL_STATE:string&field=MAIL_ZIP:string"
    parcels = memory_layer("Polygon", "Tax parcels", parcel_fields, [
        (square(0, 0, 300, 300), ["1.-1-1", 1, "SITE OWNER", "1 Lake Rd", "Bolton", "NY", "12814"]),
        (square(300, 0, 600, 300), ["1.-1-2", 0, "NEXT DOOR", "2 Lake Rd", "Bolton", "NY", "12814"]),
        (square(700, 0, 900, 300), ["1.-1-3", 0, "ACROSS", "3 Lake Rd", "Bolton", "NY", "12814"]),
        (square(1000, 0, 1200, 300), ["1.-1-4", 0, "FAR AWAY", "4 Lake Rd", "Bolton", "NY", "12814"]),
    ])
    septic = memory_layer("Polygon", "Septic", "field=id:string", [(square(100, 100, 110, 110), ["S1"])])
    devices = memory_layer("Point", "Infiltration devices", "field=id:string&field=device_type:string&field=high_traffic:integer",
                           [("POINT(129.9 105)", ["D1", "dry_well", 0])])
    return {"parcels": parcels, "septic": septic, "devices": devices}


def write_dem(path: Path) -> QgsRasterLayer:
    """A 1 ft GeoTIFF over -100..1300 x -100..400 (US ft), z = 100 + 0.1 x (feet)."""
    from osgeo import gdal, osr

    cols, rows = 1400, 500
    ds = gdal.GetDriverByName("GTiff").Create(str(path), cols, rows, 1, gdal.GDT_Float32)
    ds.SetGeoTransform((-100.0, 1.0, 0.0, 400.0, 0.0, -1.0))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(2260)
    ds.SetProjection(srs.ExportToWkt())
    x = -100.0 + 0.5 + np.arange(cols)
    band = ds.GetRasterBand(1)
    band.WriteArray(np.tile(100.0 + 0.1 * x, (rows, 1)).astype(np.float32))
    band.SetNoDataValue(-9999.0)
    ds.FlushCache()
    ds = None
    layer = QgsRasterLayer(str(path), "dem")
    assert layer.isValid()
    return layer
