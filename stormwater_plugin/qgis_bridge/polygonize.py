"""Polygons of the True cells of a boolean raster, with QGIS's own GDAL (shared by the dock's slope mask and Processing)."""

from __future__ import annotations

import numpy as np


def polygonize_mask(mask: np.ndarray, geotransform: tuple[float, float, float, float, float, float]) -> list[bytes]:
    """WKB polygons of the ``True`` cells of a boolean array, in the raster's CRS (8-connected).

    Uses ``gdal.Polygonize`` on an in-memory raster (QGIS's own GDAL).
    """
    from osgeo import gdal, ogr

    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2 or not mask.any():
        return []
    rows, cols = mask.shape
    ds = gdal.GetDriverByName("MEM").Create("", cols, rows, 1, gdal.GDT_Byte)
    ds.SetGeoTransform(tuple(float(v) for v in geotransform))
    band = ds.GetRasterBand(1)
    band.WriteArray(mask.astype(np.uint8))
    # GDAL 3.11 (QGIS 3.44 on Debian unstable) folds the vector "Memory" driver into "MEM" and warns on the old name
    vector_mem = "MEM" if int(gdal.VersionInfo()) >= 3110000 else "Memory"
    vds = ogr.GetDriverByName(vector_mem).CreateDataSource("steep")
    layer = vds.CreateLayer("steep", None, ogr.wkbPolygon)
    layer.CreateField(ogr.FieldDefn("value", ogr.OFTInteger))
    err = gdal.Polygonize(band, band, layer, 0, ["8CONNECTED=8"])
    if err not in (0, None):
        raise RuntimeError("GDAL could not polygonise the slope mask")
    out = []
    layer.ResetReading()
    feat = layer.GetNextFeature()
    while feat is not None:
        geom = feat.GetGeometryRef()
        if geom is not None and feat.GetField(0):
            out.append(bytes(geom.ExportToWkb()))
        feat = layer.GetNextFeature()
    layer = None
    vds = None
    ds = None
    return out
