"""A point's buffer made as GEOS's disc round the origin translated (the live re-check, issue 39): GEOS's own buffer, bit for bit."""

from __future__ import annotations

import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st

from stormwater_plugin.core import geometry
from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.extents import footprint_bound
from stormwater_plugin.core.geometry import buffer, display_buffer, point_disc, quad_segs_for

#: Projected coordinates of either sign up to 3e7 (state plane feet, UTM metres and feet), and small ones near the origin.
_COORD = st.one_of(st.floats(-3e7, 3e7, allow_nan=False), st.floats(-10.0, 10.0, allow_nan=False),
                   st.sampled_from([0.0, -0.0, 1.0, -1.0, 612345.123, -4812345.678, 1e7, -1e7]))


def _same(a, b) -> bool:
    return bool(shapely.to_wkb(a) == shapely.to_wkb(b))


@settings(max_examples=400, deadline=None)
@given(_COORD, _COORD, st.floats(0.01, 1e4), st.integers(1, 512))
@example(2.0, -0.0, 0.5579463992265594, 13)  # GEOS keeps a ring's first y as given: -0.0 is not translated (it is GEOS's own)
@example(612345.123, 4812345.678, 6.094440598243016, 25)
def test_a_points_disc_is_geos_buffer_bit_for_bit(x, y, r, q):
    """The disc :func:`buffer` makes of a point (translated where it can) is ``shapely.buffer``'s: every vertex, its order and start."""
    p = shapely.Point(x, y)
    assert _same(buffer(p, r, q), shapely.buffer(p, r, quad_segs=q))


def test_this_geos_translates_its_discs_exactly():
    """The witness holds on the platform the suite runs on, so the property above tests the translation itself."""
    assert geometry._translation_exact()
    assert point_disc(shapely.to_wkb(shapely.Point(612345.5, 4812345.25)), 6.0, 25) is not None


def test_the_cases_it_leaves_to_geos():
    """An empty, 3D, far or zero-coordinate point and a radius out of range are left to ``shapely.buffer`` (``None``)."""
    wkb = shapely.to_wkb
    assert point_disc(wkb(shapely.Point()), 5.0, 8) is None
    assert point_disc(wkb(shapely.Point(1.0, 2.0, 3.0)), 5.0, 8) is None
    assert point_disc(wkb(shapely.Point(2e8, 5.0)), 5.0, 8) is None
    assert point_disc(wkb(shapely.Point(5.0, -0.0)), 5.0, 8) is None
    assert point_disc(wkb(shapely.Point(5.0, 6.0)), 0.0, 8) is None
    assert point_disc(wkb(shapely.Point(5.0, 6.0)), -1.0, 8) is None
    assert point_disc(wkb(shapely.Point(5.0, 6.0)), 5.0, 0) is None
    assert point_disc(wkb(shapely.Point(5.0, 6.0), byte_order=0), 5.0, 8) is None
    assert point_disc(None, 5.0, 8) is None
    for g in (shapely.Point(), shapely.Point(1.0, 2.0, 3.0), shapely.LineString([(0, 0), (3, 4)]), shapely.Point(5.0, 6.0)):
        for r in (-1.0, 0.0, 5.0):
            assert _same(buffer(g, r, 8), shapely.buffer(g, r, quad_segs=8))


def test_a_platform_whose_discs_differ_makes_every_disc_with_geos(monkeypatch):
    """Where the witness fails (a GEOS that fuses its multiply and add), nothing is translated."""
    monkeypatch.setattr(geometry, "_EXACT", [False])
    assert point_disc(shapely.to_wkb(shapely.Point(612345.5, 4812345.25)), 6.0, 25) is None
    p = shapely.Point(612345.5, 4812345.25)
    assert _same(buffer(p, 6.0, 25), shapely.buffer(p, 6.0, quad_segs=25))


@settings(max_examples=60, deadline=None)
@given(st.floats(-1e7, 1e7), st.floats(-1e7, 1e7), st.floats(1.0, 500.0), st.sampled_from(["dry_well", "rain_garden", "septic_tank", "unknown kind"]))
def test_display_buffer_and_footprint_bound_of_a_point_are_geos_own(x, y, r_ft, kind):
    """The check's two buffers of a moved point device (its display disc, its plausible footprint), inside a check and
    outside one, are those GEOS makes (the footprint: as made with every disc GEOS's own)."""
    p = shapely.Point(x, y)
    want = shapely.buffer(p, r_ft / 3.28, quad_segs=quad_segs_for(r_ft))
    assert _same(display_buffer(p, r_ft / 3.28, r_ft), want)
    with using(Derived()):
        assert _same(display_buffer(p, r_ft / 3.28, r_ft), want)
    attrs = {"device_type": kind}
    bound = footprint_bound("devices", p, attrs, 3.28)
    saved = list(geometry._EXACT)
    try:
        geometry._EXACT[:] = [False]
        former = footprint_bound("devices", p, attrs, 3.28)
    finally:
        geometry._EXACT[:] = saved
    assert (bound is None and former is None) or _same(bound, former)
