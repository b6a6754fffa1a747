"""Accuracy-aware findings (issue 18): a pass inside the data's accuracy is undetermined; a violation is near the limit."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.accuracy import accuracy_table, combined_accuracy, feature_accuracy
from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs, Status
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.serialize import result_to_dict
from tests.sitebuilder import device, layer, pairs_for, plane_dem, septic_square

# Devices, wells and streams are drawn as points and lines for brevity, read as their edges: what they plausibly stand for
# is tested in tests/core/test_extents*.py.
pytestmark = pytest.mark.usefixtures("drawn_edges")

RULE = "lgpc.minor.septic-upgradient-20"


def _run(distance_ft, *, septic_attrs=None, device_attrs=None, accuracy=None, dem_accuracy=None, dem=None, project_class="minor"):
    g, a = device(10.0 + distance_ft, 0.0, **(device_attrs or {}))
    layers = {
        "septic": layer("septic", [septic_square()], ["S1"], [septic_attrs or {}]),
        "devices": layer("devices", [g], ["D1"], [a]),
    }
    dem = dem or plane_dem(-200, -200, 400, 2.0, gx=0.05, gy=0.0)
    inputs = SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override=project_class, accuracy_ft=accuracy or {},
                        dem_vertical_accuracy_ft=dem_accuracy)
    return run_check(inputs, load_pack("lgpc"))


def test_pass_at_20_4_ft_with_a_septic_field_good_to_10_ft_is_undetermined_646_4_14_a_3():
    result = _run(20.4, accuracy={"septic": 10.0})
    (f,) = pairs_for(result, RULE)
    assert f.status is Status.UNDETERMINED
    assert f.extra["margin_ft"] == pytest.approx(0.4)
    assert f.extra["accuracy_ft"] == 10.0
    assert f.extra["near_limit"] is True
    assert "field-verify" in f.message and "±10.0 ft" in f.message and "20.4 ft against 20.0 ft" in f.message


def test_violation_at_19_6_ft_inside_the_accuracy_stays_a_violation_marked_near_limit():
    (f,) = pairs_for(_run(19.6, accuracy={"septic": 10.0}), RULE)
    assert f.status is Status.VIOLATION
    assert f.extra["near_limit"] is True
    assert "Near the limit" in f.message


@pytest.mark.parametrize("distance,expected", [(22.9, Status.UNDETERMINED), (23.0, Status.UNDETERMINED), (23.1, Status.PASS)])
def test_within_20_ft_a_pass_whose_margin_equals_the_accuracy_is_undetermined_646_4_14_a_3(distance, expected):
    """"Shall not be installed up gradient within twenty (20) feet", septic field good to 3 ft: at 23.0 ft it may be 20.00 ft
    away, which is within (core.limits: "within" includes the limit), so the pass cannot be told; at 23.1 ft it cannot."""
    (f,) = pairs_for(_run(distance, accuracy={"septic": 3.0}), RULE)
    assert f.status is expected
    assert f.extra["near_limit"] is (expected is Status.UNDETERMINED)


@pytest.mark.parametrize("distance,near", [(16.9, False), (17.0, False), (17.1, True)])
def test_within_20_ft_a_violation_whose_margin_equals_the_accuracy_is_not_near_the_limit_646_4_14_a_3(distance, near):
    """Accuracy 3 ft: a device 17.0 ft from the septic field is at best 20.00 ft from it, still within 20 feet; at 17.1 ft it may be
    20.1 ft away, outside: near the limit."""
    (f,) = pairs_for(_run(distance, accuracy={"septic": 3.0}), RULE)
    assert f.status is Status.VIOLATION
    assert f.extra["near_limit"] is near


MINIMUM_RULE = "lgpc.major.septic-recharge-100"


@pytest.mark.parametrize("distance,expected", [(102.9, Status.UNDETERMINED), (103.0, Status.PASS), (103.1, Status.PASS)])
def test_a_minimum_of_100_ft_a_pass_whose_margin_equals_the_accuracy_stays_a_pass_646_4_14_b_3_iv(distance, expected):
    """"A minimum of one hundred (100) feet", accuracy 3 ft: at 103.0 ft the septic field is at worst 100.00 ft away, which complies."""
    (f,) = pairs_for(_run(distance, accuracy={"septic": 3.0}, project_class="major"), MINIMUM_RULE)
    assert f.status is expected
    assert f.extra["near_limit"] is (expected is Status.UNDETERMINED)


@pytest.mark.parametrize("distance,near", [(96.9, False), (97.0, True), (97.1, True)])
def test_a_minimum_of_100_ft_a_violation_whose_margin_equals_the_accuracy_is_near_the_limit_646_4_14_b_3_iv(distance, near):
    """Accuracy 3 ft: a device 97.0 ft from the septic field may be 100.00 ft from it, which meets "a minimum of 100 feet"."""
    (f,) = pairs_for(_run(distance, accuracy={"septic": 3.0}, project_class="major"), MINIMUM_RULE)
    assert f.status is Status.VIOLATION
    assert f.extra["near_limit"] is near


def test_the_accuracy_reads_each_rules_distance_words_as_its_check_does():
    """One reading of the words: the rule's own ``distance_words``, else its kind's default, for the checks and the margin."""
    from stormwater_plugin.core.kinds import distance_words

    assert distance_words("device_setback", {}) == "a minimum of"
    assert distance_words("device_setback", {"distance_words": "within"}) == "within"
    assert distance_words("shoreline_no_cut_buffer", {}) == "within"
    assert distance_words("fertilizer_zone", {}) == distance_words("clearing_near_water", {}) == "within"
    assert distance_words("storage_volume", {}) is None


def test_combined_accuracy_of_both_features_is_root_sum_square():
    (f,) = pairs_for(_run(24.9, accuracy={"septic": 3.0, "devices": 4.0}), RULE)
    assert f.extra["accuracy_ft"] == 5.0
    assert f.status is Status.UNDETERMINED
    # At 25.0 ft the features may be 20.00 ft apart, within 20 feet; at 25.1 ft they may not.
    (f,) = pairs_for(_run(25.0, accuracy={"septic": 3.0, "devices": 4.0}), RULE)
    assert f.status is Status.UNDETERMINED
    (f,) = pairs_for(_run(25.1, accuracy={"septic": 3.0, "devices": 4.0}), RULE)
    assert f.status is Status.PASS


def test_unknown_accuracy_changes_nothing_and_the_role_is_listed_as_unstated():
    result = _run(20.4)
    (f,) = pairs_for(result, RULE)
    assert f.status is Status.PASS
    assert "margin_ft" not in f.extra
    assert result.accuracy["unstated_roles"] == ["devices", "septic"]
    doc = result_to_dict(result)
    row = next(r for r in doc["findings"] if r["rule_id"] == RULE and r["other"])
    assert row["margin_ft"] is None and row["accuracy_ft"] is None and row["near_limit"] is False


def test_mixed_stated_and_unstated_roles_use_the_stated_side_only():
    result = _run(20.4, septic_attrs={"data_source": "tax_map"})
    (f,) = pairs_for(result, RULE)
    assert f.extra["accuracy_ft"] == accuracy_table()["tax_map"][0] == 10.0
    assert f.status is Status.UNDETERMINED
    assert result.accuracy["unstated_roles"] == ["devices"]


def test_a_feature_field_accuracy_ft_wins_over_the_role_and_the_source_kind():
    assert feature_accuracy({"accuracy_ft": 0.5, "data_source": "tax_map"}, 10.0) == (0.5, "field")
    assert feature_accuracy({"data_source": "tax_map"}, 2.0) == (2.0, "role")
    assert feature_accuracy({"data_source": "GPS"}, None) == (15.0, "kind:gps")
    assert feature_accuracy({"data_source": "napkin"}, None) == (None, "unstated")
    assert combined_accuracy(None, None) is None
    assert combined_accuracy(3.0, None) == 3.0
    assert math.isclose(combined_accuracy(3.0, 4.0), 5.0)


def test_findings_json_carries_margin_accuracy_and_near_limit():
    doc = result_to_dict(_run(19.6, accuracy={"septic": 10.0}))
    row = next(r for r in doc["findings"] if r["rule_id"] == RULE and r["other"])
    assert (row["margin_ft"], row["accuracy_ft"], row["near_limit"]) == (0.4, 10.0, True)
    assert "margin_ft" not in row["details"]
    assert doc["accuracy"]["roles"] == {"septic": 10.0}


def test_dem_vertical_accuracy_widens_the_level_tolerance_never_narrows_it():
    """Ground 0.8 ft lower at the device than at the septic field: downgradient at the pack's 0.5 ft, level at a stated 1 ft."""
    dem = plane_dem(-200, -200, 400, 2.0, gx=-0.04, gy=0.0)  # 19.9 ft east: 0.8 ft lower
    (f,) = pairs_for(_run(19.9, dem=dem), RULE)
    assert f.status is Status.PASS and f.extra["gradient"] == "device_downgradient"
    (f,) = pairs_for(_run(19.9, dem=dem, dem_accuracy=1.0), RULE)
    assert f.status is Status.VIOLATION and f.extra["gradient"] == "level"
    result = _run(19.9, dem=dem, dem_accuracy=0.1)
    assert result.accuracy["gradient_tolerance_ft"] == 0.5


def test_a_slope_finding_without_its_distance_assumes_none():
    """No distance stated on the finding (the pack's): no accuracy band is computed, and no default distance is taken."""
    from stormwater_plugin.core.accuracy import apply_accuracy
    from stormwater_plugin.core.model import Citation, Finding

    def slope(extra):
        return Finding("lgpc.slope", "building_site_slope", Citation("§", "", "", ""), Status.PASS, None, None, None, None, "14.9%", extra=extra)

    near = {"slope_pct": 14.9, "distance_ft": 50.0}
    (with_distance,), _ = apply_accuracy([slope(near)], {}, dem_vertical_accuracy_ft=1.0, slope_thresholds={"lgpc.slope": 15.0})
    assert with_distance.status is Status.UNDETERMINED and with_distance.extra["slope_accuracy_pct"] == pytest.approx(2.83, abs=0.01)
    bare = slope({"slope_pct": 14.9})
    (without,), _ = apply_accuracy([bare], {}, dem_vertical_accuracy_ft=1.0, slope_thresholds={"lgpc.slope": 15.0})
    assert without is bare


@settings(max_examples=100, deadline=None)
@given(ids=st.lists(st.sampled_from(["P1", "P2", "P3", "p1", " P1", "10"]), max_size=8),
       wanted=st.sampled_from(["P1", "P2", "P3", "p1", " P1", "10", "P9"]), scan_most=st.sampled_from([0, 3, 2000]))
def test_a_features_attributes_found_by_the_kept_index_are_those_of_the_first_feature_of_its_id(ids, wanted, scan_most):
    """The accuracy reads the first feature of an id (as ``list.index`` did), however many share it, scanned or indexed (#39)."""
    from stormwater_plugin.core import accuracy

    accuracy.SCAN_MOST, kept = scan_most, accuracy.SCAN_MOST  # a large layer, indexed, made of a few features
    try:
        _same_lookup(ids, wanted)
    finally:
        accuracy.SCAN_MOST = kept


def _same_lookup(ids, wanted):
    from shapely.geometry import Point

    from stormwater_plugin.core.accuracy import _lookup
    from stormwater_plugin.core.derived import Derived, using
    from stormwater_plugin.core.model import FeatureRef

    parcels = layer("parcels", [Point(n, 0) for n in range(len(ids))], list(ids), [{"n": n} for n in range(len(ids))])
    former = parcels.attrs[ids.index(wanted)] if wanted in ids else None
    assert _lookup({"parcels": parcels}, FeatureRef("parcels", wanted)) == former
    with using(Derived(), settle=False):
        assert _lookup({"parcels": parcels}, FeatureRef("parcels", wanted)) == former


def test_the_kept_index_of_the_ids_follows_the_layers_ids_and_order(monkeypatch):
    """The index is kept by the layer's content (the live re-check): other ids, or the same in another order, are indexed again."""
    from shapely.geometry import Point

    from stormwater_plugin.core import accuracy
    from stormwater_plugin.core.accuracy import _lookup
    from stormwater_plugin.core.derived import Derived, using
    from stormwater_plugin.core.model import FeatureRef

    monkeypatch.setattr(accuracy, "SCAN_MOST", 0)  # every layer indexed

    def attrs_of(ids, derived):
        lay = layer("parcels", [Point(0, 0), Point(1, 0)], ids, [{"accuracy_ft": 1}, {"accuracy_ft": 2}])
        with using(derived, settle=False):
            return _lookup({"parcels": lay}, FeatureRef("parcels", "P1"))

    first = Derived()
    assert attrs_of(["P1", "P2"], first) == {"accuracy_ft": 1}
    first.settle()
    assert attrs_of(["P2", "P1"], Derived(first)) == {"accuracy_ft": 2}  # the order
    assert attrs_of(["P3", "P2"], Derived(first)) is None  # the ids


# --- The fields a feature's accuracy reads, found once per set of field names (the live re-check, issue 39)

_NAMES = st.sampled_from(["accuracy_ft", "ACCURACY_FT", "Accuracy_Ft", "data_source", "DATA_SOURCE", "source_kind", "Source_Kind",
                          "id", "owner", "acres", 1, True, 1.0, "1", "true"])
_VALUES = st.one_of(st.none(), st.floats(allow_nan=False), st.integers(-5, 50), st.sampled_from(["", "survey", " Survey ", "lidar", "2.5", "x"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=8), st.one_of(st.none(), st.floats(0, 20)))
def test_feature_accuracy_reads_the_fields_every_name_lowered_would(items, role_accuracy):
    """The fields read through the names' memo give the accuracy of every field name lowered into a dictionary (the former
    reading): case, a later field of the same lowered name winning, names not ``str`` (``1`` and ``True`` lower differently)."""
    from stormwater_plugin.core import accuracy as acc

    attrs = dict(items)

    def former(attrs, role_accuracy):
        lowered = {str(k).lower(): v for k, v in attrs.items()}
        for name in acc.ACCURACY_FIELDS:
            a = acc._number(lowered.get(name))
            if a is not None:
                return a, "field"
        if role_accuracy is not None:
            return float(role_accuracy), "role"
        for name in acc.SOURCE_FIELDS:
            kind = lowered.get(name)
            if kind not in (None, ""):
                hit = accuracy_table().get(str(kind).strip().lower())
                if hit is not None:
                    return hit[0], f"kind:{str(kind).strip().lower()}"
        return None, "unstated"

    want = former(attrs, role_accuracy)
    assert feature_accuracy(attrs, role_accuracy) == want
    assert feature_accuracy(attrs, role_accuracy) == want  # the names' memo made: the same answer
    assert feature_accuracy(dict(reversed(list(attrs.items()))), role_accuracy) == former(dict(reversed(list(attrs.items()))), role_accuracy)
