"""The completeness list reads the pack data of device fields whose 0 means "not stated" again when the file changes (#39)."""

from __future__ import annotations

import json
import os

from stormwater_plugin.services import completeness


def test_the_zero_is_missing_fields_follow_a_change_of_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(completeness, "PACK_DIR", tmp_path)
    path = tmp_path / "device_plausibility.json"
    path.write_text(json.dumps({"zero_is_missing_fields": ["depth_ft"]}), encoding="utf-8")
    assert completeness._zero_is_missing() == frozenset({"depth_ft"})
    assert completeness._zero_is_missing() == frozenset({"depth_ft"})  # read once for this version of the file
    path.write_text(json.dumps({"zero_is_missing_fields": ["depth_ft", "area_sqft"]}), encoding="utf-8")
    assert completeness._zero_is_missing() == frozenset({"depth_ft", "area_sqft"})
    st = path.stat()
    path.write_text(json.dumps({"zero_is_missing_fields": ["width_ft", "area_sqf"]}), encoding="utf-8")  # the same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert completeness._zero_is_missing() == frozenset({"width_ft", "area_sqf"})
