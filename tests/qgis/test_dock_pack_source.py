"""The dock names the text each rule pack encodes (issue 34 item 11): the rule-pack choice's tooltip."""

from __future__ import annotations

from qgis.PyQt.QtCore import Qt


def test_each_rule_pack_entry_says_which_text_it_encodes_and_the_lgpc_one_that_the_reviewer_confirms_it(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    d = ReviewDock(iface)
    try:
        tips = {d.jurisdiction.itemData(i): d.jurisdiction.itemData(i, Qt.ItemDataRole.ToolTipRole) for i in range(d.jurisdiction.count())}
        assert set(tips) == {"lgpc", "lake-george", "mamakating"}
        for j, tip in tips.items():
            assert tip.startswith("Text encoded:") and "read 2026-11-30" in tip, j
        assert "100 ft" in tips["lgpc"] and "1 April 2021" in tips["lgpc"] and "confirm" in tips["lgpc"]
    finally:
        d.teardown()
