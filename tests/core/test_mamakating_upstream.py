"""Mamakating §160-1: land under one acre upstream of a sensitive area is a land development activity.

The text sets no distance: the trace runs on the conditioned DEM to a target
or to the DEM's edge (undetermined there), never passes.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from shapely.geometry import LineString, box

from stormwater_plugin.core.model import Status
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import layer, plane_dem, run

RULE = "mamakating.upstream-of-wetland"


def _one(result, rule_id=RULE):
    (f,) = [f for f in result.findings if f.rule_id == rule_id]
    return f


def _westward(size=2600.0):
    """A plane rising eastward, 10 ft pixels: runoff runs due west along each row."""
    return plane_dem(0, 0, size, 10.0, gx=0.05, gy=0.0)


# Cell centres lie at x = 5, 15, ...; the disturbance's west cells are centred on x = 2445.
DIST = box(2440, 1280, 2480, 1320)


def test_wetland_2297_ft_downstream_is_reached_no_2000_ft_cutoff_160_1():
    site = {"disturbance": layer("disturbance", [DIST]), "wetlands": layer("wetlands", [box(50, 1200, 148, 1400)], ["WL"])}
    f = _one(run("mamakating", site, _westward(), project_class=None))
    assert f.status is Status.ADVISORY
    assert f.other.id == "WL"
    assert f.extra["flow_length_ft"] == pytest.approx(2297.0, abs=0.01)  # 2445 - 148
    assert "no length limit" in f.message


@pytest.mark.parametrize(
    "cls,expected",
    [
        ("A", Status.ADVISORY),
        ("B", Status.ADVISORY),
        ("C(T)", Status.ADVISORY),
        ("CT", Status.ADVISORY),
        ("C(TS)", Status.ADVISORY),
        ("AA", Status.ADVISORY),
        ("B(T)", Status.ADVISORY),
        ("C", Status.UNDETERMINED),  # not counted: the trace runs on, to the DEM's edge
        ("D", Status.UNDETERMINED),
    ],
)
def test_stream_100_m_downstream_counts_by_its_nysdec_class_160_1(cls, expected):
    x = 2445 - 328.084  # 100 m west of the disturbance's west cells
    stream = layer("streams", [LineString([(x, 0), (x, 2600)])], ["S1"], [{"class": cls}])
    f = _one(run("mamakating", {"disturbance": layer("disturbance", [DIST]), "streams": stream}, _westward(), project_class=None))
    assert f.status is expected
    if expected is Status.ADVISORY:
        assert f.other.id == "S1"
        assert f.extra["flow_length_ft"] == pytest.approx(328.084, abs=0.01)
    else:
        assert "edge" in f.message and "no wetlands layer" in f.message


@pytest.mark.parametrize("attrs", [{}, {"class": ""}, {"class": "unknown"}, {"class": None}])
def test_stream_of_unknown_class_reached_is_undetermined_naming_the_class_field_160_1(attrs):
    stream = layer("streams", [LineString([(2000, 0), (2000, 2600)])], ["S9"], [attrs])
    f = _one(run("mamakating", {"disturbance": layer("disturbance", [DIST]), "streams": stream}, _westward(), project_class=None))
    assert f.status is Status.UNDETERMINED
    assert "`class`" in f.message and "S9" in f.message
    assert f.extra["missing_field"] == "class"


def test_a_counted_target_beyond_a_stream_of_unknown_class_still_decides_160_1():
    streams = layer("streams", [LineString([(2000, 0), (2000, 2600)])], ["S9"], [{}])
    site = {"disturbance": layer("disturbance", [DIST]), "streams": streams, "wetlands": layer("wetlands", [box(50, 1200, 148, 1400)], ["WL"])}
    f = _one(run("mamakating", site, _westward(), project_class=None))
    assert f.status is Status.ADVISORY and f.other.id == "WL"


def test_a_closed_depression_on_the_way_is_filled_and_crossed_not_a_dead_end_160_1():
    dem = _westward()
    z = dem.values.copy()
    z[120:140, 150:170] -= 8.0  # a bowl 200 ft across, 8 ft deep, on the flow line (row 128)
    dem = ElevationGrid(z, dem.geotransform, z_to_ft=1.0)
    site = {"disturbance": layer("disturbance", [DIST]), "wetlands": layer("wetlands", [box(50, 1200, 148, 1400)], ["WL"])}
    f = _one(run("mamakating", site, dem, project_class=None))
    assert f.status is Status.ADVISORY and f.other.id == "WL"


def test_a_trace_into_dem_nodata_is_undetermined_160_1():
    dem = _westward()
    z = dem.values.copy()
    z[:, 100:110] = np.nan  # a nodata strip across every flow line
    dem = ElevationGrid(z, dem.geotransform, z_to_ft=1.0)
    site = {"disturbance": layer("disturbance", [DIST]), "wetlands": layer("wetlands", [box(50, 1200, 148, 1400)], ["WL"])}
    f = _one(run("mamakating", site, dem, project_class=None))
    assert f.status is Status.UNDETERMINED and "nodata" in f.message


def test_without_a_dem_or_any_target_layer_the_rule_is_undetermined_160_1():
    f = _one(run("mamakating", {"disturbance": layer("disturbance", [DIST]), "wetlands": layer("wetlands", [box(0, 0, 10, 10)])}, None, project_class=None))
    assert f.status is Status.UNDETERMINED and "No DEM" in f.message
    f = _one(run("mamakating", {"disturbance": layer("disturbance", [DIST])}, _westward(), project_class=None))
    assert f.status is Status.UNDETERMINED and "no wetlands or streams layer" in f.message


@pytest.mark.parametrize("sqft,traced", [(43_559.9, True), (43_560.0, False), (43_560.1, False)])
def test_the_trace_applies_below_one_acre_only_160_1(sqft, traced):
    dist = box(1000, 1000, 1000 + sqft / 200.0, 1200)
    site = {"disturbance": layer("disturbance", [dist]), "wetlands": layer("wetlands", [box(50, 1200, 148, 1400)], ["WL"])}
    result = run("mamakating", site, _westward(), project_class=None)
    found = [f for f in result.findings if f.rule_id == RULE]
    assert bool(found) is traced
    if not traced:
        assert any(n["rule_id"] == RULE and "by area" in n["reason"] for n in result.rules_not_checked)


def test_recreation_facilities_and_the_larger_common_plan_are_reviewer_rows_never_silent_160_1():
    site = {"disturbance": layer("disturbance", [DIST]), "wetlands": layer("wetlands", [box(50, 1200, 148, 1400)], ["WL"])}
    result = run("mamakating", site, _westward(), project_class=None)
    notes = {(n["rule_id"], n["reason"]) for n in result.rules_not_checked}
    assert any(r == RULE and "municipal recreation facilities" in why for r, why in notes)
    ids = {r for r, _ in notes}
    assert {"mamakating.reviewer.upstream-of-other-sensitive-areas", "mamakating.reviewer.larger-common-plan"} <= ids


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_findings_carry_the_words_that_hold_their_numbers_160_1_160_2A(regulations):
    text = _norm((regulations / "town-of-mamakating-ch160.txt").read_text(encoding="utf-8"))
    pack = load_pack("mamakating")
    swppp = pack.rule("mamakating.swppp-required")
    assert "§160-1" in swppp.citation.text and "§160-2A" in swppp.citation.text
    assert "one acre" in swppp.citation.excerpt and _norm(swppp.citation.excerpt) in text
    for extra in swppp.params["also_cites"]:
        assert _norm(extra["excerpt"]) in text
    assert "No application for approval of a land development activity shall be reviewed" in swppp.params["consequence"]
    upstream = pack.rule(RULE)
    assert _norm(upstream.citation.excerpt) in text
    for words in ("less than one acre", "state-jurisdiction wetlands", "municipal recreation facilities", "NYSDEC-regulated streams with classification A, B, or CT",
                  "other areas as determined by the Stormwater Management Officer"):
        assert words in upstream.citation.excerpt
    plan = pack.rule("mamakating.reviewer.larger-common-plan")
    assert "part of a larger common plan of development or sale" in plan.citation.excerpt and _norm(plan.citation.excerpt) in text


def test_swppp_finding_at_one_acre_cites_160_1_and_160_2A():
    site = {"disturbance": layer("disturbance", [box(0, 0, 200, 217.8)])}
    (f,) = [f for f in run("mamakating", site, project_class=None).findings if f.rule_id == "mamakating.swppp-required"]
    assert f.status is Status.ADVISORY
    assert "§160-1" in f.citation.text and "§160-2A" in f.citation.text and "one acre" in f.citation.excerpt
    assert "(§160-2A)" in f.message
