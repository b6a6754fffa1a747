"""The findings table for a reviewer's habits (issue 28): problems first with passes folded, text search, a view that frames the measurement."""

from __future__ import annotations

import pytest
from conftest import demo_layers, wait_for
from qgis.core import QgsPointXY, QgsProject

FT_PER_M = 1 / 0.3048


@pytest.fixture()
def ran(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    dock = ReviewDock(iface)
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
    dock.roles.z_units.setCurrentIndex(dock.roles.z_units.findData("m"))
    canvas = iface.mapCanvas()
    canvas.setDestinationCrs(dem.crs())
    canvas.resize(600, 400)
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None, 120)
    wait_for(lambda: dock.moves_task is None, 120)
    assert dock.result is not None
    yield dock, layers
    dock.teardown()
    QgsProject.instance().removeAllMapLayers()


def _tops(dock):
    tree = dock.findings.tree
    return [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]


def test_rules_with_violations_come_first_and_rules_of_passes_only_are_folded(ran):
    dock, _ = ran
    from stormwater_plugin.core.model import Finding
    from stormwater_plugin.gui.findings_tree import FINDING_ROLE

    ranks = []
    for top in _tops(dock):
        fs = [top.child(i).data(0, FINDING_ROLE) for i in range(top.childCount())]
        fs = [f for f in fs if isinstance(f, Finding)]
        if fs:
            ranks.append(min(f.status.rank for f in fs))
            if all(f.status.value == "pass" for f in fs):
                assert not top.isExpanded()  # folded, one click away
            if any(f.status.value in ("violation", "undetermined") for f in fs):
                assert top.isExpanded()
    assert ranks == sorted(ranks)


def test_search_shows_only_the_findings_naming_dw_1_and_clearing_it_shows_all_again(ran):
    dock, _ = ran
    from stormwater_plugin.gui.findings_tree import FINDING_ROLE

    ft = dock.findings
    total = len(ft._finding_items())
    ft.search.setText("dw-1  SEPTIC")
    items = ft._finding_items()
    assert 0 < len(items) < total
    for it in items:
        f = it.data(0, FINDING_ROLE)
        text = " ".join([f.subject.id if f.subject else "", f.other.layer if f.other else "", f.message, f.rule_id]).lower()
        assert "dw-1" in text and "septic" in text
    assert all(t.isExpanded() for t in _tops(dock) if t.childCount() and t.child(0).data(0, FINDING_ROLE) is not None)
    ft.search.clear()
    assert len(ft._finding_items()) == total


def test_a_shoreline_row_frames_the_measurement_not_the_whole_shoreline_and_a_move_row_is_not_shown_at_1_to_24(ran):
    dock, layers = ran
    from stormwater_plugin.gui.dock import MIN_VIEW_FT

    canvas = dock.iface.mapCanvas()
    shore = layers["shoreline"].extent()
    shore_span = max(shore.width(), shore.height())
    f = next(f for f in dock.result.findings if f.other is not None and f.other.layer == "shoreline" and f.geometry is not None
             and not f.geometry.is_empty)
    dock.locate(f)
    e = canvas.extent()
    assert max(e.width(), e.height()) < shore_span / 2
    assert e.contains(QgsPointXY(f.geometry.centroid.x, f.geometry.centroid.y))  # where the distance was measured
    m = next(m for m in dock.moves if m.drawable)
    dock.locate_move(m)
    e = canvas.extent()
    assert max(e.width(), e.height()) * FT_PER_M >= MIN_VIEW_FT * 0.99


def test_two_selected_violations_are_waived_at_once_with_one_reason(ran):
    dock, _ = ran
    from stormwater_plugin.gui.findings_tree import FINDING_ROLE

    ft = dock.findings
    rows = [it for it in ft._finding_items() if it.data(0, FINDING_ROLE).status.value == "violation"][:2]
    assert len(rows) == 2
    ft.tree.setCurrentItem(rows[0])
    rows[1].setSelected(True)
    keys = [k for _f, k, _o in ft.selected()]
    assert len(keys) == 2
    assert dock.decide("waived", "variance granted 2026-02-01", "A. Reviewer")
    decided = {o.key: o for o in dock.overrides.overrides}
    assert set(keys) <= set(decided) and {decided[k].reason for k in keys} == {"variance granted 2026-02-01"}
    assert dock.doc["override_counts"]["violations_overridden"] == 2
