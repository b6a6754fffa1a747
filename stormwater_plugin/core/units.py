"""Length units. Every distance a user sees is in international feet.

A US survey foot is 1200/3937 m; an international foot is 0.3048 m. Over
100 ft they differ by 0.0002 ft, but across State Plane false eastings the
difference reaches feet, so the two are never mixed up.
"""

from __future__ import annotations

METRE_PER_FT: float = 0.3048
METRE_PER_US_FT: float = 1200.0 / 3937.0
FT_PER_METRE: float = 1.0 / METRE_PER_FT

#: Elevation units accepted by ``--dem-z-units`` and their size in feet.
Z_UNITS_TO_FT: dict[str, float] = {
    "m": FT_PER_METRE,
    "ft": 1.0,
    "us-ft": METRE_PER_US_FT / METRE_PER_FT,
}

#: Names that GDAL/PROJ and data producers use for the same units.
_UNIT_ALIASES: dict[str, str] = {
    "m": "m",
    "metre": "m",
    "meter": "m",
    "metres": "m",
    "meters": "m",
    "ft": "ft",
    "foot": "ft",
    "feet": "ft",
    "international foot": "ft",
    "ft_intl": "ft",
    "us-ft": "us-ft",
    "us_ft": "us-ft",
    "ftus": "us-ft",
    "us survey foot": "us-ft",
    "foot_us": "us-ft",
    "us foot": "us-ft",
}


def normalise_z_unit(name: str | None) -> str | None:
    """Map a unit name (``"metre"``, ``"US survey foot"``…) to ``m``, ``ft`` or ``us-ft``.

    Returns ``None`` for an unknown or empty name.
    """
    if not name:
        return None
    return _UNIT_ALIASES.get(name.strip().lower())


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
