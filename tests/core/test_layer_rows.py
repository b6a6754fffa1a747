"""services.layer_rows and services.slope_layers: the rows the Processing sinks write, built without QGIS."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import GeometryCollection, LineString, Point, box

from stormwater_plugin.services.layer_rows import (
    FINDING_SCHEMA,
    NOTIFY_SCHEMA,
    ZONE_SCHEMA,
    SiteParcelUnknown,
    finding_rows,
    notification_rows,
    parts_by_family,
    zone_rows,
)
from stormwater_plugin.services.slope_layers import RAY_SCHEMA, SITE_SCHEMA, mask_rows, site_slope_layers, slope_defaults
from stormwater_plugin.services.slope_map import projected_ground_to_pixel, run_slope_map
from tests.core.test_notification import _notification, _parcels
from tests.sitebuilder import layer, plane_dem


def test_a_collection_splits_into_one_part_per_family():
    g = GeometryCollection([LineString([(0, 0), (1, 0)]), box(0, 0, 1, 1), box(2, 0, 3, 1)])
    parts = parts_by_family(g)
    assert set(parts) == {"line", "polygon"} and parts["polygon"].area == pytest.approx(2.0)
    assert parts_by_family(None) == {} and parts_by_family(Point(0, 0)) == {"point": Point(0, 0)}


def test_findings_give_table_rows_and_their_line_and_area_parts():
    result, _ = _notification("major")
    rows = finding_rows(result.findings)
    assert len(rows.table) == len(result.findings) and all(g is None for g, _ in rows.table)
    assert all(len(attrs) == len(FINDING_SCHEMA) for _, attrs in rows.table)
    keys = [attrs[[n for n, _ in FINDING_SCHEMA].index("key")] for _, attrs in rows.table]
    assert len(set(keys)) == len(keys)
    assert all(g.geom_type in ("LineString", "MultiLineString") for g, _ in rows.lines)
    assert all(g.geom_type in ("Polygon", "MultiPolygon") for g, _ in rows.areas)
    assert all(len(attrs) == len(ZONE_SCHEMA) for _, attrs in zone_rows(result))


def test_notification_rows_mark_adjacent_and_listed_parcels():
    result, block = _notification("minor")
    rows = notification_rows(result, _parcels())
    names = [n for n, _ in NOTIFY_SCHEMA]
    by_id = {attrs[0]: dict(zip(names, attrs)) for _, attrs in rows.rows}
    assert set(by_id) == {n["id"] for n in block["within_500ft"]}
    assert by_id["A"]["adjacent"] and by_id["A"]["listed"] and not by_id["D"]["listed"]
    assert rows.owners == len(block["owners"]) and rows.radius_ft == block.get("radius_ft")
    result.site_parcel_ids = ()
    with pytest.raises(SiteParcelUnknown, match="site parcel"):
        notification_rows(result, _parcels())


def test_building_site_rows_rays_and_status_on_a_plane():
    d = slope_defaults()
    assert d.distance_ft and d.threshold_pct
    grid = plane_dem(-200, -200, 400, 2.0, 0.2, 0.0)  # 20% eastward
    sites = layer("building_sites", [box(-5, -5, 5, 5)], ["B1"])
    out = site_slope_layers(sites, grid, d.distance_ft, 1.0, d.threshold_pct, d)
    assert out.n_steep == 1 and len(out.sites) == 1
    geom, attrs = out.sites[0]
    row = dict(zip([n for n, _ in SITE_SCHEMA], attrs))
    assert geom.equals(Point(0, 0)) and row["status"] == "advisory" and row["slope_100ft_pct"] == pytest.approx(20.0, abs=0.01)
    steepest = [(g, a) for g, a in out.rays if a[[n for n, _ in RAY_SCHEMA].index("steepest")] == 1]
    assert len(steepest) == 1 and len(out.rays) == d.display_rays + 1
    assert all(g.length == pytest.approx(d.distance_ft, rel=1e-9) for g, _ in out.rays if g is not steepest[0][0])


def test_the_map_run_counts_and_keeps_the_steep_cells_and_the_mask_rows_have_areas():
    rows, cols = 60, 50
    z = np.tile(np.arange(cols, dtype=float) * 0.3, (rows, 1))  # 30% eastward, 1 ft cells
    jac = projected_ground_to_pixel((0.0, 1.0, 0.0, float(rows), 0.0, -1.0), 1.0, 1.0)
    written: list[int] = []
    run = run_slope_map(jac, rows, cols, lambda ra, rb, r0, r1: z[ra:rb], 10.0, z_to_ft=1.0, threshold_pct=15.0, compare="gte", n_azimuths=0,
                        strip_cells=cols * 16, min_rows=16, write=lambda r0, s: written.append(r0), want_mask=True)
    assert written == [0, 16, 32, 48] and run.rows_done == rows
    assert run.steep is not None and run.n_steep == int(run.steep.sum()) > 0
    square = shapely.to_wkb(box(0, 0, 2, 3))
    assert mask_rows([square], 15.0, 10.0, 0.5)[0][1] == [15.0, 10.0, 1.5]
    assert mask_rows([square], 15.0, 10.0, None)[0][1][2] is None


def test_the_row_builders_load_no_qgis():
    code = ("import sys; import stormwater_plugin.services.layer_rows, stormwater_plugin.services.slope_layers;"
            "print(','.join(m for m in sys.modules if m.split('.')[0] in ('qgis', 'PyQt5', 'PyQt6', 'osgeo')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _drawn_and_keyed(result, parcels):
    """notification_rows, its rows without a geometry left out and row_keys of them: what the parcels layer drew before they were kept."""
    from stormwater_plugin.services.layer_rows import _row_key, drawn_rows, geometry_wkbs

    found = notification_rows(result, parcels)
    rows = drawn_rows(found.rows) if found.rows else []
    keys = [_row_key(b"" if w is None else w, tuple(a)) for w, (_g, a) in zip(geometry_wkbs([g for g, _ in rows]), rows)]
    return [(g.wkb, a) for g, a in rows], keys, found.radius_ft, found.owners


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["same", "frozen", "changed"]), st.sampled_from(["distance", "owner", "int", "none"])),
                      min_size=1, max_size=6))
def test_the_notified_parcels_rows_kept_by_the_frozen_layer_and_the_blocks_content_equal_those_made_anew(steps):
    """notification_drawn's rows and keys (kept for a frozen parcels layer and the same block's content) equal notification_rows'
    drawn rows and their row keys, whatever changes between calls: another layer object, a value of the block, its type (1 / 1.0)."""
    import copy

    from stormwater_plugin.services.layer_rows import notification_drawn

    result, block = _notification("major")
    plain_parcels = _parcels()
    frozen = plain_parcels.freeze()
    for which, change in steps:
        parcels = plain_parcels if which == "same" else frozen if which == "frozen" else _parcels().freeze()
        block = copy.deepcopy(block)
        near = block["within_500ft"]
        if change == "distance" and near:
            near[0]["distance_ft"] = float(near[0]["distance_ft"]) + 1.0
        elif change == "owner" and near:
            near[-1]["owner"] = str(near[-1].get("owner")) + " Jr."
        elif change == "int" and near:
            near[0]["distance_ft"] = int(near[0]["distance_ft"]) if isinstance(near[0]["distance_ft"], float) else float(near[0]["distance_ft"])
        result.notification = block
        got, keys = notification_drawn(result, parcels)
        rows, want_keys, radius, owners = _drawn_and_keyed(result, parcels)
        assert [(g.wkb, a) for g, a in got.rows] == rows and keys == want_keys
        assert [[type(v) for v in a] for _g, a in got.rows] == [[type(v) for v in a] for _w, a in rows]
        assert got.radius_ft == radius and got.owners == owners
        got.rows[0][1][0] = "changed by a reader"  # a reader changing its rows changes none kept
        assert [(g.wkb, a) for g, a in notification_drawn(result, parcels)[0].rows] == rows
