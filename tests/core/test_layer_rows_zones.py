"""services.layer_rows zone rows: the merged setback rings, the labelled rays and the demo's rows (the dock and Processing write these)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point

from stormwater_plugin.core.model import DisplayZone, FeatureRef
from stormwater_plugin.services.layer_rows import (
    ZONE_RAY_SCHEMA,
    ZONE_SCHEMA,
    map_finding_rows,
    notification_rows,
    ray_rows,
    setback_rows,
    zone_layers,
    zone_rows,
)
from tests.core.test_notification import _notification

ROOT = Path(__file__).resolve().parents[2]
DEMO_SITE, DEMO_DEM = ROOT / "resources" / "demo" / "site.gpkg", ROOT / "resources" / "demo" / "dem.tif"
NAMES = [n for n, _ in ZONE_SCHEMA]


def _ring(rule: str, device: str, dist: float, citation: str) -> DisplayZone:
    return DisplayZone("setback", rule, f"{dist:g} ft {citation}", dist, Point(0, 0).buffer(dist), FeatureRef("devices", device), citation=citation)


def test_rings_of_one_device_and_distance_merge_and_list_their_sections():
    zones = [
        _ring("r.well", "DW-1", 100.0, "Town of Lake George Code §148-11I(2)(a)"),
        _ring("r.lake", "DW-1", 100.0, "6 NYCRR 646-4.14(a)(3)"),
        _ring("r.again", "DW-1", 100.0, "6 NYCRR 646-4.14(a)(3)"),
        _ring("r.septic", "DW-1", 20.0, "6 NYCRR 646-4.14(a)(3)"),
        _ring("r.well", "DW-2", 100.0, "Town of Lake George Code §148-11I(2)(a)"),
    ]
    rows = [dict(zip(NAMES, attrs)) for _, attrs in setback_rows(zones)]
    assert [(r["subject_id"], r["distance_ft"]) for r in rows] == [("DW-1", 100.0), ("DW-2", 100.0), ("DW-1", 20.0)]  # largest first
    assert rows[0]["rule_id"] == "r.well;r.lake;r.again"
    assert rows[0]["label"] == "100 ft §148-11I(2)(a), 6 NYCRR 646-4.14(a)(3)"  # each section once
    assert all(r["kind"] == "setback" for r in rows)


def test_only_the_steepest_ray_of_each_site_is_labelled():
    def ray(site: str, pct: float | None) -> DisplayZone:
        return DisplayZone("slope_ray", "r.slope", f"{pct}%", 100.0, LineString([(0, 0), (0, 1)]), FeatureRef("building_sites", site), slope_pct=pct)

    rows = ray_rows([ray("B1", 3.0), ray("B1", 9.0), ray("B2", 4.0), ray("B1", 5.0)])
    labels = [attrs[[n for n, _ in ZONE_RAY_SCHEMA].index("label")] for _, attrs in rows]
    assert labels == [None, "steepest: 9.0%", "steepest: 4.0%", None]
    assert [attrs[-1] for _, attrs in rows] == [3.0, 9.0, 4.0, 5.0]
    assert [a[2] for _, a in ray_rows([ray("B1", None), ray("B1", None)])] == ["None%", "None%"]  # no slope known: every label kept


def test_processing_zone_rows_are_the_maps_setbacks_then_the_other_polygons():
    result, _ = _notification("major")
    result.zones = [_ring("r.a", "DW-1", 50.0, "§1"), _ring("r.b", "DW-1", 50.0, "§2"),
                    DisplayZone("slope_ray", "r.s", "x", 100.0, LineString([(0, 0), (0, 1)])),
                    DisplayZone("no_cut_buffer", "r.n", "35 ft no-cut buffer", 35.0, Point(0, 0).buffer(35.0))]
    layers = zone_layers(result)
    rows = zone_rows(result)
    assert [a for _, a in rows[: len(layers.setbacks)]] == [a for _, a in layers.setbacks]
    assert [a[0] for _, a in rows] == ["setback", "no_cut_buffer"] and layers.ray_distance_ft == 100.0
    result.zones.append(replace(result.zones[2], distance_ft=50.0))
    assert zone_layers(result).ray_distance_ft is None  # rays of two radii: no one radius to name


@pytest.fixture(scope="module")
def demo_results():
    if not DEMO_SITE.is_file() or not DEMO_DEM.is_file():
        pytest.skip("resources/demo is not built (scripts/make_demo_site.py)")
    for module in ("pyproj", "geopandas", "rasterio"):  # the engine matrix runs tests/core with the core's dependencies only
        pytest.importorskip(module, reason=f"{module} is absent: the demo is read by the file reader (headless extra)")
    from stormwater_plugin.headless.reader import read_site  # lazy: the file reader only for this fixture
    from stormwater_plugin.services.packs import load_pack
    from stormwater_plugin.services.review import check

    out = {}
    for jur in ("lake-george", "lgpc"):
        pack = load_pack(jur)
        site = read_site(DEMO_SITE, [], DEMO_DEM, pack=pack)
        out[jur] = (check(site.inputs, pack, moves=False).result, site.inputs.layers["parcels"])
    return out


@pytest.mark.parametrize("jur", ["lake-george", "lgpc"])
def test_the_demo_rows(demo_results, jur):
    result, parcels = demo_results[jur]
    layers = zone_layers(result)
    kinds = Counter(z.kind for z in result.zones)
    rings = {(z.subject.id if z.subject else "", z.distance_ft) for z in result.zones if z.kind == "setback"}
    assert len(layers.setbacks) == len(rings) and kinds["setback"] >= len(rings)
    by = [dict(zip(NAMES, a)) for _, a in layers.setbacks]
    assert all(r["label"].startswith(f"{r['distance_ft']:g} ft ") and "Code §" not in r["label"] for r in by)
    assert [r["distance_ft"] for r in by] == sorted((r["distance_ft"] for r in by), reverse=True)
    # one labelled ray per building site, each the site's steepest
    assert len(layers.rays) == kinds["slope_ray"] and layers.ray_distance_ft == 100.0
    labelled = [a for _, a in layers.rays if a[2] is not None]
    assert len(labelled) == len({a[4] for _, a in layers.rays}) and all(a[2].startswith("steepest: ") for a in labelled)
    for a in labelled:
        assert a[5] == max(b[5] for _, b in layers.rays if b[4] == a[4])
    assert len(layers.notification_areas) == kinds["notification_area"] == 1
    assert len(layers.buffers) == kinds["no_cut_buffer"]
    # Processing's "Setback zones": the same setback rows, then every other polygon zone
    rows = zone_rows(result)
    assert [a for _, a in rows if a[0] == "setback"] == [a for _, a in layers.setbacks]
    assert len(rows) == len(layers.setbacks) + kinds["no_cut_buffer"] + kinds["notification_area"] + kinds["fertilizer_zone"]
    found = map_finding_rows(result.findings)
    located = [f for f in result.findings if f.geometry is not None]
    assert sum(map(len, found.open.values())) + sum(map(len, found.passes.values())) >= len(located)
    notice = notification_rows(result, parcels)
    assert notice.radius_ft == 500.0 and len(notice.rows) == len(result.notification["within_500ft"]) and notice.owners == 2


def test_the_demo_envelope_rows_carry_their_labels(demo_results):
    from stormwater_plugin.headless.reader import read_site  # lazy: the file reader only for this test
    from stormwater_plugin.services.layer_rows import envelope_layers
    from stormwater_plugin.services.packs import load_pack
    from stormwater_plugin.services.siting import find_envelope

    pack = load_pack("lgpc")
    site = read_site(DEMO_SITE, [], DEMO_DEM, pack=pack)  # the window covers the site parcel grown by the envelope's reach
    env = find_envelope(site.inputs, pack, device_type="dry_well", high_traffic=False)
    out = envelope_layers(env, False)
    assert len(out.envelope_labels) == len(out.envelope) == 1 and out.envelope_labels[0].endswith(" sq ft)")
    assert len(out.excluded_labels) == len(out.excluded) == len(env.excluded) > 0
    assert all(": " in label and ("setback" in label or "buffer" in label or "unknown" in label) for label in out.excluded_labels)
    assert len(out.design_labels) == len(out.design)
    rule_thresholds = {float(r.params["threshold_pct"]) for r in env.rules if r.kind == "device_slope"}
    if len(rule_thresholds) == 1 and not out.design:
        assert out.design_threshold_pct == rule_thresholds.pop()


_sites = st.sampled_from(["B1", "B2", None])
_rays = st.lists(st.builds(
    lambda site, pct, dist, x, y, label: DisplayZone("slope_ray", "r.slope", label, dist, LineString([(0, 0), (x, y)]),
                                                   FeatureRef("building_sites", site) if site else None, slope_pct=pct),
    _sites, st.one_of(st.none(), st.floats(0, 40, allow_nan=False)), st.sampled_from([100.0, 50.0, None]),
    st.floats(-100, 100, allow_nan=False), st.floats(-100, 100, allow_nan=False), st.sampled_from(["3% toward 10°", "x"])), max_size=6)


@settings(max_examples=60, deadline=None)
@given(first=_rays, second=_rays, others=st.lists(st.sampled_from(["setback", "no_cut_buffer", "fertilizer_zone"]), max_size=3),
       again=st.booleans())
def test_the_rays_kept_with_their_zones_are_the_rays_made_anew_and_keyed_as_the_layers_key_rows(first, second, others, again):
    """The slope rays' rows and keys kept by their (frozen) zone objects equal ray_rows and row_keys of the same zones made now."""
    from stormwater_plugin.services.layer_rows import _row_key, geometry_wkbs

    extra = [DisplayZone(k, "r.x", "l", 10.0, Point(1, 1).buffer(10.0), FeatureRef("devices", "DW-1")) for k in others]
    for rays in (first, second, first if again else second):
        zones = extra[:1] + rays + extra[1:]
        result = type("R", (), {"zones": zones})()
        got = zone_layers(result)  # type: ignore[arg-type]
        want = ray_rows(zones)
        assert [(g.wkb, a) for g, a in got.rays] == [(g.wkb, a) for g, a in want]
        assert got.ray_keys == [_row_key(b"" if w is None else w, tuple(a)) for w, (_g, a) in zip(geometry_wkbs([g for g, _ in want]), want)]
        distances = {z.distance_ft for z in rays}
        assert got.ray_distance_ft == (distances.pop() if len(distances) == 1 else None)
        got.rays[:1] = []  # a reader changing its rows changes none kept
        if got.rays or want:
            assert all(a is not b for (_g, a), (_h, b) in zip(zone_layers(result).rays, got.rays))  # type: ignore[arg-type]


_kinds = st.sampled_from(["setback", "no_cut_buffer", "notification_area", "fertilizer_zone", "slope_ray"])
_zone = st.builds(
    lambda kind, dist, x, r, line, device, cite: DisplayZone(
        kind, f"r.{kind}", f"{dist:g} ft", dist, LineString([(x, 0), (x + r, r)]) if line else Point(x, 0).buffer(r),
        FeatureRef("devices", device) if device else None, citation=cite),
    _kinds, st.sampled_from([35.0, 100.0, 500.0]), st.floats(-100, 100, allow_nan=False), st.floats(0.5, 50, allow_nan=False),
    st.booleans(), st.sampled_from(["DW-1", "DW-2", None]), st.sampled_from(["6 NYCRR 646-4.14(a)(3)", "§148-11I(2)(a)", None]))


def _made_anew(zones):
    """The zone layers' rows as made from the zones before they were kept (session 17's ``zone_layers``) and their row keys."""
    from stormwater_plugin.services.layer_rows import _row_key, geometry_wkbs, parts_by_family, zone_attributes

    def keys(rows):
        return [_row_key(b"" if w is None else w, tuple(a)) for w, (_g, a) in zip(geometry_wkbs([g for g, _ in rows]), rows)]

    others: dict = {}
    for z in zones:
        if z.kind not in ("setback", "slope_ray", "no_cut_buffer", "notification_area"):
            for fam, part in parts_by_family(z.geometry).items():
                others.setdefault(fam, []).append((part, zone_attributes(z)))
    setbacks = setback_rows(zones)
    buffers = [(z.geometry, zone_attributes(z)) for z in zones if z.kind == "no_cut_buffer"]
    areas = [(z.geometry, zone_attributes(z)) for z in zones if z.kind == "notification_area"]
    return {"setbacks": (setbacks, keys(setbacks)), "buffers": (buffers, keys(buffers)), "notification_areas": (areas, keys(areas)),
            "others": ({f: r for f, r in others.items()}, {f: keys(r) for f, r in others.items()})}


def _rows_as_values(rows):
    return [(g.wkb, a) for g, a in rows]


@settings(max_examples=80, deadline=None)
@given(first=st.lists(_zone, max_size=8), second=st.lists(_zone, max_size=8), order=st.lists(st.integers(0, 2), min_size=1, max_size=6))
def test_the_zone_layers_rows_kept_with_their_zones_equal_those_made_anew_and_keyed_as_the_layers_key_rows(first, second, order):
    """The setback, no-cut buffer, notification area and other zones' rows and keys kept by their (frozen) zone objects equal the
    rows made from the zones now and row_keys of them, over sequences of lists sharing zone objects (a live edit keeps most)."""
    lists = [first, second, first[:1] + second[1:]]
    for n in order:
        zones = lists[n]
        result = type("R", (), {"zones": zones})()
        got = zone_layers(result)  # type: ignore[arg-type]
        want = _made_anew(zones)
        assert _rows_as_values(got.setbacks) == _rows_as_values(want["setbacks"][0]) and got.setback_keys == want["setbacks"][1]
        assert _rows_as_values(got.buffers) == _rows_as_values(want["buffers"][0]) and got.buffer_keys == want["buffers"][1]
        assert (_rows_as_values(got.notification_areas) == _rows_as_values(want["notification_areas"][0])
                and got.notification_area_keys == want["notification_areas"][1])
        assert list(got.others) == list(want["others"][0])
        assert {f: _rows_as_values(r) for f, r in got.others.items()} == {f: _rows_as_values(r) for f, r in want["others"][0].items()}
        assert got.other_keys == want["others"][1]
        for rows in (got.setbacks, got.buffers, got.notification_areas, *got.others.values()):
            if rows:
                rows[0][1].append("changed by a reader")  # a reader changing its rows changes none kept
        again = zone_layers(result)  # type: ignore[arg-type]
        assert _rows_as_values(again.setbacks) == _rows_as_values(want["setbacks"][0])
        assert {f: _rows_as_values(r) for f, r in again.others.items()} == {f: _rows_as_values(r) for f, r in want["others"][0].items()}
