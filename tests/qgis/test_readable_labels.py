"""Issue 36 item 6: the findings table names rules as the law does and sizes its columns to their content."""

from __future__ import annotations

import pytest
from conftest import demo_layers, wait_for
from qgis.core import QgsProject


@pytest.fixture()
def checked(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, _dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()))  # no DEM: the slope and gradient rules are not checked
    dock = ReviewDock(iface)
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None and dock.moves_task is None, 120)
    yield dock
    dock.teardown()
    QgsProject.instance().removeAllMapLayers()


def _top(tree, prefix):
    return next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0).startswith(prefix))


def test_rules_not_checked_are_named_by_section_and_title_not_by_internal_id(checked):
    tree = checked.findings.tree
    top = _top(tree, "Rules not checked")
    assert top.childCount() > 0
    for k in range(top.childCount()):
        child = top.child(k)
        assert not child.text(0).startswith("lake-george."), child.text(0)
        assert "§" in child.text(0) or "NYCRR" in child.text(0)
        assert "lake-george." in child.toolTip(0)  # the id is still one hover away


def test_columns_are_as_wide_as_their_content_within_bounds(checked):
    from stormwater_plugin.gui.findings_tree import COLUMN_BOUNDS

    tree = checked.findings.tree
    metrics = tree.fontMetrics()
    for col in (1, 2, 3, 4):
        texts = []
        for i in range(tree.topLevelItemCount()):
            top = tree.topLevelItem(i)
            texts += [top.child(k).text(col) for k in range(top.childCount())]
        widest = max((metrics.horizontalAdvance(t) for t in texts if t), default=0)
        low, high = COLUMN_BOUNDS[col]
        assert tree.columnWidth(col) >= min(widest, high), (col, tree.columnWidth(col), widest)
        assert low <= tree.columnWidth(col) <= high
