"""The demo site with impossible device attributes, as exports and typing slips leave them (issue 22, item 5): undetermined, never pass."""

from __future__ import annotations

import json

import pytest

from stormwater_plugin.cli import main
from tests.headless.demo_dem import DEMO_DEM, demo_site_with_device


def _dw1(tmp_path, klass, **attrs):
    site = demo_site_with_device(tmp_path, "DW-1", **attrs)
    out = tmp_path / "out"
    main([str(site), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--class", klass, "--out", str(out), "--quiet", "--frost-depth-ft", "4"])
    doc = json.loads((out / "findings.json").read_text())
    return [f for f in doc["findings"] if (f.get("subject") or {}).get("id") == "DW-1"]


def test_demo_dw1_bottom_3_ft_typed_as_a_depth_is_undetermined_for_frost_depth_and_separation(tmp_path):
    fs = _dw1(tmp_path, "major", bottom_elev_ft=3.0)
    design = [f for f in fs if f["rule_id"].endswith(("frost-depth", "separation-2ft"))]
    assert design and all(f["status"] == "undetermined" and "bottom_elev_ft 3" in f["message"] for f in design)


@pytest.mark.parametrize("days", [0, -3])
def test_demo_dw1_drain_days_null_as_0_or_negative_is_undetermined(tmp_path, days):
    fs = _dw1(tmp_path, "major", drain_days=days)
    (f,) = [f for f in fs if f["rule_id"].endswith("drain-time")]
    assert f["status"] == "undetermined" and f"drain_days {days}" in f["message"]


def test_demo_dw1_shgw_0_beside_the_lake_is_undetermined(tmp_path):
    fs = _dw1(tmp_path, "minor", shgw_elev_ft=0.0)
    (f,) = [f for f in fs if f["rule_id"].endswith("separation-2ft") and "groundwater" in f["message"]]
    assert f["status"] == "undetermined" and "shgw_elev_ft 0" in f["message"]
