"""The applicant's words (issue 37.3): a finding's message without the method, and a rule's notes as one comment."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.services.letter import FYI, LetterHeader, compose_letter
from stormwater_plugin.services.letter_words import internal_words_in, merge, plain

IT1 = ("device IT-1 is 16.5 ft from septic system S-1 (required 20 ft); measured between the nearest part of the device and part of it "
       "where it is downgradient of the device or level: ground is level within 0.5 ft (device -0.50 ft); taken as the reading under which "
       "the rule applies there; its nearest point, 12.0 ft away, reads: the device is downgradient, its ground 0.8 ft below the septic "
       "system's, but the rule covers any part within 20 ft: 3.5 ft short.")


def test_the_method_of_a_level_ground_reading_is_left_to_the_report_and_the_shortfall_kept():
    assert plain(IT1) == "Device IT-1 is 16.5 ft from septic system S-1 (required 20 ft): 3.5 ft short."


def test_the_slope_algorithm_and_the_engines_layer_names_never_reach_the_applicant():
    slope = ("Device PP-1: the existing ground under its footprint slopes up to 25.9% (steepest DEM cell, Horn), over 15% before grading: "
             "the measure must be designed by a qualified stormwater professional (Town of Lake George Code §148-11I(2)(g)).")
    assert "Horn" not in plain(slope) and "DEM" not in plain(slope) and "(Town of Lake George Code §148-11I(2)(g))" in plain(slope)
    plot = "It must also show the site topography and existing structures, which no input layer carries (building_sites are the proposed ones)."
    assert plain(plot) == "It must also show the site topography and existing structures."
    assert plain("the device's type is not set: set devices.device_type.") == "The device's type is not set: set the device's device type."
    assert plain("the frost depth is not known (the pack holds no sourced figure for it): give it with --frost-depth-ft.") == \
        "The frost depth is not known."


def test_a_class_prefix_is_removed_the_letter_groups_by_class_instead():
    assert plain("If the project is major (the class is not decided: minor or major): device DW-1 is 5.0 ft short.") == "Device DW-1 is 5.0 ft short."


_IDS = st.lists(st.from_regex(r"[A-Z]{1,2}-[1-9][0-9]?", fullmatch=True), min_size=1, max_size=12, unique=True)


@settings(max_examples=60, deadline=None)
@given(ids=_IDS, ft=st.floats(min_value=0.0, max_value=499.0, allow_nan=False))
def test_the_notes_of_one_rule_are_one_comment_listing_each_feature_once_and_no_sentence_twice(ids, ft):
    rule = "lgpc.minor.clearing-cover-24h"
    findings = [
        {"key": f"{rule}|clearing:{i}|shoreline:SH-1", "rule_id": rule, "kind": "clearing_near_water", "status": "advisory",
         "citation": "6 NYCRR 646-4.15(b)", "subject": {"layer": "clearing", "id": i}, "other": {"layer": "shoreline", "id": "SH-1"},
         "measured_ft": ft, "message": f"clearing {i} is {ft:.1f} ft from shoreline SH-1, within 500 ft: cleared ground must be covered "
                                       "or protected within 24 hours."}
        for i in ids
    ]
    letter = compose_letter({"findings": findings}, LetterHeader(title="T"))
    assert not letter.comments and len(letter.fyi) == 1
    c = letter.fyi[0]
    assert c.part == FYI and c.text.count("within 24 hours") == 1
    if len(ids) == 1:  # one feature: its own sentence says where
        assert not c.features and f"Clearing {ids[0]}" in c.text
    else:
        assert [f.split(",")[0] for f in c.features] == [f"clearing {i}" for i in ids] and "clearing " not in c.text
    assert internal_words_in(c.text + " ".join(c.features)) == []


@given(n=st.integers(min_value=2, max_value=8))
def test_merge_keeps_the_shared_words_once(n):
    msgs = [f"Head: item {k} is here: tail words." for k in range(n)]
    text, items = merge(msgs, [""] * n)
    assert text == "Head: tail words." and items == [f"item {k} is here" for k in range(n)]
