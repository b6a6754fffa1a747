"""An edited layer's extent carried by the live plan equals the layer's own (issue 39).

QGIS reads every feature of a layer whose edit buffer deletes or changes a geometry to give its extent; the live plan takes
it from the source before instead when only geometries changed and the moved features lay strictly inside that extent and
still lie within it (``gui.live_plan.carried_extent``). Over random edit sequences (moves small and large, to and from a side
of the extent, cleared geometries, attributes, features added and deleted, undo, redo, commit, rollback), whenever it is
carried it equals ``layer.extent()`` to the bit, and the source as the read describes it (name, CRS, count, fields, extent,
its fit to the CRS) equals the one described from a source taken with the layer's own extent.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import fields
from pathlib import Path

import pytest
from conftest import DEMO_GPKG
from edit_ops import apply_edit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qgis.core import QgsGeometry, QgsPointXY, QgsProject, QgsVectorLayer


def _devices() -> QgsVectorLayer:
    if not DEMO_GPKG.is_file():
        pytest.skip("resources/demo/site.gpkg does not exist yet (built by scripts/make_demo_site.py)")
    folder = Path(tempfile.mkdtemp(prefix="stormwater-extent-"))
    shutil.copy2(DEMO_GPKG, folder / "site.gpkg")  # its own copy: a commit writes to it
    layer = QgsVectorLayer(f"{folder / 'site.gpkg'}|layername=devices", "devices", "ogr")
    assert layer.isValid()
    return layer


def _rect(r) -> tuple[float, float, float, float] | None:
    return None if r.isNull() else (r.xMinimum(), r.yMinimum(), r.xMaximum(), r.yMaximum())


def _described(source) -> dict:
    from stormwater_plugin.qgis_bridge.snapshot import describe_source

    info = describe_source(source, "devices", QgsProject.instance().transformContext())
    out = {f.name: getattr(info, f.name) for f in fields(info) if f.name != "handle"}
    out["crs"] = out["crs"].toWkt()
    return out


_SMALL = st.floats(-2, 2)
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("move"), st.integers(0, 9), _SMALL, _SMALL),  # a nudge, mostly inside the extent (carried)
        st.tuples(st.just("move"), st.integers(0, 9), _SMALL, _SMALL),
        st.tuples(st.just("move"), st.integers(0, 9), st.floats(-60, 60), st.floats(-60, 60)),  # past a side: grows or shrinks it
        st.tuples(st.just("move"), st.sampled_from([0, 4]), st.sampled_from([0.0, 1e-9, -1e-9]), st.sampled_from([0.0, 5.0])),
        st.tuples(st.just("null"), st.integers(0, 9)),
        st.tuples(st.just("attr"), st.integers(0, 9), st.just("device_type"), st.sampled_from(["dry_well", "infiltration_trench"])),
        st.tuples(st.just("add"), st.floats(-60, 60)),
        st.tuples(st.just("delete"), st.integers(0, 9)),
        st.just(("undo",)),
        st.just(("redo",)),
        st.just(("commit",)),
        st.just(("rollback",)),
    ),
    min_size=1,
    max_size=10,
)


def _step(layer, source, state, op):
    """``op`` applied, then the source taken as the live plan takes it; checked against the layer's own extent."""
    from stormwater_plugin.gui.live_plan import carried_extent
    from stormwater_plugin.qgis_bridge.edit_state import edit_state
    from stormwater_plugin.qgis_bridge.snapshot import DetachedSource

    apply_edit(layer, op)
    now = edit_state(layer)
    carried = carried_extent(source.sourceExtent(), state, now)
    new = DetachedSource(layer, carried)
    own = DetachedSource(layer)
    if carried is not None:
        assert _rect(carried) == _rect(layer.extent()), op
    assert _described(new) == _described(own), op
    return new, now, carried is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=_OPS)
def test_an_extent_carried_over_any_edit_sequence_equals_the_layers(qgis_app, ops):
    from stormwater_plugin.qgis_bridge.edit_state import edit_state
    from stormwater_plugin.qgis_bridge.snapshot import DetachedSource

    layer = _devices()
    assert layer.startEditing()
    source, state = DetachedSource(layer), edit_state(layer)
    for op in ops:
        source, state, _ = _step(layer, source, state, op)
    layer.rollBack()


def test_a_nudge_inside_is_carried_and_anything_reaching_a_side_is_asked_of_the_layer(qgis_app):
    from stormwater_plugin.qgis_bridge.edit_state import edit_state
    from stormwater_plugin.qgis_bridge.snapshot import DetachedSource

    layer = _devices()
    assert layer.startEditing()
    ids = {f["id"]: n for n, f in enumerate(layer.getFeatures())}
    inner, side = ids["DW-1"], ids["PP-1"]  # DW-1 lies inside the devices' extent, PP-1 reaches its west side
    source, state = DetachedSource(layer), edit_state(layer)

    def carried(op) -> bool:
        nonlocal source, state
        source, state, was_carried = _step(layer, source, state, op)
        return was_carried

    assert not carried(("move", inner, -1.0, 0.0))  # the first move: the buffer held no geometry (the layer gave the file's extent)
    assert carried(("move", inner, 1.0, 0.0))  # moved again, inside: carried
    assert carried(("move", inner, -1.0, 0.0))
    assert not carried(("move", side, 1.0, 0.0))  # the file's geometry of PP-1, not held
    assert not carried(("move", side, 1.0, 0.0))  # PP-1 reached the west side: the extent may shrink
    assert not carried(("move", inner, -200.0, 0.0))  # out past the west side: it grows
    assert not carried(("move", inner, 200.0, 0.0))  # back from the side: it shrinks
    assert carried(("move", inner, 0.5, 0.0))  # inside again
    assert not carried(("delete", ids["DW-2"]))
    assert not carried(("add", 1.0))
    assert not carried(("undo",))
    assert not carried(("commit",))
    layer.rollBack()


def test_the_live_plan_of_a_nudged_device_carries_its_extent_and_plans_what_a_fresh_plan_plans(live_demo_dock, monkeypatch):
    """Through the dock's live loop: the edited layer's source, described, and what the plan says it read equal a fresh plan's,
    and the findings a full check's, whether its extent was carried (a nudge inside) or asked of the layer (a move past a side)."""
    from conftest import wait_for

    from stormwater_plugin.gui import live_plan
    from stormwater_plugin.gui.dock_source import dock_source
    from stormwater_plugin.services.site_source import check_site

    dock, layers, _dem = live_demo_dock
    devices = layers["devices"]
    carried: list[bool] = []
    original = live_plan.carried_extent
    monkeypatch.setattr(live_plan, "carried_extent", lambda *a: (lambda got: (carried.append(got is not None), got)[1])(original(*a)))
    fid = next(f.id() for f in devices.getFeatures() if f["id"] == "DW-1")
    assert devices.startEditing()
    for dx in (-1.0, 1.0, -0.5, -300.0, 300.0, 0.25):
        p = devices.getFeature(fid).geometry().asPoint()
        edits = dock.live.edits
        devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(p.x() + dx, p.y())))
        wait_for(lambda edits=edits: dock.live.task is None and dock.live.state == "current" and dock.live.shown_edit is not None
                 and dock.live.shown_edit.number > edits, 180)
        source = dock.live.planner._states["devices"][0]
        planned, options = dock_source(dock, quiet=True)
        fresh = planned.snapshot_plan
        assert _described(source) == _described(fresh.sources["devices"]), dx
        assert _rect(source.sourceExtent()) == _rect(devices.extent()), dx
        assert dock.live.planner._kept["devices"][2] == fresh.layers_read["devices"], dx
        full = check_site(planned, fresh.pack, options).review.doc
        assert [(f["key"], f["status"], f.get("measured_ft")) for f in dock.doc["findings"]] == \
            [(f["key"], f["status"], f.get("measured_ft")) for f in full["findings"]], dx
    assert True in carried and False in carried, carried  # both ways were taken
