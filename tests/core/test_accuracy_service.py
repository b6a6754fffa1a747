"""services.accuracy: the stated accuracies read once for the command line, Processing and the dock."""

from __future__ import annotations

import pytest

from stormwater_plugin.core.errors import StormwaterError
from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.services.accuracy import AccuracyError, apply_accuracy, parse_dem_vertical


def test_apply_accuracy_sets_both_and_leaves_inputs_unchanged_on_error():
    inputs = SiteInputs(layers={}, dem=None, unit_to_ft=1.0)
    apply_accuracy(inputs, ["septic=10, parcels=2.5"], "0.3")
    assert inputs.accuracy_ft == {"septic": 10.0, "parcels": 2.5} and inputs.dem_vertical_accuracy_ft == 0.3
    with pytest.raises(AccuracyError, match="moon=3"):
        apply_accuracy(inputs, ["moon=3"], None)
    assert inputs.accuracy_ft == {"septic": 10.0, "parcels": 2.5}
    assert issubclass(AccuracyError, StormwaterError)


@pytest.mark.parametrize("value, expected", [(None, None), ("", None), ("  ", None), ("0", 0.0), (0.0, 0.0), ("1.5", 1.5)])
def test_dem_vertical_accuracy_blank_is_not_stated(value, expected):
    assert parse_dem_vertical(value) == expected


@pytest.mark.parametrize("value", ["-0.1", "abc", float("nan"), -1.0])
def test_dem_vertical_accuracy_below_zero_or_not_a_number_is_refused(value):
    with pytest.raises(AccuracyError):
        parse_dem_vertical(value)


def test_the_error_says_which_statement_it_is_for_the_front_end_naming_its_option():
    with pytest.raises(AccuracyError) as horizontal:
        apply_accuracy(SiteInputs(layers={}, dem=None, unit_to_ft=1.0), ["moon=3"], "-1")  # the horizontal one is named first
    with pytest.raises(AccuracyError) as vertical:
        apply_accuracy(SiteInputs(layers={}, dem=None, unit_to_ft=1.0), ["septic=3"], "-1")
    assert (horizontal.value.part, vertical.value.part) == ("horizontal", "dem_vertical")
