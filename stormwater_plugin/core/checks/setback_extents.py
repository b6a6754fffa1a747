"""Helpers of ``device_setback`` for features drawn smaller than they are (see :mod:`~stormwater_plugin.core.extents`).

What a finding says when a pair's distance interval straddles the limit, and the quick gradient test on the
features' largest plausible shapes. Split from :mod:`.setbacks` to keep each module small.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..extents import Extent, Interval, decide_distance
from ..limits import precision
from ..model import FeatureRef, Status
from .context import CheckContext


def extent_words(dref: FeatureRef, dev_ext: Extent, tref: FeatureRef, tgt_ext: Extent, iv: Interval, required: float) -> str:
    """Why a pair's distance is an interval, and what settles it."""
    parts = [f"{r.noun} is {e.reach_text()}" for r, e in ((dref, dev_ext), (tref, tgt_ext)) if not e.drawn]
    remedies = [e.remedy for e in (dev_ext, tgt_ext) if not e.drawn]
    return (f"{' and '.join(parts)}, so the true edges may lie anywhere from {iv.lo:,.1f} to {iv.hi:,.1f} ft apart, within {required:g} ft or not "
            f"(plausible extents, packs/device_plausibility.json): {'; '.join(remedies)}")


def ground_range(ctx: CheckContext, geom: BaseGeometry) -> tuple[float, float] | None:
    """Lowest and highest DEM ground (feet, the DEM's assumed unit) over every pixel a bilinear reading of ``geom`` can use.

    The window of pixels round the shape's vertices (one pixel of margin: a bilinear sample reads its four
    neighbours) holds every value a sample on the shape can take, so the range bounds the shape's ground.
    ``None`` with nodata, or a shape off the raster.
    """
    dem = ctx.dem
    if dem is None or geom.is_empty:
        return None
    xy = shapely.get_coordinates(geom)
    rx, ry = dem.to_raster(xy[:, 0], xy[:, 1])
    col, row = dem.raster_to_pixel(np.asarray(rx), np.asarray(ry))
    if not (np.isfinite(col).all() and np.isfinite(row).all()):
        return None
    rows, cols = dem.shape
    c0, c1 = int(math.floor(float(col.min()))) - 1, int(math.ceil(float(col.max()))) + 1
    r0, r1 = int(math.floor(float(row.min()))) - 1, int(math.ceil(float(row.max()))) + 1
    if c0 < 0 or r0 < 0 or c1 > cols or r1 > rows:
        return None
    window = dem.values[r0:r1, c0:c1]
    if window.size == 0 or not np.isfinite(window).all():
        return None
    return float(window.min()) * dem.z_to_ft, float(window.max()) * dem.z_to_ft


def gradient_clear_by_ranges(ctx: CheckContext, big_dev: BaseGeometry, big_tgt: BaseGeometry, required: float, mode: str, tol: float) -> bool:
    """A quick sufficient test: every device ground lies beyond the level tolerance on the side where the rule does not apply.

    Compares the range of ground under the device's largest shape with that of the feature's largest shape near it,
    under every candidate elevation unit; ``False`` means "not shown", and the exact reading decides.
    """
    dem = ctx.dem
    if dem is None:
        return False
    reach = ctx.to_units(required + precision("distance_ft") / 2.0)  # every part that may decide as the limit (core.limits)
    # The feature's parts within reach of the device, by distance (a fine buffer: a box aligned with the map's axes would
    # take in more or less of a long feature as the plan is rotated, and the answer would turn with it).
    near_tgt = shapely.intersection(big_tgt, shapely.buffer(big_dev, reach * 1.002, quad_segs=32))
    zd, zt = ground_range(ctx, big_dev), ground_range(ctx, near_tgt)
    if zd is None or zt is None:
        return False
    for f in dem.z_to_ft_candidates():
        k = f / dem.z_to_ft
        if mode == "device_upgradient" and not zd[1] * k < zt[0] * k - tol - 1e-6:
            return False
        if mode == "device_downgradient" and not zd[0] * k > zt[1] * k + tol + 1e-6:
            return False
    return True


def gradient_clear_at_largest(ctx: CheckContext, dev: BaseGeometry, tgt: BaseGeometry, dev_ext: Extent, tgt_ext: Extent,
                              required: float, words: str, mode: str, tol: float) -> bool:
    """Whether a gradient rule does not apply even between the largest plausible shapes of the two features.

    More area only adds pairs of parts, so a rule that applies to no pair of the largest shapes applies to none of
    any smaller one: the drawn pass then holds whatever their true size. Shown by the shapes' distance (beyond the
    rule's distance by its ``words``, :func:`~..extents.decide_distance`) or by their ranges of ground
    (:func:`gradient_clear_by_ranges`); when neither shows it the pass is undetermined (the exact pair-by-pair reading
    of the largest shapes cost more than the whole check's budget allows).
    """
    big_dev, big_tgt = largest_shape(ctx, dev, dev_ext), largest_shape(ctx, tgt, tgt_ext)
    if big_dev is None or big_tgt is None or ctx.dem is None:
        return False
    d_ft = ctx.to_feet(float(shapely.distance(big_dev, big_tgt)))
    if decide_distance(Interval(d_ft, d_ft), required, words) is Status.PASS:
        return True
    return gradient_clear_by_ranges(ctx, big_dev, big_tgt, required, mode, tol)


def largest_shape(ctx: CheckContext, geom: BaseGeometry, ext: Extent) -> BaseGeometry | None:
    """The feature as large as it plausibly is: its drawing widened by its largest reach (``None`` when unbounded)."""
    if ext.drawn:
        return geom
    if not math.isfinite(ext.half_max_ft):
        return None
    # An octagon circumscribing the reach (8% wider at its corners): never smaller, and few vertices for the gradient reading.
    return shapely.buffer(geom, ctx.to_units(ext.half_max_ft) / math.cos(math.pi / 8), quad_segs=2)



__all__ = ["extent_words", "gradient_clear_at_largest", "gradient_clear_by_ranges", "ground_range", "largest_shape"]
