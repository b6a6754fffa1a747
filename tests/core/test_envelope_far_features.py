"""Issue 26: features beyond every rule's reach change neither the siting envelope nor the suggested moves, and cost nothing.

The envelope prunes each rule's targets before anything is measured
(:func:`stormwater_plugin.core.siting.envelope._gradient_targets_in_reach`); the pruning is exact, so
the zones with far features equal the zones without them, whatever the DEM has under those features.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.siting import build_envelope
from stormwater_plugin.core.siting.envelope import _gradient_targets_in_reach, _Grid
from tests.sitebuilder import layer, plane_dem, septic_square

PARCEL = box(-120.0, -120.0, 120.0, 120.0)


def _far_wetlands(rng: np.random.Generator, n: int, r_min: float, r_max: float) -> list:
    out = []
    for _ in range(n):
        r, a = rng.uniform(r_min, r_max), rng.uniform(0, 2 * math.pi)
        out.append(box(r * math.cos(a), r * math.sin(a), r * math.cos(a) + 8, r * math.sin(a) + 5))
    return out


def _zones(env) -> list[tuple[str, str, str | None, float]]:
    return sorted((z.rule_id, z.kind, z.target.id if z.target is not None else None, round(z.geometry.area, 6)) for z in env.excluded)


@settings(max_examples=8, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    jurisdiction=st.sampled_from(["lgpc", "lake-george"]),
    cls=st.sampled_from(["minor", "major"]),
    off_dem=st.booleans(),
)
def test_far_wetlands_change_no_envelope_zone(seed, jurisdiction, cls, off_dem):
    """The same zones with 0 or 60 wetlands 400-3,000 ft away (on or off the DEM): irrelevance holds for the envelope."""
    rng = np.random.default_rng(seed)
    # off_dem: the DEM covers the site only, so the far wetlands' ground is unknown
    dem = plane_dem(-300, -300, 600, 2.0, 0.04, 0.01) if off_dem else plane_dem(-3500, -3500, 7000, 10.0, 0.04, 0.01)
    near = [box(60, 60, 80, 75)]
    base = {
        "parcels": layer("parcels", [PARCEL], ["P1"], [{"is_site": 1}]),
        "septic": layer("septic", [septic_square(-30, 10)], ["S1"]),
        "wells": layer("wells", [Point(40, -70)], ["W1"]),
    }
    far = _far_wetlands(rng, 60, 400.0, 3000.0)
    with_far = dict(base, wetlands=layer("wetlands", near + far, ["WL-near"] + [f"WL-{i}" for i in range(len(far))]))
    without = dict(base, wetlands=layer("wetlands", near, ["WL-near"]))
    pack = load_pack(jurisdiction)
    a = build_envelope(SiteInputs(layers=with_far, dem=dem, unit_to_ft=1.0, class_override=cls), pack, device_type="dry_well", high_traffic=None, cell_ft=4.0)
    b = build_envelope(SiteInputs(layers=without, dem=dem, unit_to_ft=1.0, class_override=cls), pack, device_type="dry_well", high_traffic=None, cell_ft=4.0)
    assert _zones(a) == _zones(b)
    assert shapely.equals_exact(shapely.normalize(a.envelope), shapely.normalize(b.envelope), 1e-9)


def test_pruning_keeps_the_feature_that_is_nearest_even_beyond_the_distance():
    """Beyond every rule's distance the nearest feature is still read (its gradient may be unknown): never pruned."""
    grid = _Grid(PARCEL, 2.0, 1.0)
    rule = next(r for r in load_pack("lgpc").rules if r.params.get("gradient") not in (None, "any") and r.kind == "device_setback")
    wet = layer("wetlands", [box(900, 0, 910, 10), box(2000, 0, 2010, 10)], ["A", "B"])

    class T:
        geoms = np.asarray(wet.geoms)
        refs = [wet.ref(0), wet.ref(1)]

    kept = _gradient_targets_in_reach(rule, T, grid, 1.0)
    assert [r.id for r in kept.refs] == ["A"]
