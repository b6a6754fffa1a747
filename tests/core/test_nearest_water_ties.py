"""The water feature a clearing or lawn finding cites does not depend on format, feature order or the GEOS release.

A lake's shoreline and the lake polygon are equally near a lawn by construction (the shoreline is the polygon's
edge). Which one the search tree returns first depends on its internal order, which reprojection noise and the
GEOS release change: sid's GEOS 3.15 cited WB-1 for a DXF-imported plan and SH-1 for the same plan as a
GeoPackage. Equally near features (within the distance tolerance) are told apart by the rule's role order, then id.
"""

from __future__ import annotations

import pytest
from shapely import affinity
from shapely.geometry import LineString, box

from tests.sitebuilder import layer, run

RULES = ("lake-george.fertilizer-50ft", "lake-george.clearing-500ft-cover-park-advisory")


def _site(angle: float, reverse: bool) -> dict:
    def turn(g):
        return affinity.rotate(g, angle, origin=(0, 0))

    lakes = [box(0, -400, 400, 400), box(0, 500, 400, 900)]
    lake_ids = ["LG", "ZZ"]
    if reverse:
        lakes, lake_ids = lakes[::-1], lake_ids[::-1]
    return {
        "shoreline": layer("shoreline", [turn(LineString([(0, -400), (0, 400)]))], ["MHW"], [{"waterbody": "Lake George"}]),
        "waterbodies": layer("waterbodies", [turn(g) for g in lakes], lake_ids, [{"name": n} for n in lake_ids]),
        "clearing": layer("clearing", [turn(box(-60, -20, -20, 20))], ["C1"], [{"use": "lawn"}]),
    }


@pytest.mark.parametrize("angle", [0.0, 17.0, 90.0, 233.0])
@pytest.mark.parametrize("reverse", [False, True])
def test_the_shoreline_is_cited_before_the_equally_near_lake_20_ft_away(angle, reverse):
    result = run("lake-george", _site(angle, reverse))
    for rule in RULES:
        found = [f for f in result.findings if f.rule_id == rule and f.subject and f.subject.id == "C1"]
        assert found, rule
        for f in found:
            assert f.other is not None and (f.other.layer, f.other.id) == ("shoreline", "MHW"), (rule, f.other)
            assert f.measured_ft == pytest.approx(20.0, abs=1e-6)
