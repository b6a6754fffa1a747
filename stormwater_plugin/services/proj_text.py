"""What a PROJ string says that a GIS library may report wrongly or not at all: its linear unit, and its own geographic CRS.

QGIS 3.22 reports US survey feet as feet (a 2 ppm error in every distance): the unit is read from the string, as
PROJ states it. A CRS without an authority has its geographic CRS built from the string's datum and ellipsoid.
"""

from __future__ import annotations

from ..core.units import METRE_PER_FT, METRE_PER_US_FT

#: The PROJ parameters that define a datum and its ellipsoid (kept when the geographic CRS is built).
DATUM_KEYS = ("+datum", "+ellps", "+a", "+b", "+rf", "+f", "+R", "+towgs84", "+nadgrids", "+pm")


def proj_unit_m(proj: str) -> float | None:
    """One unit of a projected CRS in metres as its PROJ string states it (``+units=``, ``+to_meter=``); ``None``: it does not say."""
    if "+units=us-ft" in proj:
        return METRE_PER_US_FT
    if "+units=ft" in proj:
        return METRE_PER_FT
    for part in proj.split():
        if part.startswith("+to_meter="):
            return float(part.split("=", 1)[1])
    return None


def longlat_proj(proj: str) -> str:
    """The PROJ string of longitude/latitude on the datum and ellipsoid of ``proj`` (its own geographic CRS: no datum shift)."""
    keep = [p for p in proj.split() if p.split("=", 1)[0] in DATUM_KEYS]
    return " ".join(["+proj=longlat", *keep, "+no_defs"])


__all__ = ["DATUM_KEYS", "longlat_proj", "proj_unit_m"]
