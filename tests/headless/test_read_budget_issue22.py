"""A layer that never ends stops the check with one line naming it (issue 22, item 6: a budget per layer).

The endless layer is built the way it arises: an SQL view in a GeoPackage, a ``WITH RECURSIVE`` query
whose stop condition was forgotten, registered in ``gpkg_contents`` and ``gpkg_geometry_columns`` so
that OGR lists it as a layer like any table. GDAL counts such a view, and takes its extent, in one
SQLite query that never returns; the reader counts it first, within the budget. Every test here is
bounded (a subprocess timeout, or a small budget through the environment).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.services.read_budget import FEATURES_ENV, SECONDS_ENV, ReadBudget
from tests.headless.demo_dem import DEMO_DEM, DEMO_SITE, ROOT
from tests.headless.sql_views import endless_wells_sql, geom_column, register_view, wells_with_endless_view


@pytest.fixture
def view_gpkg(tmp_path: Path) -> Path:
    """view.gpkg: the demo's wells as a table, and ``endless``, a view over them that never ends."""
    return wells_with_endless_view(tmp_path / "view.gpkg")


def _cli(env_extra: dict[str, str], *args: str, timeout: float = 180) -> tuple[subprocess.CompletedProcess, float]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen", **env_extra}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "stormwater_plugin", *args], capture_output=True, text=True, env=env, timeout=timeout)
    return done, time.monotonic() - start


def test_endless_sql_view_as_wells_exits_2_naming_the_layer_within_the_feature_budget(view_gpkg, tmp_path):
    done, _ = _cli({FEATURES_ENV: "5000"}, str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george",
                   "--layer", f"wells={view_gpkg}:endless", "--out", str(tmp_path / "out"), "--quiet")
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(err) == 1, err
    assert f"layer 'wells' ({view_gpkg}:endless) did not finish reading" in err[0]
    assert "more than 5,000 rows" in err[0] and "bug" not in err[0]
    assert not (tmp_path / "out" / "findings.json").exists()


def test_endless_sql_view_stops_at_the_time_budget_when_the_feature_budget_is_far(view_gpkg, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(FEATURES_ENV, "1e12")
    monkeypatch.setenv(SECONDS_ENV, "0.5")
    start = time.monotonic()
    code = main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--layer", f"wells={view_gpkg}:endless",
                 "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "layer 'wells'" in err[0] and "still counting its rows after 0.5 s" in err[0]
    assert time.monotonic() - start < 60  # a guard against a hang (0.5 s counting, the rest start-up under load)


def test_site_package_whose_wells_layer_is_an_endless_view_exits_2_naming_it(tmp_path, capsys, monkeypatch):
    site = tmp_path / "site.gpkg"
    shutil.copy(DEMO_SITE, site)
    con = sqlite3.connect(site)
    try:  # the wells table renamed, and a view named wells over it (the way a field package's query layer is saved)
        con.execute('ALTER TABLE "wells" RENAME TO "wells_table"')
        for table in ("gpkg_contents", "gpkg_geometry_columns", "gpkg_extensions"):
            con.execute(f"UPDATE {table} SET table_name = 'wells_table' WHERE table_name = 'wells'")
        con.execute("UPDATE gpkg_contents SET identifier = 'wells_table' WHERE table_name = 'wells_table'")
        con.commit()
    finally:
        con.close()
    register_view(site, "wells", endless_wells_sql(site, "wells_table"), like="wells_table")
    monkeypatch.setenv(FEATURES_ENV, "2000")
    code = main([str(site), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert f"layer 'wells' ({site}:wells)" in err[0] and "more than 2,000 rows" in err[0]


def test_a_finite_view_within_the_budget_is_read_like_a_table(view_gpkg, tmp_path, monkeypatch):
    g = geom_column(view_gpkg, "wells")
    register_view(view_gpkg, "wells_view", f'SELECT fid, "{g}" AS geom, id FROM wells', like="wells")
    monkeypatch.setenv(FEATURES_ENV, "100")
    out = tmp_path / "out"
    code = main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--layer", f"wells={view_gpkg}:wells_view",
                 "--out", str(out), "--quiet"])
    assert code in (0, 1)
    doc = json.loads((out / "findings.json").read_text())
    ids = {f["other"]["id"] for f in doc["findings"] if f["other"] and f["other"]["layer"] == "wells"}
    assert ids and ids <= {"W-1", "W-2", "W-3", "W-4"}


def test_features_beyond_the_budget_while_reading_a_file_stop_with_the_layer_named(tmp_path, capsys, monkeypatch):
    """The budget applies to every source as its features are read, not only to SQL views."""
    import fiona

    wells = tmp_path / "wells.geojson"
    with fiona.open(DEMO_SITE, layer="wells") as src:
        first = next(iter(src))
        assert set(src.schema["properties"]) == {"parcel", "id"}
        with fiona.open(wells, "w", driver="GeoJSON", schema=src.schema, crs_wkt=src.crs_wkt) as dst:
            dst.writerecords({"geometry": first["geometry"], "properties": {"parcel": None, "id": f"W-{i}"}} for i in range(60))
    monkeypatch.setenv(FEATURES_ENV, "50")
    code = main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--layer", f"wells={wells}",
                 "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert f"layer 'wells' ({wells}:" in err[0] and "did not finish reading" in err[0] and "more than 50 features" in err[0]


def test_county_wetlands_read_through_the_spatial_filter_fit_a_budget_below_the_layers_size(tmp_path, monkeypatch):
    """1,680 county wetlands (read around the site only) under a 1,000-feature budget: the check runs as without it."""
    import fiona
    import numpy as np
    from shapely.geometry import box, mapping, shape

    site = tmp_path / "site.gpkg"
    shutil.copy(DEMO_SITE, site)
    with fiona.open(site, layer="wetlands") as src:
        wl = [(shape(f["geometry"]), dict(f["properties"])) for f in src]
        schema, crs_wkt = src.schema, src.crs_wkt
    c = wl[0][0].centroid
    xs, ys = np.meshgrid(np.arange(-20, 21) * 400.0, np.arange(-20, 21) * 400.0)
    far = (np.abs(xs) > 1000) | (np.abs(ys) > 1000)
    county = [box(c.x + x, c.y + y, c.x + x + 20, c.y + y + 20) for x, y in zip(xs[far], ys[far])]
    with fiona.open(site, "w", driver="GPKG", layer="wetlands", schema=schema, crs_wkt=crs_wkt) as dst:
        dst.writerecords({"geometry": mapping(g), "properties": p} for g, p in wl)
        dst.writerecords({"geometry": mapping(g), "properties": {**{k: None for k in schema["properties"]}, "id": f"C-{i}"}}
                         for i, g in enumerate(county))
    assert len(county) > 1000
    monkeypatch.setenv(FEATURES_ENV, "1000")
    out = tmp_path / "out"
    code = main([str(site), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--out", str(out), "--quiet"])
    assert code in (0, 1)
    doc = json.loads((out / "findings.json").read_text())
    assert any(w["code"] == "context_filtered" for w in doc["warnings"])


def test_budget_from_the_environment_refuses_a_value_that_is_not_a_positive_number(monkeypatch):
    from stormwater_plugin.headless.reader import InputError

    monkeypatch.setenv(SECONDS_ENV, "-1")
    with pytest.raises(InputError, match=SECONDS_ENV):
        ReadBudget.current()
    monkeypatch.delenv(SECONDS_ENV)
    monkeypatch.delenv(FEATURES_ENV, raising=False)
    assert ReadBudget.current() == ReadBudget()


def test_context_catalog_source_that_is_an_endless_view_is_refused_naming_the_role_and_source(tmp_path, monkeypatch):
    """A town catalog's wetlands source saved as a query layer that never ends (the catalog reader counts it first)."""
    import fiona
    from shapely.geometry import Point, mapping

    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.headless.context_reader import read_context
    from stormwater_plugin.services.context_catalog import parse_catalog
    from stormwater_plugin.services.read_budget import LayerBudgetError

    site_xy = Point(600_630.0, 4_800_630.0)
    schema = {"geometry": "Point", "properties": {"id": "str", "device_type": "str"}}
    with fiona.open(tmp_path / "site.gpkg", "w", driver="GPKG", layer="devices", crs="EPSG:26918", schema=schema) as dst:
        dst.write({"geometry": mapping(site_xy), "properties": {"id": "DW-1", "device_type": "dry_well"}})
    wet = tmp_path / "wetlands.gpkg"
    with fiona.open(wet, "w", driver="GPKG", layer="mapped", crs="EPSG:26918", schema={"geometry": "Polygon", "properties": {"WETLAND_ID": "str"}}) as dst:
        dst.write({"geometry": mapping(site_xy.buffer(10)), "properties": {"WETLAND_ID": "BO-12"}})
    g = geom_column(wet, "mapped")
    register_view(wet, "mapped_live", f'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT n.i AS fid, '
                   f'(SELECT "{g}" FROM mapped LIMIT 1) AS geom, \'BO-\' || n.i AS WETLAND_ID FROM n', like="mapped")
    catalog = parse_catalog({"town": "Test Town", "sources": [
        {"name": "DEC wetlands", "path": "wetlands.gpkg", "layer": "mapped_live", "role": "wetlands", "fields": {"id": "WETLAND_ID"},
         "authority": "NYSDEC", "date": "2001", "status": "informational"}]})
    monkeypatch.setenv(FEATURES_ENV, "1000")
    with pytest.raises(LayerBudgetError, match=r"layer 'wetlands' \(.*wetlands.gpkg:mapped_live\) did not finish reading.*more than 1,000 rows"):
        read_context(catalog, tmp_path, tmp_path / "site.gpkg", [], load_pack("lgpc"), tmp_path / "scratch")
