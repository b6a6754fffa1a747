"""Length units. Every distance a user sees is in international feet.

A US survey foot is 1200/3937 m; an international foot is 0.3048 m. Over
100 ft they differ by 0.0002 ft, but across State Plane false eastings the
difference reaches feet, so the two are never mixed up.

Elevation units (their spellings and sizes) are :mod:`~stormwater_plugin.core.dem_policy`'s.
"""

from __future__ import annotations

METRE_PER_FT: float = 0.3048
METRE_PER_US_FT: float = 1200.0 / 3937.0
FT_PER_METRE: float = 1.0 / METRE_PER_FT

#: The elevation units a reviewer declares (``--dem-z-units``, the plugin's setting, a context catalog, the register),
#: which are also the horizontal units a DEM's unit may be assumed from; their sizes and spellings are
#: :data:`~stormwater_plugin.core.dem_policy.Z_UNIT_METRES` and ``Z_UNIT_SPELLINGS``.
USER_Z_UNITS: tuple[str, ...] = ("m", "ft", "us-ft")

#: The linear units a CRS declares, by their constants (metres).
_KNOWN_METRES: tuple[float, ...] = (1.0, METRE_PER_FT, METRE_PER_US_FT)


def known_metres(metres_per_unit: float) -> float:
    """A CRS's linear unit in metres, given as the constant of the known unit it is (metre, foot, US survey foot).

    PROJ's database gives the US survey foot as 12/39.37 m (0.30480060960121924),
    this module and the plugin as 1200/3937 m (0.3048006096012192): the same unit one
    bit apart. A unit within a part in 10^12 of a known one is that one, so the file
    reader and the plugin compute the same feet and the same scale factor to the bit.
    Any other unit is returned as it is.
    """
    for known in _KNOWN_METRES:
        if abs(metres_per_unit - known) <= 1e-12 * known:
            return known
    return metres_per_unit


def feet_per_unit(metres_per_unit: float) -> float:
    """Size of one CRS linear unit in international feet.

    Parameters
    ----------
    metres_per_unit : float
        The CRS axis unit in metres (1.0 for metres, 0.3048 for feet,
        1200/3937 for US survey feet).
    """
    if metres_per_unit <= 0:
        raise ValueError("a linear unit must be positive")
    return known_metres(metres_per_unit) / METRE_PER_FT
