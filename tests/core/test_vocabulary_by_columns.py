"""normalise_layer reads a layer by columns (each field name once a group, each distinct value once a field): the same
attributes, in the same order, and the same warnings as reading it feature by feature (the former formulation, kept here)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from stormwater_plugin.core.model import FeatureLayer, Warning_
from stormwater_plugin.core.vocabulary import UNRECOGNISED, is_blank, normalise_layer, unknown_words, vocabulary


def _former(layer: FeatureLayer, warnings: list[Warning_]) -> FeatureLayer:
    """normalise_layer as it read every feature one by one."""
    vocab = vocabulary()
    specs = [f for f in vocab.fields if layer.role in f.roles]
    if not specs or not len(layer):
        return layer
    odd: dict[tuple[str, str], list[str]] = {}
    readings: dict[tuple[str, str], Any] = {}
    new_attrs: list[dict[str, Any]] = []
    for fid, attrs in zip(layer.ids, layer.attrs):
        out: dict[str, Any] = {}
        for k, v in attrs.items():
            spec = vocab.field_for_name(layer.role, str(k))
            if spec is None:
                out[k] = v
                continue
            if spec.field in out and (is_blank(v) or not is_blank(out[spec.field])):
                continue
            r = vocab.read_value(layer.role, spec.field, v)
            out[spec.field] = r.value if r.known else v
            if r.state == UNRECOGNISED:
                key = (spec.field, str(v).strip())
                odd.setdefault(key, []).append(fid)
                readings[key] = r
        new_attrs.append(out)
    for key, fids in odd.items():
        field, _raw = key
        warnings.append(Warning_(f"{field}_unknown", f"{unknown_words(readings[key])}: every finding that depends on it is undetermined",
                                 layer.role, tuple(fids)))
    return FeatureLayer.from_sequences(layer.role, list(layer.geoms), layer.ids, new_attrs, no_geometry=layer.no_geometry)


#: Field names of the devices' and the parcels' layers: canonical, other spellings of one field (two in one feature: the first
#: with a value counts), a dBase cut, and fields the vocabulary does not know.
NAMES = {
    "devices": ["device_type", "Device_Type", "device type", "DEVICE-TYPE", "high_traffic", "High Traffic", "storage_gal", "notes", "Notes"],
    "parcels": ["is_site", "IS_SITE", "Is Site", "proposed_lot", "proposed_l", "previously_developed", "previously", "mailing_address",
                "owner", "Owner"],
}
#: Values: recognised and unrecognised words, blanks, yes/no words and numbers (0, 1, 2, -0.0, NaN, True), a date.
VALUES = st.one_of(
    st.sampled_from(["dry_well", "Dry Well", "DRYWELL", "porous-pavers", "rain garden", " ", "", "nan", "NULL", "yes", "Y", "no", "false",
                     "maybe", "1", "0", "0.0", "2", " rain garden ", "Rain Garden"]),
    st.sampled_from([None, 0, 1, 2, True, False, 0.0, -0.0, 1.0, 0.5, math.nan]),
    st.just("x").map(lambda _: float("nan")),  # another NaN object
    st.text(max_size=4),
)


def _features(role: str) -> st.SearchStrategy[list[dict[str, Any]]]:
    names = NAMES[role]
    # a few field sets shared by many features (a layer's own fields), sometimes one of its own
    schema = st.lists(st.sampled_from(names), max_size=5, unique=True)
    return st.lists(schema, min_size=1, max_size=3).flatmap(
        lambda schemas: st.lists(
            st.tuples(st.sampled_from(schemas), st.lists(VALUES, min_size=5, max_size=5)).map(lambda sv: dict(zip(sv[0], sv[1]))),
            max_size=25,
        )
    )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and (a == b) and str(a) == str(b)


@settings(max_examples=300, deadline=None)
@given(role=st.sampled_from(["devices", "parcels"]), features=st.data())
def test_normalise_layer_by_columns_is_the_feature_by_feature_reading(role: str, features: st.DataObject) -> None:
    attrs = features.draw(_features(role))
    ids = [f"F{n}" for n in range(len(attrs))]
    layer = FeatureLayer.from_sequences(role, [Point(n, 0) for n in range(len(attrs))], ids, attrs)
    said_now: list[Warning_] = []
    said_then: list[Warning_] = []
    now = normalise_layer(layer, said_now)
    then = _former(layer, said_then)
    assert said_now == said_then
    assert len(now.attrs) == len(then.attrs)
    for a, b in zip(now.attrs, then.attrs):
        assert list(a) == list(b)  # the same names in the same order
        assert all(_same(a[k], b[k]) for k in a), (a, b)


def test_two_spellings_of_one_field_keep_the_first_value_by_columns_too() -> None:
    layer = FeatureLayer.from_sequences("devices", [Point(0, 0), Point(1, 0)], ["A", "B"],
                                        [{"Device Type": " ", "device_type": "Dry Well"}, {"Device Type": "rain garden", "device_type": "dry_well"}])
    said: list[Warning_] = []
    done = normalise_layer(layer, said)
    assert done.attrs[0] == {"device_type": "dry_well"}
    assert done.attrs[1] == {"device_type": "rain garden"}
    assert [w.ids for w in said] == [("B",)]
