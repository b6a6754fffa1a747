"""The ids a read gives a layer's features: one rule for every reader.

A feature is named by the first field of ``id`` and its role's own id fields (:data:`ROLE_ID_FIELDS`, a tax
parcel's print key) that the layer has, matched without regard to case; a feature whose value there is
blank is named by its position (``1``, ``2``…; in a role's second and later sources ``layer:1``…). A
whole number held as a float (a shapefile's numeric field) is named without its ``.0``.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

#: Fields used as identity when a layer has no ``id`` field, by role: a tax parcel's print key or section-block-lot, else the
#: parcel id or PIN other counties' parcel layers carry (the plugin named parcels by these; a neighbour's letter names its parcel).
ROLE_ID_FIELDS: dict[str, tuple[str, ...]] = {"parcels": ("PRINT_KEY", "SBL", "PARCEL_ID", "PIN")}


def _blank(v: object) -> bool:
    if type(v) is str:  # most ids: read at each read of the layer
        return not v.strip()
    if type(v) is int:
        return False
    return v is None or (isinstance(v, float) and math.isnan(v)) or str(v).strip() == ""


def id_columns(columns: Sequence[str], role: str) -> list[str]:
    """The columns of ``columns`` the rule may name a ``role``'s features by, in the rule's order."""
    cols = {c.lower(): c for c in columns}
    return [cols[n.lower()] for n in ("id",) + ROLE_ID_FIELDS.get(role, ()) if n.lower() in cols]


def feature_ids(
    records: Sequence[Mapping[str, object]], columns: Sequence[str], role: str, fallback: Sequence[str], first: tuple[str, ...] = ()
) -> list[str]:
    """Each feature's id: the first of ``first``, ``id`` and the role's id fields the layer has, else ``fallback`` (its position).

    ``first`` (a KML placemark's ``name``) is skipped when the writer left it blank for every feature.
    """
    cols = {str(c).lower(): c for c in columns}
    for name in first + ("id",) + ROLE_ID_FIELDS.get(role, ()):
        col = cols.get(name.lower())
        if col is not None and name in first and all(_blank(rec.get(col)) for rec in records):
            continue  # a preferred field left empty by the writer (a KMZ's <name>): the next one names the features
        if col is not None:
            out = []
            for rec, fid in zip(records, fallback):
                v = rec.get(col)
                if _blank(v):
                    out.append(fid)
                elif isinstance(v, float) and v.is_integer():
                    out.append(str(int(v)))
                else:
                    out.append(str(v))
            return out
    return list(fallback)


def position_ids(count: int, prefix: str = "") -> list[str]:
    """Ids by position, 1-based (``prefix:1``… for a role's second and later sources)."""
    return [f"{prefix}:{i + 1}" if prefix else str(i + 1) for i in range(count)]


__all__ = ["ROLE_ID_FIELDS", "feature_ids", "id_columns", "position_ids"]
