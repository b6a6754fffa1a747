"""Issue 36 item 6: the completeness list reads as English: correct plurals, and one line per thing missing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.services.completeness import check_completeness, plural
from stormwater_plugin.services.packs import JURISDICTIONS, load_pack


@pytest.mark.parametrize(("noun", "want"), [("water body", "water bodies"), ("septic system", "septic systems"), ("soil unit", "soil units"),
                                            ("clearing", "clearings"), ("day", "days"), ("box", "boxes")])
def test_plural(noun, want):
    assert plural(noun) == want


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_a_gap_several_items_require_is_one_line_naming_every_citation(jurisdiction):
    lines = check_completeness(load_pack(jurisdiction), {}, None, has_dem=False).missing
    texts = [line.rsplit(" (", 1)[0] for line in lines]
    assert len(texts) == len(set(texts)), lines  # never the same gap twice
    assert not any("bodys" in line for line in lines)


def _field_as_it_was(attrs, name):
    """The former reading of one field of a device: its attributes by stripped, lower-case name, written for each field asked."""
    low = {str(k).strip().lower(): v for k, v in attrs.items()}
    return low.get(name.lower())


_NAMES = ["device_type", "Device_Type ", "depth_ft", "DEPTH_FT", "length_ft", "width_ft", " width_ft"]
_VALUES = [None, "", " ", "dry_well", "DRY_WELL", "trench", 0, 0.0, 3, "4.5", "words", True]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(_NAMES), st.sampled_from(_VALUES), max_size=5), min_size=1, max_size=4))
def test_the_device_fields_missing_are_those_read_field_by_field_as_before(attrs):
    """Property: each device's attributes written once by name give the missing fields each field's own reading gave."""
    from shapely.geometry import Point

    from stormwater_plugin.core.model import FeatureLayer
    from stormwater_plugin.services import completeness

    pack = load_pack("lgpc")
    items = [i for i in pack.submission if i.kind == "device_fields"]
    assert items
    devices = FeatureLayer.from_sequences("devices", [Point(n, 0) for n in range(len(attrs))], [f"D{n}" for n in range(len(attrs))], attrs)
    zero = completeness._zero_is_missing()
    for item in items:
        got = completeness._evaluate(item, {"devices": devices}, True, 0, zero)
        types = {str(t).lower() for t in item.params.get("device_types", [])}
        by_field: dict = {}
        for fid, a in zip(devices.ids, devices.attrs):
            if types and str(_field_as_it_was(a, "device_type") or "").strip().lower() not in types:
                continue
            for name in item.params.get("fields", []):
                if completeness._blank(_field_as_it_was(a, name), name, zero):
                    by_field.setdefault(name, []).append(fid)
        lead = str(item.params.get("missing") or "missing data")
        assert got == tuple(f"{lead} ({name}) for {', '.join(ids)}" for name, ids in by_field.items())
