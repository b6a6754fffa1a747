"""A layer's features read again in another CRS by their ids (a backend whose request transforms them), matched to the first read."""

from __future__ import annotations

from typing import Hashable, Sequence

from shapely.geometry.base import BaseGeometry

#: Why a feature read in its own CRS has no geometry in the working CRS.
NOT_MAPPED = "cannot be placed in the working CRS (a coordinate the transformation cannot map)"


def matched_by_id(ids: Sequence[Hashable], geoms: Sequence[BaseGeometry | None], moved_ids: Sequence[Hashable],
                  moved_geoms: Sequence[BaseGeometry | None], unusable: dict[int, str]) -> list[BaseGeometry | None]:
    """Each feature's geometry in the other CRS, by position of the first read.

    A feature without geometry stays without; one with a geometry the second read did not give back (the transformation
    could not map a coordinate) is without geometry there, and ``unusable`` (position to why) says so unless it already says why.
    """
    by_id = dict(zip(moved_ids, moved_geoms))
    out: list[BaseGeometry | None] = []
    for i, (fid, g) in enumerate(zip(ids, geoms)):
        moved = by_id.get(fid) if g is not None else None
        if g is not None and moved is None:
            unusable.setdefault(i, NOT_MAPPED)
        out.append(moved)
    return out


__all__ = ["NOT_MAPPED", "matched_by_id"]
