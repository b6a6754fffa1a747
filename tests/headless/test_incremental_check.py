"""The live re-check's incremental run equals a full check after any sequence of edits (issue 39).

The demo site (Lake George, and the LGPC pack) is read once; each example edits its layers as an engineer does
in QGIS (a device, septic field, well, wetland, impervious area, disturbed area, clearing, parcel, stream,
shoreline, water body or soil moved or reshaped; a device, well, septic field, clearing, impervious or disturbed
area added, deleted; a device's type or traffic, an impervious area's status, a clearing's or disturbed area's use
changed) and checks the edited site twice: in full, and incrementally from the last check's basis (the chain
the dock keeps), for each of the three packs. The two results must be the same findings.json and the same zones,
whichever rules were taken from the basis and whichever derived values (cleaned layers, unions, the no-cut strip,
each feature's nearest shoreline: ``core.derived``) were the last check's: a value kept after one of its inputs
changed is the bug these examples look for. A device move within the class must reuse rules and derived values.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.serialize import result_to_dict
from stormwater_plugin.services.review import check

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


@pytest.fixture(scope="module")
def demo_inputs():
    from stormwater_plugin.headless.site_source import FileSiteSource

    if not (DEMO / "site.gpkg").is_file():
        pytest.skip("the demo site is not built (scripts/make_demo_site.py)")
    return FileSiteSource(DEMO / "site.gpkg", dem_path=DEMO / "dem.tif").read(load_pack("lake-george")).inputs


def _same(a, b) -> None:
    da, db = (json.dumps(result_to_dict(r), sort_keys=True, default=str) for r in (a, b))
    assert da == db
    za, zb = ([(z.kind, z.rule_id, z.label, z.distance_ft, shapely.to_wkb(z.geometry), z.subject) for z in r.zones] for r in (a, b))
    assert za == zb
    assert a.building_sites == b.building_sites


def _with(inputs, role: str, layer: FeatureLayer):
    out = copy.copy(inputs)
    out.layers = dict(inputs.layers)
    out.layers[role] = layer
    out.warnings = list(inputs.warnings)
    return out


def _layer(layer: FeatureLayer, geoms, ids, attrs) -> FeatureLayer:
    return FeatureLayer(layer.role, np.asarray(geoms, dtype=object), list(ids), [dict(a) for a in attrs], dict(layer.no_geometry))


def apply_edit(inputs, edit):
    """One edit of the site's layers: ``(what, role, index, dx_ft, dy_ft, value)``."""
    what, role, k, dx, dy, value = edit
    layer = inputs.layers.get(role)
    if layer is None or len(layer) == 0:
        return inputs
    i = k % len(layer)
    geoms, ids, attrs = list(layer.geoms), list(layer.ids), [dict(a) for a in layer.attrs]
    u = inputs.unit_to_ft
    if what == "move":
        geoms[i] = shapely.affinity.translate(geoms[i], dx / u, dy / u)
    elif what == "reshape":  # a vertex tool's edit: the feature grows or shrinks about its centre, the others stay
        geoms[i] = shapely.affinity.scale(geoms[i], 1 + dx / 100, 1 + dy / 100, origin="centroid")
    elif what == "add":
        geoms.append(shapely.affinity.translate(geoms[i], dx / u, dy / u))
        ids.append(f"{ids[i]}-copy{len(ids)}")
        attrs.append(dict(attrs[i], id=f"{ids[i]}-copy{len(ids)}"))
    elif what == "delete" and len(layer) > 1:
        del geoms[i], ids[i], attrs[i]
    elif what == "attribute":
        key, val = value
        attrs[i][key] = val
    return _with(inputs, role, _layer(layer, geoms, ids, attrs))


_distance = st.floats(min_value=-60.0, max_value=60.0, allow_nan=False).map(lambda v: round(v, 1))
_moves = st.tuples(st.sampled_from(["move", "move", "reshape"]),
                   st.sampled_from(["devices", "devices", "devices", "septic", "wells", "wetlands", "building_sites", "impervious",
                                    "disturbance", "clearing", "parcels", "streams", "shoreline", "waterbodies", "soils"]),
                   st.integers(0, 9), _distance, _distance, st.none())
_adds = st.tuples(st.sampled_from(["add", "delete"]), st.sampled_from(["devices", "wells", "septic", "clearing", "impervious", "disturbance"]),
                  st.integers(0, 9), _distance, _distance, st.none())
_attributes = st.one_of(
    st.tuples(st.just("attribute"), st.just("devices"), st.integers(0, 9), st.just(0.0), st.just(0.0),
              st.sampled_from([("device_type", "dry_well"), ("device_type", "rain_garden"), ("device_type", None),
                               ("high_traffic", 1), ("high_traffic", 0), ("high_traffic", None)])),
    st.tuples(st.just("attribute"), st.just("impervious"), st.integers(0, 9), st.just(0.0), st.just(0.0),
              st.sampled_from([("status", "existing"), ("status", "proposed"), ("status", "removed"), ("status", None)])),
    st.tuples(st.just("attribute"), st.sampled_from(["clearing", "disturbance"]), st.integers(0, 9), st.just(0.0), st.just(0.0),
              st.sampled_from([("use", "lake_access"), ("use", "beach"), ("use", "lawn"), ("use", None)])),
)
_edits = st.lists(st.one_of(_moves, _moves, _adds, _attributes), min_size=1, max_size=4)


@pytest.mark.parametrize("jurisdiction", ["lake-george", "lgpc", "mamakating"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=_edits)
def test_after_any_edit_sequence_the_incremental_check_equals_a_full_check(demo_inputs, jurisdiction, edits):
    for live, full in _live_and_full(demo_inputs, load_pack(jurisdiction), edits):
        _same(live.result, full.result)


def _live_and_full(inputs, pack, edits, *, full_recorded=False):
    """After each of ``edits`` in turn: the incremental check from the last one's basis, and a full check of the same inputs
    (``full_recorded``: with every rule's outputs recorded)."""
    basis = check(inputs, pack, moves=False, recorder=_recorder(None)).basis
    for edit in edits:
        inputs = apply_edit(inputs, edit)
        live = check(inputs, pack, moves=False, recorder=_recorder(basis))
        yield live, check(inputs, pack, moves=False, **({"recorder": _recorder(None)} if full_recorded else {}))
        basis = live.basis


def _recorder(basis):
    from stormwater_plugin.services.incremental import Recorder

    return Recorder(basis)


def test_a_dry_well_moved_within_its_class_reruns_only_the_rules_that_read_the_devices_and_those_for_it_alone(demo_inputs):
    pack = load_pack("lake-george")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    moved = apply_edit(demo_inputs, ("move", "devices", demo_inputs.layers["devices"].ids.index("DW-1"), -1.0, 0.0, None))
    live = check(moved, pack, moves=False, recorder=_recorder(first.basis))
    _same(live.result, check(moved, pack, moves=False).result)
    how = live.basis
    assert how.full_reason == ""
    assert how.replayed and how.narrowed
    assert "lake-george.minor.septic-upgradient-20" in how.narrowed
    assert "lake-george.minor.vehicle-area-advisory-100" in how.narrowed  # covers vehicle-traffic devices only: none moved
    assert not any(r.endswith("may-be-major-slope-15") for r in how.ran)  # a building site's slope: no device read
    assert how.derived is not None and how.derived.reused  # the other layers' cleaning, unions, nearest shorelines: the last check's


@pytest.mark.parametrize(("role", "dx"), [("shoreline", 30.0), ("waterbodies", 30.0), ("clearing", -25.0), ("impervious", -25.0)])
def test_an_edit_of_an_input_of_a_derived_value_makes_it_anew(demo_inputs, role, dx):
    """The no-cut strip, the nearest shoreline, the area unions: moved inputs are never answered with the last check's values."""
    pack = load_pack("lake-george")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    edited = apply_edit(demo_inputs, ("move", role, 0, dx, 0.0, None))
    live = check(edited, pack, moves=False, recorder=_recorder(first.basis))
    _same(live.result, check(edited, pack, moves=False).result)
    assert live.basis.derived.made


def test_a_changed_class_runs_every_rule(demo_inputs):
    pack = load_pack("lake-george")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    other = copy.copy(demo_inputs)
    other.class_override = "major"
    live = check(other, pack, moves=False, recorder=_recorder(first.basis))
    _same(live.result, check(other, pack, moves=False).result)
    assert live.basis.full_reason and not live.basis.replayed


# Mamakating, a small activity (the demo's class is computed exempt): the flow trace decides the class outside the
# rule loop at every edit. Its conditioned DEM window, paths and records are kept by content (core.checks.flowpath);
# these edits move the activity's features (which DEM cells start a trace) and the targets (what the paths meet).
_activity_moves = st.tuples(st.sampled_from(["move", "move", "reshape", "add", "delete"]),
                            st.sampled_from(["devices", "devices", "devices", "impervious", "building_sites", "disturbance", "clearing", "wetlands", "streams"]),
                            st.integers(0, 9), _distance, _distance, st.none())
_stream_class = st.tuples(st.just("attribute"), st.just("streams"), st.integers(0, 9), st.just(0.0), st.just(0.0),
                          st.sampled_from([("class", "B"), ("class", "C"), ("class", "C(T)"), ("class", None)]))
_flow_edits = st.lists(st.one_of(_activity_moves, _activity_moves, _stream_class), min_size=1, max_size=4)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=_flow_edits)
def test_after_edits_of_the_activity_or_the_targets_the_incremental_flow_trace_equals_a_full_check(demo_inputs, edits):
    pack = load_pack("mamakating")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    assert first.result.classification.reasons[-1].rule_id == "mamakating.upstream-of-wetland"  # the trace decided the class
    basis, inputs = first.basis, demo_inputs
    for edit in edits:
        inputs = apply_edit(inputs, edit)
        live = check(inputs, pack, moves=False, recorder=_recorder(basis))
        _same(live.result, check(inputs, pack, moves=False).result)
        basis = live.basis


def _counting(monkeypatch):
    """Count the DEM windows conditioned and the path sets traced (the flow trace's costly steps)."""
    from stormwater_plugin.core.checks import flowpath

    calls = {"condition": 0, "paths": 0}
    condition, paths = flowpath.condition_dem, flowpath._paths

    def counted_condition(*a, **k):
        calls["condition"] += 1
        return condition(*a, **k)

    def counted_paths(*a, **k):
        calls["paths"] += 1
        return paths(*a, **k)

    monkeypatch.setattr(flowpath, "condition_dem", counted_condition)
    monkeypatch.setattr(flowpath, "_paths", counted_paths)
    return calls


def _flow_finding(result):
    return next(f for f in result.findings if f.rule_id == "mamakating.upstream-of-wetland")


def test_a_device_moved_by_a_foot_reuses_the_conditioned_dem_window(demo_inputs, monkeypatch):
    pack = load_pack("mamakating")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    calls = _counting(monkeypatch)
    moved = apply_edit(demo_inputs, ("move", "devices", demo_inputs.layers["devices"].ids.index("DW-1"), -1.0, 0.0, None))
    live = check(moved, pack, moves=False, recorder=_recorder(first.basis))
    assert calls["condition"] == 0
    _same(live.result, check(moved, pack, moves=False).result)
    assert calls["condition"] == 1  # the full check (no earlier values) conditions its window


def test_a_wetland_moved_onto_the_activity_is_met_with_the_kept_paths(demo_inputs, monkeypatch):
    """Changed targets: the records are made anew on the kept window and paths, and the class follows (major, computed)."""
    pack = load_pack("mamakating")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    assert _flow_finding(first.result).status.value == "undetermined"
    devices, wetlands = demo_inputs.layers["devices"], demo_inputs.layers["wetlands"]
    x, y = devices.geoms[devices.ids.index("DW-1")].coords[0]
    near = _with(demo_inputs, "wetlands", _layer(wetlands, [shapely.box(x - 5, y - 5, x + 5, y + 5)], wetlands.ids[:1], wetlands.attrs[:1]))
    calls = _counting(monkeypatch)
    live = check(near, pack, moves=False, recorder=_recorder(first.basis))
    assert calls == {"condition": 0, "paths": 0}
    assert _flow_finding(live.result).status.value == "advisory"
    assert live.result.project_class == "major" and live.result.class_source == "computed"
    _same(live.result, check(near, pack, moves=False).result)


def test_a_changed_dem_window_is_conditioned_and_traced_anew(demo_inputs, monkeypatch):
    """The same window of a DEM whose values changed (the raster tilted to the north): never the last check's drainage."""
    pack = load_pack("mamakating")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    source = copy.copy(demo_inputs.dem_source)
    read = source._read

    def tilted(win):
        values = read(win)
        return None if values is None else values + 2.0 * np.arange(win.row0, win.row0 + win.rows, dtype=float)[:, None]

    source._read = tilted
    edited = copy.copy(demo_inputs)
    edited.dem_source = source
    calls = _counting(monkeypatch)
    live = check(edited, pack, moves=False, recorder=_recorder(first.basis))
    assert calls["condition"] >= 1 and calls["paths"] >= 1
    assert _flow_finding(live.result).message != _flow_finding(first.result).message
    _same(live.result, check(edited, pack, moves=False).result)


def _lake_warning(result):
    return next((w.message for w in result.warnings if w.code == "dem_z_contradicts_lake"), None)


def test_the_lake_shoreline_elevation_warning_follows_each_of_its_inputs(demo_inputs, monkeypatch):
    """Kept by content (the DEM grid, the shoreline, the water bodies, the pack's lakes, the unit): each edit is seen."""
    import dataclasses

    from stormwater_plugin.core import engine

    pack = load_pack("lake-george")
    basis = check(demo_inputs, pack, moves=False, recorder=_recorder(None)).basis
    calls = []
    warning = engine.shoreline_elevation_warning
    monkeypatch.setattr(engine, "shoreline_elevation_warning", lambda *a: calls.append(1) or warning(*a))
    feet = copy.copy(demo_inputs)
    feet.dem = dataclasses.replace(demo_inputs.dem, z_to_ft=1.0)  # metres read as feet: the shore near 97 ft
    raised = copy.copy(feet)
    raised.dem = dataclasses.replace(feet.dem, values=feet.dem.values + 10.0)
    again = copy.copy(raised)
    again.dem = dataclasses.replace(raised.dem, values=np.array(raised.dem.values, copy=True))  # a new read of the same window
    shore = apply_edit(again, ("move", "shoreline", 0, 60.0, 0.0, None))
    water = apply_edit(shore, ("move", "waterbodies", 0, 60.0, 0.0, None))
    seen = []
    for inputs, anew in ((feet, True), (raised, True), (again, False), (shore, True), (water, True), (demo_inputs, True)):
        calls.clear()
        live = check(inputs, pack, moves=False, recorder=_recorder(basis))
        assert len(calls) == (1 if anew else 0)
        _same(live.result, check(inputs, pack, moves=False).result)
        seen.append(_lake_warning(live.result))
        basis = live.basis
    assert None not in seen[:5] and seen[0] != seen[1] and seen[-1] is None


@pytest.mark.parametrize("edit", [
    ("attribute", "impervious", 0, 0.0, 0.0, ("status", None)),
    ("attribute", "clearing", 0, 0.0, 0.0, ("use", "lake_access")),
    ("move", "devices", 0, 0.0, -40.0, None),
    ("move", "clearing", 0, 0.0, -20.0, None),
    ("move", "shoreline", 0, 0.0, 15.0, None),
    ("move", "parcels", 0, 5.0, 0.0, None),
])
def test_the_buffer_findings_kept_by_content_follow_each_edit_and_each_figure_of_the_rule(demo_inputs, edit):
    """The no-cut buffer's finding of each removal and the clear-cut finding of each lot (kept by content): the
    feature, its status and use, the shore, the lot, and the rule's own figures (width, share) are all seen."""
    pack = load_pack("lake-george")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    edited = apply_edit(demo_inputs, edit)
    live = check(edited, pack, moves=False, recorder=_recorder(first.basis))
    _same(live.result, check(edited, pack, moves=False).result)
    basis = live.basis
    for figure in ("note", "share", "width"):  # one figure at a time: none may hide behind another's effect on the strip
        other = copy.deepcopy(pack)
        for rule in other.rules:
            if rule.kind == "shoreline_no_cut_buffer" and figure == "note":
                rule.params["exception_note"] = "Another note."
            if rule.kind == "shoreline_no_cut_buffer" and figure == "width":
                rule.params["width_ft"] = float(rule.params["width_ft"]) + 40.0
            if rule.kind == "clear_cut_opening" and figure == "share":
                rule.params["max_share_pct"] = 5.0
        again = check(edited, other, moves=False, recorder=_recorder(basis))
        full = check(edited, other, moves=False)
        _same(again.result, full.result)
        kind = "clear_cut_opening" if figure == "share" else "shoreline_no_cut_buffer"
        if figure != "note" or any(f.kind == kind and f.status.value == "violation" for f in full.result.findings):  # the note ends a violation
            assert [f.message for f in full.result.findings if f.kind == kind] != [f.message for f in live.result.findings if f.kind == kind]
        basis = again.basis


def _neighbour(parcels):
    """(the flagged site parcel's index, the nearest other parcel's)."""
    site = next(i for i, a in enumerate(parcels.attrs) if a.get("is_site"))
    return site, min((i for i in range(len(parcels)) if i != site), key=lambda i: parcels.geoms[i].distance(parcels.geoms[site]))


def _site_flag_moved(inputs):
    """The ``is_site`` flag taken from the site parcel and given to its nearest neighbour."""
    parcels = inputs.layers["parcels"]
    attrs = [dict(a) for a in parcels.attrs]
    site, other = _neighbour(parcels)
    attrs[site]["is_site"], attrs[other]["is_site"] = 0, 1
    return _with(inputs, "parcels", _layer(parcels, list(parcels.geoms), parcels.ids, attrs))


def _device_drawn_as(inputs, fid, half_side):
    """Device ``fid`` drawn as a square of ``half_side`` working units about its point (a symbol when small)."""
    devices = inputs.layers["devices"]
    geoms = list(devices.geoms)
    i = devices.ids.index(fid)
    c = geoms[i].centroid
    geoms[i] = shapely.box(c.x - half_side, c.y - half_side, c.x + half_side, c.y + half_side)
    return _with(inputs, "devices", _layer(devices, geoms, devices.ids, devices.attrs))


def test_the_setting_kept_by_content_follows_the_site_flag_the_named_site_the_disturbance_and_a_symbol(demo_inputs):
    """The site parcel picked by the parcels alone, the site's and the disturbed area's unions, each role's symbols read as
    points: kept by content, and an edit of each of their inputs is seen."""
    pack = load_pack("lake-george")
    basis = check(demo_inputs, pack, moves=False, recorder=_recorder(None)).basis
    named = copy.copy(demo_inputs)
    named.site_parcel_id = demo_inputs.layers["parcels"].ids[_neighbour(demo_inputs.layers["parcels"])[1]]
    symbol = _device_drawn_as(demo_inputs, "DW-1", 0.2)  # a 0.4 unit square: a symbol, read as a point
    drawn = _device_drawn_as(demo_inputs, "DW-1", 3.0)  # 6 units across: drawn as it is
    steps = [_site_flag_moved(demo_inputs), named, apply_edit(demo_inputs, ("move", "disturbance", 0, 30.0, 0.0, None)), symbol, drawn,
             apply_edit(symbol, ("move", "devices", 0, 3.0, 0.0, None)), demo_inputs]
    sites, warned = [], []
    for inputs in steps:
        live = check(inputs, pack, moves=False, recorder=_recorder(basis))
        _same(live.result, check(inputs, pack, moves=False).result)
        sites.append(live.result.site_parcel_ids)
        warned.append(any(w.code == "symbol_read_as_point" for w in live.result.warnings))
        basis = live.basis
    assert sites[0] != sites[-1] and sites[1] != sites[-1]  # the flag moved, a site named: another site
    assert warned == [False, False, False, True, False, True, False]


def test_a_narrowed_rules_output_is_the_basis_s_with_the_moved_devices_findings_zones_and_reads():
    """The output of a rule run for the moved devices is ``dataclasses.replace`` of the basis's, written out: every other
    field (each given a value of its own here) is the basis's, but what it read of the devices (not asked of the moved ones)."""
    import dataclasses

    from stormwater_plugin.core.model import Citation, DisplayZone, FeatureRef, Finding, Status
    from stormwater_plugin.services.incremental import RuleOutput, _narrowed

    cite = Citation("§1", "words", "code.txt", "1")
    finding = Finding("r", "device_setback", cite, Status.PASS, FeatureRef("devices", "D1"), None, 1.0, 2.0, "m")
    zone = DisplayZone("setback", "r", "20 ft", 20.0, shapely.Point(0, 0), FeatureRef("devices", "D1"))
    old = RuleOutput((finding,), (zone,), ({"rule_id": "r", "reason": "x"},), (object(),), (object(),), [{"layer": "wells"}], None,  # type: ignore[arg-type]
                     frozenset({"devices"}), True, ("devices", "read before"))
    new_findings, new_zones, read = (finding, finding), (), frozenset({"devices", "wells"})
    assert [f.name for f in dataclasses.fields(RuleOutput)] == ["findings", "zones", "not_checked", "warnings", "building_sites", "inventory",
                                                                 "notification", "read", "sets_inventory", "devices_read"]
    got = _narrowed(old, new_findings, new_zones, read)
    assert got == dataclasses.replace(old, findings=new_findings, zones=new_zones, read=read, devices_read=None)


def test_the_rules_run_for_a_moved_device_read_one_layer_of_it_and_its_extent_once(demo_inputs, monkeypatch):
    """The device rules run for the moved dry well alone read one layer of it (made once per check), so its plausible
    extent (kept per layer object) is read once for the setbacks and the slope; the check equals a full check."""
    from stormwater_plugin.core import engine, extents

    seen: dict[str, list[int]] = {}
    inside: list[str] = []
    for kind in ("device_setback", "device_slope", "vertical_separation"):
        handler = engine.KIND_HANDLERS[kind]

        def wrapped(ctx, rule, handler=handler):
            seen.setdefault(rule.id, []).append(id(dict.__getitem__(ctx.layers, "devices")))
            inside.append(rule.id)
            try:
                return handler(ctx, rule)
            finally:
                inside.pop()

        monkeypatch.setitem(engine.KIND_HANDLERS, kind, wrapped)
    pack = load_pack("lake-george")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    moved = apply_edit(demo_inputs, ("move", "devices", demo_inputs.layers["devices"].ids.index("DW-1"), -1.0, 0.0, None))
    seen.clear()
    calls: list[str] = []
    feature_extent = extents.feature_extent

    def counted(role, *a, **k):
        if inside:
            calls.append(role)
        return feature_extent(role, *a, **k)

    monkeypatch.setattr(extents, "feature_extent", counted)
    live = check(moved, pack, moves=False, recorder=_recorder(first.basis))
    narrowed = [r for r in live.basis.narrowed if r in seen]
    assert len(narrowed) >= 3 and len({seen[r][0] for r in narrowed}) == 1
    assert calls.count("devices") == 1  # the septic setback's and the slope's: one
    monkeypatch.setattr(extents, "feature_extent", feature_extent)
    _same(live.result, check(moved, pack, moves=False).result)


# Rules whose findings depend on the devices only through a part of them (their attributes, the affected area and the
# activity, their rows within the plot-plan distance, those in the clear-cut strip) stop when that part reads as at the
# last check (``CheckContext.devices_read_as_before``), the last check's outputs standing. These moves go far (a device
# carried across the strip, out of the disturbed area, off the site): each such rule's outputs must be a full check's.
_far = st.floats(min_value=-400.0, max_value=400.0, allow_nan=False).map(lambda v: round(v, 1))
_device_moves = st.lists(st.tuples(st.just("move"), st.just("devices"), st.integers(0, 9), st.one_of(_distance, _far), st.one_of(_distance, _far), st.none()),
                         min_size=1, max_size=4)


def _rule_content(out):
    """A rule's outputs by content (a finding's geometry by its WKB)."""
    def wkb(g):
        return None if g is None else shapely.to_wkb(g)

    findings = [(f.rule_id, f.kind, f.status, f.subject, f.other, f.measured_ft, f.required_ft, f.message, wkb(f.geometry),
                 json.dumps(f.extra, sort_keys=True, default=str)) for f in out.findings]
    zones = [(z.kind, z.rule_id, z.label, z.distance_ft, wkb(z.geometry), z.subject) for z in out.zones]
    return findings, zones, list(out.not_checked), [w.as_dict() for w in out.warnings], out.inventory, out.sets_inventory, out.notification


@pytest.mark.parametrize("jurisdiction", ["lake-george", "lgpc", "mamakating"])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=_device_moves)
def test_a_rule_that_reads_the_moved_devices_as_before_gives_a_full_checks_outputs(demo_inputs, jurisdiction, edits):
    for live, full in _live_and_full(demo_inputs, load_pack(jurisdiction), edits, full_recorded=True):
        assert set(live.basis.rules) == set(full.basis.rules)
        for rule_id, out in full.basis.rules.items():
            assert _rule_content(live.basis.rules[rule_id]) == _rule_content(out), rule_id
        _same(live.result, full.result)


def test_a_dry_well_moved_a_foot_leaves_the_rules_that_read_no_more_of_it_as_they_were(demo_inputs):
    """Its storage and id, the affected area and the activity (it stays inside the work), its plot-plan row and the strip's
    devices are as before: those rules stop at that and their outputs are the last check's, the same objects."""
    pack = load_pack("lake-george")
    first = check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    moved = apply_edit(demo_inputs, ("move", "devices", demo_inputs.layers["devices"].ids.index("DW-1"), -1.0, 0.0, None))
    live = check(moved, pack, moves=False, recorder=_recorder(first.basis))
    _same(live.result, check(moved, pack, moves=False).result)
    kinds = {r.id: r.kind for r in pack.rules}
    as_before = {kinds[r] for r in live.basis.replayed if "devices" in live.basis.rules[r].read}
    assert {"area_threshold", "soil_trigger", "storage_volume", "permit_trigger", "plot_plan_inventory", "clear_cut_opening"} <= as_before
    for rule_id in live.basis.replayed:
        assert live.basis.rules[rule_id] is first.basis.rules[rule_id]


def test_a_rule_run_without_an_earlier_check_is_never_told_it_reads_as_before(demo_inputs):
    """A full check (no recorder, or one without a basis) never stops a rule: every rule is run."""
    from stormwater_plugin.core.checks.context import CheckContext

    asked: list[bool] = []
    ask = CheckContext.devices_read_as_before

    def spy(self, rule, key):
        asked.append(ask(self, rule, key))
        return asked[-1]

    pack = load_pack("lake-george")
    import unittest.mock

    with unittest.mock.patch.object(CheckContext, "devices_read_as_before", spy):
        check(demo_inputs, pack, moves=False)
        check(demo_inputs, pack, moves=False, recorder=_recorder(None))
    assert asked and not any(asked)
