"""The flow trace's start cells of a point on the edge between DEM cells (Mamakating Ch. 160 upstream-of-wetland rule).

A device drawn exactly on a cell edge touches the cells on both sides. A floor of its pixel coordinate picked one of them,
and which one flipped with the last bit of a rotated or moved coordinate: the same plan, rotated 1 degree and moved 8,192 ft
with its DEM, was undetermined (its path left the DEM) in one placement and an advisory (it reaches the wetland it touches)
in the other. Both cells start a trace now, in placement-independent order.
"""

from __future__ import annotations

import pytest
from shapely.geometry import Point, box

from stormwater_plugin.core.checks.flowpath import EDGE_TOUCH_CELLS, _cells_touched
from tests.core.invariants.sites import Feature, Site, Surface, moved, parcels, run_site, signature, statuses


@pytest.mark.parametrize(("v", "cells"), [
    (140.0, (139, 140)),
    (140.0 + EDGE_TOUCH_CELLS / 2, (139, 140)),
    (140.0 - EDGE_TOUCH_CELLS / 2, (139, 140)),
    (140.0 + 10 * EDGE_TOUCH_CELLS, (140,)),
    (140.0 - 10 * EDGE_TOUCH_CELLS, (139,)),
    (140.5, (140,)),
    (0.0, (-1, 0)),
])
def test_a_point_within_the_edge_tolerance_touches_both_cells(v, cells):
    assert _cells_touched(v) == cells


def _site() -> Site:
    device = Feature("devices", "D1", Point(3, 0), {"device_type": "dry_well", "high_traffic": 0, "storage_gal": 100, "drain_days": 1,
                                                    "bottom_depth_ft": 2.0})
    wetland = Feature("wetlands", "WL1", box(0, 0, 40, 30))
    # the ground rises north at 12.5 %: the device's cell south of the edge drains away, the one north of it lies in the wetland
    return Site(tuple(parcels()) + (device, wetland), Surface(400.0, 0.0, 0.125))


@pytest.mark.parametrize(("angle", "dx", "dy"), [(0.0, 0.0, 0.0), (1.0, 0.0, 8192.0), (90.0, -3e4, 1e3), (237.5, 12345.25, -987.5)])
def test_a_device_on_a_cell_edge_touching_a_wetland_reaches_it_wherever_the_plan_is_placed_ch_160(angle, dx, dy):
    site = _site() if angle == 0.0 and dx == 0.0 and dy == 0.0 else moved(_site(), angle, dx, dy)
    found = statuses(signature(run_site(site, "mamakating", "minor")))
    upstream = {k: v for k, v in found.items() if k[0] == "mamakating.upstream-of-wetland"}
    assert upstream == {("mamakating.upstream-of-wetland", "", "wetlands:WL1"): ("advisory",)}


def _pixels(cell: float = 5.0, x0: float = 0.0, y0: float = 100.0):
    """A north-up raster of ``cell`` ft cells whose top-left corner is (x0, y0): its pixel and centre maps."""
    import numpy as np

    def to_pixel(x, y):
        return (np.asarray(x) - x0) / cell, (y0 - np.asarray(y)) / cell

    def centres(c, r):
        return x0 + (np.asarray(c) + 0.5) * cell, y0 - (np.asarray(r) + 0.5) * cell

    return to_pixel, centres


def test_an_activity_outlined_along_cell_edges_starts_in_the_cells_inside_it_only():
    """An outline point on an edge starts in the cell whose centre lies nearest the activity (inside it), never the one beyond."""
    from stormwater_plugin.core.checks.flowpath import _start_cells

    to_pixel, centres = _pixels()
    cells = _start_cells(to_pixel, centres, (20, 20), box(20, 40, 40, 60))  # 4 x 4 cells exactly
    assert sorted(cells) == [(r, c) for r in range(8, 12) for c in range(4, 8)]


def test_a_line_activity_along_a_cell_edge_starts_in_the_cells_on_both_sides():
    """A line has no inside: an outline point of it on an edge starts in both cells (their centres equally near)."""
    from shapely.geometry import LineString

    from stormwater_plugin.core.checks.flowpath import _start_cells

    to_pixel, centres = _pixels()
    cells = set(_start_cells(to_pixel, centres, (20, 20), LineString([(22.5, 50), (37.5, 50)])))
    assert {(9, 5), (10, 5), (9, 6), (10, 6)} <= cells and all(r in (9, 10) for r, _ in cells)
