"""An edited layer's live read made from the read before it equals a whole read (issue 39).

The live plan hands the live read, for an edited layer's new feature source, the source taken of it before and the edit
buffer as each holds it (``gui.live_plan``); when only geometries changed between the two (``qgis_bridge.edit_state``),
the live read takes the earlier read's features with those geometries converted anew (``gui.live_read``). Over random sequences of edits as a
reviewer makes them in QGIS (a device moved, its geometry cleared, an attribute changed, a feature added or deleted,
undo, redo, a commit that keeps editing, a rollback), each read through the live memo equals a whole read of a fresh
source of the layer: the same features in the same order, ids, attributes and geometries (their WKB), and warnings.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
import shapely
from conftest import DEMO_GPKG
from edit_ops import apply_edit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qgis.core import QgsGeometry, QgsPointXY, QgsProject, QgsVectorLayer


def _devices() -> QgsVectorLayer:
    if not DEMO_GPKG.is_file():
        pytest.skip("resources/demo/site.gpkg does not exist yet (built by scripts/make_demo_site.py)")
    folder = Path(tempfile.mkdtemp(prefix="stormwater-edited-"))
    shutil.copy2(DEMO_GPKG, folder / "site.gpkg")  # its own copy: a commit writes to it
    layer = QgsVectorLayer(f"{folder / 'site.gpkg'}|layername=devices", "devices", "ogr")
    assert layer.isValid()
    return layer


def _live(memo, source, warnings, edited_from=None):
    from stormwater_plugin.gui.live_read import live_readers

    return live_readers(memo, edited_from)[0](source, "devices", source.sourceCrs(), QgsProject.instance().transformContext(), warnings)


def _taken(layer):
    """A feature source of ``layer`` and its edit buffer, as the live plan takes them."""
    from stormwater_plugin.qgis_bridge.edit_state import edit_state
    from stormwater_plugin.qgis_bridge.snapshot import DetachedSource

    return DetachedSource(layer), edit_state(layer)


def _whole(layer, warnings):
    from stormwater_plugin.qgis_bridge.snapshot import DetachedSource
    from stormwater_plugin.qgis_bridge.vectors import read_features

    source = DetachedSource(layer)
    return read_features(source, "devices", source.sourceCrs(), QgsProject.instance().transformContext(), warnings)


def _content(frame):
    return (frame.fids, frame.records, frame.columns, [None if g is None else shapely.to_wkb(g) for g in frame.geoms], frame.rect,
            frame.unusable, frame.restored)


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("move"), st.integers(0, 9), st.floats(-60, 60), st.floats(-60, 60)),
        st.tuples(st.just("move"), st.integers(0, 9), st.floats(-60, 60), st.floats(-60, 60)),  # the commonest edit, drawn twice as often
        st.tuples(st.just("null"), st.integers(0, 9)),
        st.tuples(st.just("attr"), st.integers(0, 9), st.sampled_from(["device_type", "id"]), st.sampled_from(["dry_well", "infiltration_trench", "X-1"])),
        st.tuples(st.just("add"), st.floats(-40, 40)),
        st.tuples(st.just("delete"), st.integers(0, 9)),
        st.just(("undo",)),
        st.just(("redo",)),
        st.just(("commit",)),
        st.just(("rollback",)),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=_OPS)
def test_after_any_edit_sequence_the_live_read_of_the_edited_layer_equals_a_whole_read(qgis_app, ops):
    from stormwater_plugin.services.live_read import ReadMemo

    layer = _devices()
    assert layer.startEditing()
    memo = ReadMemo()
    source, state = _taken(layer)
    _live(memo, source, [])
    for op in ops:
        apply_edit(layer, op)
        new, now = _taken(layer)
        edited_from = {new: (source, state, now)}  # as the live plan hands it on
        memo, source, state = ReadMemo(memo.made), new, now
        got_warnings: list = []
        want_warnings: list = []
        got = _live(memo, source, got_warnings, edited_from)
        want = _whole(layer, want_warnings)
        assert _content(got) == _content(want), op
        assert got_warnings == want_warnings
    layer.rollBack()


def test_a_moved_device_is_read_from_the_read_before_and_anything_else_is_read_whole(qgis_app, monkeypatch):
    from stormwater_plugin.qgis_bridge import snapshot
    from stormwater_plugin.services.live_read import ReadMemo

    whole: list[int] = []
    original = snapshot.read_features
    monkeypatch.setattr(snapshot, "read_features", lambda *a, **k: (whole.append(1), original(*a, **k))[1])
    layer = _devices()
    assert layer.startEditing()
    memo = ReadMemo()
    source, state = _taken(layer)
    _live(memo, source, [])
    assert len(whole) == 1

    def edit_and_read(op) -> bool:
        """Whether the live read read the layer whole after ``op`` (checked against a whole read either way)."""
        nonlocal memo, source, state
        apply_edit(layer, op)
        new, now = _taken(layer)
        edited_from = {new: (source, state, now)}
        memo, source, state = ReadMemo(memo.made), new, now
        before = len(whole)
        got = _live(memo, source, [], edited_from)
        assert _content(got) == _content(_whole(layer, []))
        return len(whole) > before

    assert not edit_and_read(("move", 0, 1.0, 0.0))  # a move: made from the read before
    assert not edit_and_read(("move", 0, 1.0, 0.0))  # moved again
    assert not edit_and_read(("move", 1, 0.0, -2.0))  # another device
    assert not edit_and_read(("null", 2))  # a geometry cleared
    assert edit_and_read(("attr", 0, "device_type", "infiltration_trench"))  # an attribute changed: read whole
    assert not edit_and_read(("move", 0, 1.0, 0.0))
    assert not edit_and_read(("undo",))  # that move undone: the geometry edited before it
    assert edit_and_read(("undo",))  # the attribute change undone
    assert edit_and_read(("undo",))  # the cleared geometry undone: back to the file's, which no source here holds
    assert edit_and_read(("add", 5.0))  # a feature added
    assert edit_and_read(("rollback",))  # every edit rolled back
    assert not edit_and_read(("move", 3, 1.0, 0.0))
    assert edit_and_read(("commit",))  # committed: the buffer emptied, the file holds the move
    assert not edit_and_read(("move", 3, 1.0, 0.0))
    layer.rollBack()


def test_each_part_of_the_edit_buffer_but_a_geometry_it_changes_makes_the_source_read_whole(qgis_app):
    from dataclasses import replace

    from stormwater_plugin.qgis_bridge.edit_state import EditState, geometry_changes

    a = QgsGeometry.fromPointXY(QgsPointXY(1.0, 2.0))
    b = QgsGeometry.fromPointXY(QgsPointXY(1.0, 2.5))
    base = EditState((("fid", 0), ("id", 0)), 5, frozenset(), (), {1: (bytes(a.asWkb()), a)})
    assert geometry_changes(base, base) == {}
    moved = geometry_changes(base, replace(base, geometries={1: (bytes(b.asWkb()), b), 2: (bytes(a.asWkb()), a)}))
    assert moved is not None and sorted(moved) == [1, 2] and moved[1].asWkb() == b.asWkb()  # one moved again, one newly moved
    assert geometry_changes(base, replace(base, geometries={1: (None, QgsGeometry())}))[1].isNull()  # cleared
    assert geometry_changes(base, replace(base, geometries={})) is None  # back to the file's geometry
    assert geometry_changes(base, replace(base, fields=(("fid", 0), ("id", 0), ("note", 1)))) is None
    assert geometry_changes(base, replace(base, count=6)) is None
    assert geometry_changes(base, replace(base, deleted=frozenset({3}))) is None
    assert geometry_changes(base, replace(base, attributes=((1, 1, "str", "'X'"),))) is None
    assert geometry_changes(None, base) is None and geometry_changes(base, None) is None


def test_a_layer_above_the_feature_cap_is_read_whole_its_buffer_not_taken_on_the_main_thread(qgis_app, monkeypatch):
    from stormwater_plugin.qgis_bridge import edit_state as module

    layer = _devices()
    assert layer.startEditing()
    n = layer.featureCount()
    monkeypatch.setattr(module, "MAX_FEATURES", n)
    assert module.edit_state(layer) is not None  # at the cap: taken
    monkeypatch.setattr(module, "MAX_FEATURES", n - 1)
    assert module.edit_state(layer) is None  # one feature over: the source is read whole
    layer.rollBack()
