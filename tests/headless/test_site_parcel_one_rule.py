"""One site-parcel rule (issue 23): the working CRS is located at the parcel the engine takes as the site.

Several parcels, none flagged, the plan's building sites and devices spread over them: the engine takes the
parcel holding the most of them (ties to the lowest id); the file reader chooses the UTM zone and the grid scale
factor at that same parcel, whatever the features' order and however each role is split into sources.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fiona
import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import box, mapping

from stormwater_plugin.core.engine import prepare_context
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.units import feet_per_unit
from stormwater_plugin.headless.crs import PYPROJ
from stormwater_plugin.headless.reader import read_site
from stormwater_plugin.services.site_crs import scale_at_grid
from stormwater_plugin.services.working_crs import site_parcel_indices

#: A 3 x 2 block of 120 m lots in NAD83 / UTM 18N (the working CRS is WGS 84 / UTM 18N: no DEM).
X0, Y0, SIDE = 590_000.0, 4_790_000.0, 120.0
LOTS = [box(X0 + (k % 3) * SIDE, Y0 + (k // 3) * SIDE, X0 + (k % 3 + 1) * SIDE, Y0 + (k // 3 + 1) * SIDE) for k in range(6)]
IDS = [f"P{k + 1}" for k in range(6)]

feature = st.tuples(st.integers(0, 5), st.sampled_from(["devices", "building_sites"]), st.floats(0.2, 0.8), st.floats(0.2, 0.8))


def _geom(lot: int, role: str, fx: float, fy: float) -> Any:
    x0, y0 = LOTS[lot].bounds[:2]
    x, y = x0 + fx * SIDE, y0 + fy * SIDE
    return shapely.Point(x, y) if role == "devices" else box(x - 4, y - 4, x + 4, y + 4)


def _write(path: Path, layer: str, rows: list[tuple[Any, dict[str, Any]]], props: dict[str, str]) -> str:
    schema = {"geometry": "Unknown", "properties": props}
    with fiona.open(path, "w", driver="GPKG", layer=layer, crs="EPSG:26918", schema=schema) as out:
        for g, p in rows:
            out.write({"geometry": mapping(g), "properties": p})
    return f"{path}:{layer}"


def _read(folder: Path, order: list[int], split: int, features: list[tuple[int, str, float, float]]) -> Any:
    """The site read by the file reader: the parcels in ``order``, split after ``split`` of them into two sources; each plan role in two."""
    folder.mkdir(parents=True, exist_ok=True)
    lots = [(LOTS[k], {"id": IDS[k]}) for k in order]
    options = [f"parcels={_write(folder / 'parcels_a.gpkg', 'parcels', lots[:split], {'id': 'str'})}",
               f"parcels={_write(folder / 'parcels_b.gpkg', 'parcels', lots[split:], {'id': 'str'})}"]
    for role in ("devices", "building_sites"):
        rows = [(_geom(*f), {"id": f"{role[0]}{n}"}) for n, f in enumerate(features) if f[1] == role]
        if not rows:
            continue
        half = len(rows) // 2
        options.append(f"{role}={_write(folder / f'{role}_a.gpkg', role, rows[:half] or rows, {'id': 'str'})}")
        if half:
            options.append(f"{role}={_write(folder / f'{role}_b.gpkg', role, rows[half:], {'id': 'str'})}")
    return read_site(None, options, None)


def _most_plan(features: list[tuple[int, str, float, float]]) -> str:
    counts = [sum(1 for f in features if f[0] == k) for k in range(6)]
    return IDS[min(k for k in range(6) if counts[k] == max(counts))]


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(features=st.lists(feature, min_size=2, max_size=7), order=st.permutations(range(6)), split=st.integers(1, 5), data=st.data())
def test_the_working_crs_is_located_at_the_engines_site_parcel(tmp_path_factory: pytest.TempPathFactory, features, order, split, data) -> None:
    expected = _most_plan(features)
    loaded = _read(tmp_path_factory.mktemp("site"), list(order), split, features)
    layers = loaded.inputs.layers
    # the engine's site parcel: the one its warning names, first of the lots holding proposed work
    ctx, _, _ = prepare_context(loaded.inputs, load_pack("lgpc"))
    inferred = [w for w in ctx.warnings if w.code == "site_parcel_inferred" and "holds the most proposed features" in w.message]
    assert [w.ids for w in inferred] == [(expected,)]
    assert expected in ctx.site_ids
    # the working CRS's site: the same parcel, and the scale factor is the one at its centre
    assert [layers["parcels"].ids[i] for i in site_parcel_indices(layers)] == [expected]
    assert loaded.crs.to_epsg() == 32618
    b = layers["parcels"].geoms[layers["parcels"].ids.index(expected)].bounds  # the lot as read, working CRS
    k = scale_at_grid(PYPROJ, loaded.crs, (b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0)
    assert loaded.inputs.unit_to_ft == feet_per_unit(float(loaded.crs.axis_info[0].unit_conversion_factor)) / k
    # the same parcel and the same feet with the features in another order and the roles split elsewhere
    shuffled = data.draw(st.permutations(features))
    again = _read(tmp_path_factory.mktemp("again"), list(reversed(order)), 6 - split, list(shuffled))
    assert [again.inputs.layers["parcels"].ids[i] for i in site_parcel_indices(again.inputs.layers)] == [expected]
    assert again.inputs.unit_to_ft == loaded.inputs.unit_to_ft


def test_the_context_catalog_takes_the_engines_site_parcel_and_reads_around_every_lot_of_the_site() -> None:
    """Plan features spread over two catalog lots: the site parcel is the one holding most (the engine's rule), not none
    (the catalog's former rule wanted one lot holding every feature); both lots holding work grow the area read."""
    from pyproj import CRS, Transformer

    from stormwater_plugin.services.context_area import catalog_site_parcels

    utm, lonlat = CRS.from_epsg(26918), CRS.from_epsg(4326)
    tf = Transformer.from_crs(utm, lonlat, always_xy=True)  # the catalog's parcels in degrees, the plan in UTM
    in_degrees = [shapely.transform(g, lambda c: np.column_stack(tf.transform(c[:, 0], c[:, 1]))) for g in LOTS]
    rows = [(g, {"PRINT_KEY": i}, lonlat) for g, i in zip(in_degrees, IDS)]
    back = Transformer.from_crs(lonlat, utm, always_xy=True)

    def to_utm(g: Any, crs: Any) -> Any:
        return shapely.transform(g, lambda c: np.column_stack(back.transform(c[:, 0], c[:, 1])))

    plan = {"devices": [_geom(4, "devices", 0.5, 0.5), _geom(4, "devices", 0.3, 0.3)], "building_sites": [_geom(1, "building_sites", 0.5, 0.5)]}
    pid, how, site = catalog_site_parcels(rows, plan, ("PRINT_KEY",), None, to_utm)
    assert (pid, how) == ("P5", "most_plan")
    assert sorted(round(g.bounds[0], 6) for g, _ in site) == sorted(round(in_degrees[k].bounds[0], 6) for k in (1, 4))
    named, how, _ = catalog_site_parcels(rows, plan, ("PRINT_KEY",), "P2", to_utm)
    assert (named, how) == ("P2", "named")
