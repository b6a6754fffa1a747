"""All-pairs neighbour search: every geometry's neighbours within a radius, edge to edge, vectorised.

The notification rule (:mod:`stormwater_plugin.core.checks.notification`)
lists the parcels within 500 ft of one site parcel. Screening a whole town
asks the same question for every parcel at once; doing it pair by pair in
Python is slow, and buffering each parcel then joining (the usual GIS recipe)
is both slow and wrong at the edge: a buffer polygon's chords lie *inside*
the true offset curve, so a parcel just under the radius can be missed.

Here an STR-tree answers ``dwithin`` for all geometries in one call and
``shapely.distance`` measures the candidate pairs in one vectorised call, so
there is no per-pair Python loop. Distances are in the units of the
geometries' coordinates (a projected working CRS); the caller converts feet
to those units (``radius_ft / unit_to_ft``), exactly as the notification
check does. A pair at exactly the radius is a neighbour (``d <= radius``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry


def neighbours_within(
    geoms: Sequence[BaseGeometry] | np.ndarray,
    radius_units: float,
    *,
    include_self: bool = False,
    unique_pairs: bool = False,
    candidates: str = "envelope",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of geometries whose edge-to-edge distance is at most ``radius_units``.

    Parameters
    ----------
    geoms : sequence of shapely geometries or numpy.ndarray of objects
        Geometries in one projected CRS; ``None`` or empty geometries have no
        neighbours.
    radius_units : float
        Search radius in the CRS's linear unit (for feet: ``radius_ft /
        unit_to_ft``). Must be finite and non-negative. Inclusive: a pair at
        exactly this distance is returned.
    include_self : bool, default False
        Also return the pairs ``(i, i, 0.0)``.
    unique_pairs : bool, default False
        Return each unordered pair once, as ``i < j``; by default both
        ``(i, j)`` and ``(j, i)`` are returned, so the neighbours of ``i`` are
        ``j[i_arr == i]``.
    candidates : {"envelope", "dwithin"}, default "envelope"
        How candidate pairs are found before they are measured: grown
        envelopes (one bounding-box query, fastest) or GEOS's
        ``STRtree.query(predicate="dwithin")``. Both give the same pairs.

    Returns
    -------
    i : numpy.ndarray of int64
        Index of the first geometry of each pair, ascending.
    j : numpy.ndarray of int64
        Index of its neighbour; ascending within each ``i``.
    d : numpy.ndarray of float64
        Exact edge-to-edge distance of each pair, in CRS units (``0.0`` for
        touching or overlapping geometries).

    Notes
    -----
    By default candidates are the pairs whose envelopes lie within
    ``radius_units`` of each other (one ``STRtree.query`` on the grown
    envelopes: a superset of the pairs within the radius); ``"dwithin"``
    lets GEOS filter them first, which costs a second distance computation
    per pair. Each unordered candidate pair is measured
    once with ``shapely.distance`` and kept when ``d <= radius_units``, the
    same inclusive test as ``STRtree.query(predicate="dwithin")`` that the
    notification check uses, so the returned ``d`` always satisfies the
    radius.
    """
    r = float(radius_units)
    if not np.isfinite(r) or r < 0:
        raise ValueError(f"radius must be a finite, non-negative length (got {radius_units!r})")
    arr = np.asarray(geoms, dtype=object)
    if arr.ndim != 1:
        arr = arr.ravel()
    empty = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64))
    if arr.size == 0:
        return empty
    valid = ~(shapely.is_missing(arr) | shapely.is_empty(arr))
    if not valid.any():
        return empty
    idx = np.flatnonzero(valid)
    tree = shapely.STRtree(arr[idx])
    if candidates == "envelope":
        b = shapely.bounds(arr[idx])
        grown = shapely.box(b[:, 0] - r, b[:, 1] - r, b[:, 2] + r, b[:, 3] + r)
        # Any pair within r has envelopes within r of each other: a superset.
        q, t = tree.query(grown)
    elif candidates == "dwithin":
        q, t = tree.query(arr[idx], predicate="dwithin", distance=r)
    else:
        raise ValueError(f"candidates must be 'envelope' or 'dwithin' (got {candidates!r})")
    upper = q < t  # measure each unordered pair once
    i = idx[q[upper]].astype(np.int64)
    j = idx[t[upper]].astype(np.int64)
    d = shapely.distance(arr[i], arr[j]).astype(np.float64, copy=False)
    ok = d <= r
    i, j, d = i[ok], j[ok], d[ok]
    if not unique_pairs:
        i, j, d = np.concatenate([i, j]), np.concatenate([j, i]), np.concatenate([d, d])
    if include_self:
        own = np.flatnonzero(valid).astype(np.int64)
        i = np.concatenate([i, own])
        j = np.concatenate([j, own])
        d = np.concatenate([d, np.zeros(own.size)])
    order = np.lexsort((j, i))
    return i[order], j[order], d[order]


def split_by_first(i: np.ndarray, j: np.ndarray, d: np.ndarray, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per-geometry neighbour lists from :func:`neighbours_within`'s sorted output.

    Parameters
    ----------
    i, j, d : numpy.ndarray
        The pairs, sorted by ``i`` (as returned).
    n : int
        Number of geometries.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        For each geometry ``k``: its neighbours' indices and distances (CRS
        units), in ascending index order.
    """
    cuts = np.searchsorted(i, np.arange(1, n))
    return list(zip(np.split(j, cuts), np.split(d, cuts)))


__all__ = ["neighbours_within", "split_by_first"]
