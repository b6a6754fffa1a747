"""The same site in UTM metres, NY State Plane East (US survey feet) and EPSG:4326 gives the same findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from tests.headless.sitefiles import write_dem, write_site

# The synthetic devices are points for brevity, read as their edges: this module tests CRS equivalence; what points plausibly
# stand for is tested in tests/core/test_extents*.py (issue 33).
pytestmark = pytest.mark.usefixtures("drawn_edges")

CASES = {
    "utm-metres": ("EPSG:32618", "EPSG:32618", 1.0),
    "stateplane-usft": ("EPSG:2260", "EPSG:2260", 3.0),
    "wgs84-degrees": ("EPSG:4326", "EPSG:4326", 1e-5),
    "mixed": ("EPSG:2260", "EPSG:4326", 1e-5),
}


def _run(tmp: Path, vec_crs: str, dem_crs: str, cell: float, jurisdiction: str, klass: str) -> dict:
    site = write_site(tmp, vec_crs)
    dem = write_dem(tmp / "dem.tif", dem_crs, cell)
    code = main(
        [
            str(site),
            "--dem",
            str(dem),
            "--jurisdiction",
            jurisdiction,
            "--class",
            klass,
            "--out",
            str(tmp / "out"),
            "--quiet",
            "--dem-z-units",
            "m",
        ]
    )
    assert code == 1
    return json.loads((tmp / "out" / "findings.json").read_text(encoding="utf-8"))


def _key(doc: dict) -> dict:
    out = {}
    for f in doc["findings"]:
        k = (f["rule_id"], f["subject"]["id"] if f["subject"] else None, f["other"]["id"] if f["other"] else None)
        out[k] = (f["status"], f["measured_ft"])
    return out


@pytest.mark.parametrize("jurisdiction,klass", [("lgpc", "minor"), ("lgpc", "major"), ("lake-george", "minor")])
def test_same_findings_and_distances_to_0_1_ft_in_every_crs(tmp_path, jurisdiction, klass):
    docs = {name: _run(tmp_path / name, *args, jurisdiction, klass) for name, args in CASES.items() if (tmp_path / name).mkdir() is None}
    ref = _key(docs["utm-metres"])
    assert ref
    for name, doc in docs.items():
        got = _key(doc)
        assert set(got) == set(ref), name
        for k, (status, d) in ref.items():
            assert got[k][0] == status, (name, k)
            if d is not None:
                assert got[k][1] == pytest.approx(d, abs=0.1), (name, k)
    for name, doc in docs.items():
        n = {p["id"]: p["distance_ft"] for p in doc["notification"]["within_500ft"]}
        r = {p["id"]: p["distance_ft"] for p in docs["utm-metres"]["notification"]["within_500ft"]}
        assert n.keys() == r.keys()
        for k in r:
            assert n[k] == pytest.approx(r[k], abs=0.1), (name, k)


def test_the_intended_violations_are_found_at_their_distances(tmp_path):
    doc = _run(tmp_path, "EPSG:2260", "EPSG:2260", 3.0, "lgpc", "minor")
    f = {(x["rule_id"], x["subject"]["id"], x["other"]["id"]): x for x in doc["findings"] if x["other"] and x["subject"]}
    d1 = f[("lgpc.minor.septic-upgradient-20", "D1", "S1")]
    assert d1["status"] == "violation" and d1["measured_ft"] == pytest.approx(
        19.9, abs=0.02
    )  # laid out on the UTM grid: ground feet differ by its scale factor
    assert d1["citation"] == "6 NYCRR 646-4.14(a)(3)"
    assert "up gradient within twenty (20) feet" in d1["excerpt"]
    d2 = f[("lgpc.minor.septic-upgradient-20", "D2", "S1")]
    assert d2["status"] == "pass" and d2["details"]["gradient"] == "device_downgradient"
    d3 = f[("lgpc.minor.vehicle-area-100", "D3", "W1")]
    assert d3["status"] == "violation" and d3["measured_ft"] == pytest.approx(99.9, abs=0.05)
