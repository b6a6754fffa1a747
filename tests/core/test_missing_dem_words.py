"""A check without an elevation grid says why in its findings: no DEM given, or a DEM given but not read."""

from stormwater_plugin.core.checks.context import missing_dem_words
from stormwater_plugin.core.model import Warning_


def test_no_dem_given_is_no_dem_supplied():
    assert missing_dem_words([]) == "no DEM was supplied"
    assert missing_dem_words([Warning_("dem_z_unit_assumed", "unit assumed", "dem")]) == "no DEM was supplied"


def test_a_dem_over_the_read_limit_is_not_read_not_missing():
    words = missing_dem_words([Warning_("dem_too_large", "the DEM window the rules need is …", "dem")])
    assert words.startswith("the DEM was not read") and "read limit" in words


def test_an_unreadable_dem_could_not_be_read():
    assert missing_dem_words([Warning_("dem_unreadable", "the DEM window could not be read", "dem")]).startswith("the DEM could not be read")


def test_a_dem_no_feature_placed_was_not_read():
    assert missing_dem_words([Warning_("dem_unused", "no layer has features", "dem")]).startswith("the DEM was not read")
