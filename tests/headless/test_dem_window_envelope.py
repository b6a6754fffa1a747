"""The DEM window is wide enough: the siting envelope built from the DEM cut to the window equals the one built from the whole DEM.

The readers read only :func:`~stormwater_plugin.services.dem_window.dem_window_bounds` of a DEM. Over generated sites
(a row of lots, the site lot holding a septic field and a device, proposed clearing, disturbance or impervious area on
any lot, which puts that lot in the site, wells and wetlands around), the envelope of the window's DEM, cut as a
windowed read cuts it (whole pixels, its place in the raster kept), has the zones and the allowed area of the whole
DEM's. Until session 17 the window's envelope part grew only the lots holding devices and building sites, and a lot
holding only other work was read without ground: its area was excluded as "gradient unknown". Until session 18 it grew
the site by the rules' reach and 20 ft only, though the envelope reads a feature's ground in tiles of its grid's cells
reaching up to ``READ_BEYOND_CELLS`` cells farther (with 8 ft cells about 100 ft): a wetland just beyond was read without
ground, and its zone came out "gradient unknown". The grid's cell is the envelope's (``siting_cell_ft``); the envelope
service asked for another cell than the readers' default reads the window for it from the DEM's source.
"""

from __future__ import annotations

import math

import shapely
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.siting import build_envelope
from stormwater_plugin.services.dem_window import dem_window_bounds
from tests.sitebuilder import layer, plane_dem, septic_square

X0, SIZE, CELL = -1200.0, 2400.0, 8.0


def _cut(dem: ElevationGrid, bounds: tuple[float, float, float, float]) -> ElevationGrid:
    """``dem`` cut to the whole pixels touching ``bounds`` (a windowed read's grid: its offset and the raster's shape kept)."""
    x0, cell, _, top, _, _ = dem.geotransform
    rows, cols = dem.values.shape
    c0, c1 = max(0, math.floor((bounds[0] - x0) / cell)), min(cols, math.ceil((bounds[2] - x0) / cell))
    r0, r1 = max(0, math.floor((top - bounds[3]) / cell)), min(rows, math.ceil((top - bounds[1]) / cell))
    return ElevationGrid(dem.values[r0:r1, c0:c1].copy(), (x0 + c0 * cell, cell, 0.0, top - r0 * cell, 0.0, -cell), z_to_ft=dem.z_to_ft,
                         pixel_offset=(r0, c0), raster_shape=(rows, cols))


def _zones(env) -> list[tuple[str, str, str | None, float]]:
    return sorted((z.rule_id, z.kind, z.target.id if z.target is not None else None, round(z.geometry.area, 3)) for z in env.excluded)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    lots=st.integers(2, 4),
    work_lot=st.integers(0, 3),
    role=st.sampled_from(["clearing", "disturbance", "impervious"]),
    jurisdiction=st.sampled_from(["lgpc", "lake-george"]),
    well=st.tuples(st.floats(-300, 900), st.floats(-250, 250)),
    wetland=st.tuples(st.floats(-300, 900), st.floats(-250, 250)),
    tilt=st.tuples(st.floats(-0.08, 0.08), st.floats(-0.08, 0.08)),
    cell=st.sampled_from([4.0, 8.0, 16.0]),
)
# found by session 18's read helper: a wetland 61 ft past the 230 ft of the two 200 ft lots' site, within the 8 ft grid's tiles' reading
@example(2, 0, "clearing", "lgpc", (0.0, 0.0), (291.0, 0.0), (0.0, 0.0625), 8.0)
def test_the_envelope_from_the_dem_window_equals_the_whole_dems(lots, work_lot, role, jurisdiction, well, wetland, tilt, cell):
    width = 200.0
    parcels = [box(i * width, -100.0, (i + 1) * width, 100.0) for i in range(lots)]
    lot = min(work_lot, lots - 1)
    x = lot * width
    layers = {
        "parcels": layer("parcels", parcels, [f"P{i}" for i in range(lots)], [{"is_site": 1 if i == 0 else 0} for i in range(lots)]),
        "septic": layer("septic", [septic_square(60.0, 30.0)], ["S1"]),
        "devices": layer("devices", [Point(120.0, -40.0)], ["D1"], [{"device_type": "dry_well"}]),
        role: layer(role, [box(x + 60.0, -50.0, x + 140.0, 50.0)], ["W1"], [{"status": "proposed"}] if role == "impervious" else None),
        "wells": layer("wells", [Point(*well)], ["WE1"]),
        "wetlands": layer("wetlands", [box(wetland[0], wetland[1], wetland[0] + 30.0, wetland[1] + 20.0)], ["WL1"]),
    }
    pack = load_pack(jurisdiction)
    whole = plane_dem(X0, X0, SIZE, CELL, tilt[0], tilt[1])
    bounds = dem_window_bounds(layers, pack, unit_to_ft=1.0, cell_ft=CELL, siting_cell_ft=cell)
    assert bounds is not None and all(math.isfinite(b) for b in bounds)
    cut = _cut(whole, bounds)

    def envelope(dem: ElevationGrid):
        return build_envelope(SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override="major"), pack, device_type="dry_well",
                              high_traffic=None, cell_ft=cell)

    a, b = envelope(whole), envelope(cut)
    assert _zones(a) == _zones(b)
    assert shapely.equals_exact(shapely.normalize(a.envelope), shapely.normalize(b.envelope), 1e-6)


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    lots=st.integers(2, 3),
    jurisdiction=st.sampled_from(["lgpc", "lake-george"]),
    wetland=st.tuples(st.floats(-300, 700), st.floats(-250, 250)),
    tilt=st.tuples(st.floats(-0.08, 0.08), st.floats(-0.08, 0.08)),
    cell=st.sampled_from([2.0, 16.0]),
)
@example(2, "lgpc", (291.0, 0.0), (0.0, 0.0625), 16.0)
@example(2, "lgpc", (350.0, 0.0), (0.0, 0.0625), 16.0)
def test_the_envelope_service_reads_the_window_its_cell_needs(lots, jurisdiction, wetland, tilt, cell):
    """``find_envelope`` with a cell other than the readers' default, given the default's window and the DEM's source, equals
    the envelope of the whole DEM (the command line's and Processing's ``cell_ft``)."""
    from stormwater_plugin.core.dem_source import InMemoryDemSource
    from stormwater_plugin.services.siting import find_envelope

    width = 200.0
    layers = {
        "parcels": layer("parcels", [box(i * width, -100.0, (i + 1) * width, 100.0) for i in range(lots)], [f"P{i}" for i in range(lots)],
                         [{"is_site": 1 if i == 0 else 0} for i in range(lots)]),
        "septic": layer("septic", [septic_square(60.0, 30.0)], ["S1"]),
        "devices": layer("devices", [Point(120.0, -40.0)], ["D1"], [{"device_type": "dry_well"}]),
        "wetlands": layer("wetlands", [box(wetland[0], wetland[1], wetland[0] + 30.0, wetland[1] + 20.0)], ["WL1"]),
    }
    pack = load_pack(jurisdiction)
    whole = plane_dem(X0, X0, SIZE, CELL, tilt[0], tilt[1])
    bounds = dem_window_bounds(layers, pack, unit_to_ft=1.0, cell_ft=CELL)  # what a reader reads: the default cell's window
    assert bounds is not None and all(math.isfinite(b) for b in bounds)

    def envelope(dem: ElevationGrid, source: InMemoryDemSource | None):
        inputs = SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override="major", dem_source=source)
        return find_envelope(inputs, pack, device_type="dry_well", high_traffic=None, cell_ft=cell)

    a, b = envelope(whole, None), envelope(_cut(whole, bounds), InMemoryDemSource(whole))
    assert _zones(a) == _zones(b)
    assert shapely.equals_exact(shapely.normalize(a.envelope), shapely.normalize(b.envelope), 1e-6)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    lots=st.integers(2, 4),
    work_lot=st.integers(0, 3),
    role=st.sampled_from(["clearing", "disturbance", "impervious"]),
    jurisdiction=st.sampled_from(["lgpc", "lake-george", "mamakating"]),
    device=st.tuples(st.floats(10, 190), st.floats(-90, 90)),
    well=st.tuples(st.floats(-300, 900), st.floats(-250, 250)),
    tilt=st.tuples(st.floats(-0.2, 0.2), st.floats(-0.2, 0.2)),
)
def test_the_check_from_the_dem_window_equals_the_whole_dems(lots, work_lot, role, jurisdiction, device, well, tilt):
    """The same for the check's findings (every rule reading the DEM: the gradient setbacks, the slopes, the flow trace)."""
    from stormwater_plugin.core.engine import run_check

    width = 200.0
    lot = min(work_lot, lots - 1)
    x = lot * width
    layers = {
        "parcels": layer("parcels", [box(i * width, -100.0, (i + 1) * width, 100.0) for i in range(lots)], [f"P{i}" for i in range(lots)],
                         [{"is_site": 1 if i == 0 else 0} for i in range(lots)]),
        "septic": layer("septic", [septic_square(60.0, 30.0)], ["S1"]),
        "devices": layer("devices", [Point(*device)], ["D1"], [{"device_type": "dry_well"}]),
        "building_sites": layer("building_sites", [box(130.0, 40.0, 170.0, 80.0)], ["B1"]),
        role: layer(role, [box(x + 60.0, -50.0, x + 140.0, 50.0)], ["W1"], [{"status": "proposed"}] if role == "impervious" else None),
        "wells": layer("wells", [Point(*well)], ["WE1"]),
    }
    pack = load_pack(jurisdiction)
    whole = plane_dem(X0, X0, SIZE, CELL, tilt[0], tilt[1])
    bounds = dem_window_bounds(layers, pack, unit_to_ft=1.0, cell_ft=CELL)
    assert bounds is not None
    cut = _cut(whole, bounds) if all(math.isfinite(b) for b in bounds) else whole

    def findings(dem: ElevationGrid):
        result = run_check(SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0), pack)
        return sorted((f.rule_id, f.subject.id if f.subject else "", f.other.id if f.other else "", f.status.value,
                       None if f.measured_ft is None else round(f.measured_ft, 6)) for f in result.findings)

    assert findings(whole) == findings(cut)
