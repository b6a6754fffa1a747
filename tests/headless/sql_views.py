"""SQL views in a GeoPackage, made the way a query layer is saved: a view registered in ``gpkg_contents``
and ``gpkg_geometry_columns``, so OGR lists it as a layer like any table (issue 22's endless view)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.headless.demo_dem import DEMO_SITE


def register_view(gpkg: Path, name: str, select_sql: str, like: str) -> None:
    """Create view ``name`` in ``gpkg`` and register it as a feature layer in the CRS and geometry type of table ``like``."""
    con = sqlite3.connect(gpkg)
    try:
        srs, = con.execute("SELECT srs_id FROM gpkg_contents WHERE table_name = ?", (like,)).fetchone()
        gtype, = con.execute("SELECT geometry_type_name FROM gpkg_geometry_columns WHERE table_name = ?", (like,)).fetchone()
        con.execute(f'CREATE VIEW "{name}" AS {select_sql}')
        con.execute("INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, ?)", (name, name, srs))
        con.execute("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, ?, 0, 0)", (name, gtype, srs))
        con.commit()
    finally:
        con.close()


def geom_column(gpkg: Path, table: str) -> str:
    con = sqlite3.connect(gpkg)
    try:
        return str(con.execute("SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?", (table,)).fetchone()[0])
    finally:
        con.close()


def endless_wells_sql(gpkg: Path, source: str = "wells") -> str:
    """Wells W-1, W-2, … forever at the demo's first well: a recursive counter with no stop."""
    g = geom_column(gpkg, source)
    return (f'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) '
            f'SELECT n.i AS fid, (SELECT "{g}" FROM "{source}" LIMIT 1) AS geom, \'W-\' || n.i AS id FROM n')


def wells_with_endless_view(path: Path) -> Path:
    """``path``: the demo's wells as a table, and ``endless``, a view over them that never ends."""
    import fiona

    with fiona.open(DEMO_SITE, layer="wells") as src:
        with fiona.open(path, "w", driver="GPKG", layer="wells", schema=src.schema, crs_wkt=src.crs_wkt) as dst:
            dst.writerecords(src)
    register_view(path, "endless", endless_wells_sql(path), like="wells")
    return path
