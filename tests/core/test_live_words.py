"""The live re-check's words (issue 39, ``services.live``): the state line, the marks, who now complies."""

from __future__ import annotations

from dataclasses import replace as dataclass_replace

from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.model import CheckResult, Citation, FeatureRef, Finding, Status
from stormwater_plugin.services.live import CURRENT, OFF, OUT_OF_DATE, UPDATING, Edit, now_compliant, status_text

CITE = Citation("§148-11I(2)(c)", "20 feet", "chapter-148.md", "2024")


def _setback(device: str, other: str, status: Status, measured: float) -> Finding:
    return Finding("lake-george.minor.septic-upgradient-20", "device_setback", CITE, status, FeatureRef("devices", device),
                   FeatureRef("septic", other), measured, 20.0, "")


def _result(*findings: Finding) -> CheckResult:
    return CheckResult("lake-george", "Lake George", "1", "minor", "computed", None, list(findings), [],
                       {"within_500ft": [], "adjacent": [], "notify": []}, [], [], [], ())  # type: ignore[typeddict-item]


def test_the_state_line_says_which_edit_the_findings_reflect_and_nothing_for_the_check_as_run():
    edit = Edit(4, "building_sites", "geometry of feature 3")
    assert status_text(CURRENT, edit) == "live: current at edit 4 (building sites: geometry of feature 3)"
    assert status_text(CURRENT, None) == ""
    assert status_text(UPDATING, edit).startswith("live: updating for edit 4")
    assert status_text(OFF, edit) == "live off: out of date since edit 4 (building sites: geometry of feature 3), press Run"
    assert status_text(OUT_OF_DATE, None, "the site parcel id changed") == "out of date: the site parcel id changed, press Run"


def test_dw1_moved_from_19_9_to_20_1_ft_now_meets_every_setback():
    before = _result(_setback("DW-1", "S-1", Status.VIOLATION, 19.9), _setback("DW-2", "S-1", Status.PASS, 80.0))
    after = _result(_setback("DW-1", "S-1", Status.PASS, 20.1), _setback("DW-2", "S-1", Status.PASS, 80.0))
    assert now_compliant(before, after) == ["DW-1 now meets every setback"]  # DW-2 met them before: not named


def test_a_device_with_one_setback_still_undetermined_is_not_said_to_comply():
    before = _result(_setback("DW-1", "S-1", Status.VIOLATION, 14.0), _setback("DW-1", "S-2", Status.VIOLATION, 15.0))
    after = _result(_setback("DW-1", "S-1", Status.PASS, 20.1), _setback("DW-1", "S-2", Status.UNDETERMINED, 20.0))
    assert now_compliant(before, after) == []
    assert now_compliant(None, after) == []


def test_a_setback_naming_two_devices_or_a_device_as_its_other_feature_counts_for_each():
    joined = Finding("lake-george.minor.septic-upgradient-20", "device_setback", CITE, Status.VIOLATION, FeatureRef("devices", "DW-1+DW-2"),
                     FeatureRef("septic", "S-1"), 10.0, 20.0, "")
    other = Finding("lake-george.minor.device-device", "device_setback", CITE, Status.VIOLATION, FeatureRef("septic", "S-1"),
                    FeatureRef("devices", "DW-3"), 10.0, 20.0, "")
    before = _result(joined, other, _setback("DW-1", "S-2", Status.PASS, 30.0), _setback("DW-2", "S-2", Status.PASS, 30.0),
                     _setback("DW-3", "S-2", Status.PASS, 30.0))
    after = _result(_setback("DW-1", "S-2", Status.PASS, 30.0), dataclass_replace(joined, status=Status.PASS), _setback("DW-2", "S-2", Status.PASS, 30.0),
                    _setback("DW-3", "S-2", Status.PASS, 30.0), dataclass_replace(other, status=Status.UNDETERMINED))
    # DW-1 and DW-2 met none before (the joined finding) and all now; DW-3's setback with S-1 is undetermined now
    assert now_compliant(before, after) == ["DW-1 now meets every setback", "DW-2 now meets every setback"]


def test_the_full_checks_statuses_kept_are_read_again_when_its_findings_are_others_or_in_another_order():
    """The last full check's statuses are kept with its findings (``services.live._BEFORE``): another full check (other findings,
    one finding more or fewer, the same in another order) is read anew."""
    after = _result(_setback("DW-1", "S-1", Status.PASS, 20.1), _setback("DW-2", "S-1", Status.PASS, 80.0))
    violation, passes = _setback("DW-1", "S-1", Status.VIOLATION, 19.9), _setback("DW-2", "S-1", Status.PASS, 80.0)
    other = _setback("DW-2", "S-1", Status.VIOLATION, 19.0)
    assert now_compliant(_result(violation, passes), after) == ["DW-1 now meets every setback"]
    assert now_compliant(_result(violation, passes), after) == ["DW-1 now meets every setback"]  # the same findings: kept
    assert now_compliant(_result(violation, other), after) == ["DW-1 now meets every setback", "DW-2 now meets every setback"]
    assert now_compliant(_result(passes), after) == []  # one finding fewer
    assert now_compliant(_result(passes, violation), after) == ["DW-1 now meets every setback"]
    assert now_compliant(_result(passes, dataclass_replace(violation, status=Status.PASS)), after) == []  # another finding object
    assert now_compliant(_result(), after) == []


_POOL = [_setback("DW-1", "S-1", Status.VIOLATION, 19.9), _setback("DW-1", "S-1", Status.PASS, 20.1), _setback("DW-1", "W-1", Status.PASS, 120.0),
         _setback("DW-2", "S-1", Status.UNDETERMINED, 20.0), _setback("DW-2", "S-1", Status.PASS, 25.0), _setback("DW-3", "W-1", Status.VIOLATION, 90.0)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, len(_POOL) - 1), max_size=5), st.lists(st.integers(0, len(_POOL) - 1), max_size=5),
                          st.booleans()), min_size=1, max_size=6))
def test_now_compliant_of_the_same_findings_again_is_what_it_reads_anew(pairs):
    """Property: the words kept for the same finding objects in the same order, before and now (``live._LAST``), are those read
    anew, over any sequence of results (the same lists again, other objects of equal content, other lists)."""
    from stormwater_plugin.services import live

    last = None
    for was, now, again in pairs:
        before, after = _result(*[_POOL[n] for n in was]), _result(*[_POOL[n] for n in now])
        if again and last is not None:
            before, after = last  # the same results again (an edit that changed no finding)
        got = now_compliant(before, after)
        live._LAST = None
        live._BEFORE = None
        assert got == now_compliant(before, after)
        last = (before, after)
