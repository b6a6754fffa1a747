"""The dock's completeness box: an equal section leaves the list as the reviewer arranged it; another one redraws it."""

from __future__ import annotations

import copy


def _section(missing: list[str]) -> dict:
    items = [{"id": "plot_plan", "what": "plot plan", "status": "shown", "citation": "6 NYCRR 646-4.13(a)", "excerpt": "a plot plan"},
             {"id": "device_size", "what": "device dimensions", "status": "missing" if missing else "shown", "missing": missing,
              "citation": "6 NYCRR 646-4.13(a)(7)", "excerpt": "the location and dimensions"}]
    return {"complete": not missing, "missing": missing, "summary": "complete" if not missing else "incomplete", "items": items}


def test_an_equal_section_keeps_the_rows_and_their_expansion(qgis_new_project):
    from stormwater_plugin.gui.completeness_box import CompletenessBox

    box = CompletenessBox()
    box.set_section(_section(["the footprint of device DW-1"]))
    rows = [box.items.topLevelItem(k) for k in range(box.items.topLevelItemCount())]
    assert rows[1].isExpanded()
    rows[1].setExpanded(False)  # the reviewer folded it
    box.set_section(copy.deepcopy(_section(["the footprint of device DW-1"])))  # a live re-check: the same list
    assert [box.items.topLevelItem(k) for k in range(box.items.topLevelItemCount())] == rows
    assert not rows[1].isExpanded()
    assert box.title() == "Submission completeness: incomplete (1 missing)"


def test_another_section_redraws_the_list(qgis_new_project):
    from stormwater_plugin.gui.completeness_box import CompletenessBox

    box = CompletenessBox()
    box.set_section(_section(["the footprint of device DW-1"]))
    box.set_section(_section([]))
    assert box.title() == "Submission completeness: complete"
    assert box.items.topLevelItem(1).text(1) == "shown" and box.items.topLevelItem(1).childCount() == 0
    box.set_section(None)
    assert box.items.topLevelItemCount() == 0 and box.title() == "Submission completeness"
    box.set_section(_section([]))  # after None, the same section as before is drawn again
    assert box.items.topLevelItemCount() == 2
