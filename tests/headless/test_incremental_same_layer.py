"""The live re-check's edit finding (``services.incremental._same_features``): one layer object handed on is the same features.

The read hands an unedited layer on as the same object (issue 39): it is told the same without comparing its lists,
as the former comparison tells it (each list equal to itself, items compared by identity first, a NaN value included).
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.services.incremental import _same_features


def _former(a: FeatureLayer, b: FeatureLayer) -> bool:
    return a.role == b.role and list(a.ids) == list(b.ids) and list(a.attrs) == list(b.attrs) and dict(a.no_geometry) == dict(b.no_geometry)


_values = st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.text(max_size=3), st.just(math.nan))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "device_type"]), _values, max_size=3), min_size=0, max_size=4),
       st.dictionaries(st.text(max_size=2), st.text(max_size=2), max_size=2))
def test_one_layer_object_is_the_same_features_as_the_former_comparison_tells(attrs, no_geometry):
    layer = FeatureLayer.from_sequences("devices", [Point(i, 0) for i in range(len(attrs))], [f"D{i}" for i in range(len(attrs))], attrs, no_geometry)
    assert _same_features(layer, layer) is _former(layer, layer) is True


def test_two_layer_objects_are_still_compared():
    a = FeatureLayer.from_sequences("devices", [Point(0, 0)], ["D1"], [{"device_type": "dry_well"}])
    b = FeatureLayer.from_sequences("devices", [Point(0, 0)], ["D1"], [{"device_type": "rain_garden"}])
    c = FeatureLayer.from_sequences("devices", [Point(5, 0)], ["D1"], [{"device_type": "dry_well"}])
    assert not _same_features(a, b) and _same_features(a, c)
