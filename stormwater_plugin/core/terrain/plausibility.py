"""Does a DEM's elevation unit look right? (metres read as feet, or the reverse)."""

from __future__ import annotations

import numpy as np

from ..raster import ElevationGrid

FT_PER_M: float = 1.0 / 0.3048

#: Plausible ground elevations around Lake George, feet: the lake's surface is
#: about 320 ft and the surrounding hills stay under about 3,000 ft; the range
#: leaves some slack either side.
LAKE_GEORGE_RANGE_FT: tuple[float, float] = (250.0, 3500.0)


def elevation_plausibility(
    values: np.ndarray,
    z_to_ft: float,
    expected_range_ft: tuple[float, float] = LAKE_GEORGE_RANGE_FT,
    *,
    name: str = "DEM",
) -> str | None:
    """A warning when the median elevation, in feet, falls outside the expected range.

    Parameters
    ----------
    values : numpy.ndarray
        Elevations in the band's unit (``NaN`` for nodata).
    z_to_ft : float
        The declared or assumed unit, in feet.
    expected_range_ft : (float, float)
        Plausible ground elevations in feet.
    name : str
        How to call the DEM in the message.

    Returns
    -------
    str or None
        ``None`` when plausible (or no data); otherwise one sentence that says
        which unit would make the elevations plausible, if any.
    """
    v = np.asarray(values)
    step_r = max(v.shape[0] // 256, 1) if v.ndim == 2 else 1
    step_c = max(v.shape[1] // 256, 1) if v.ndim == 2 else 1
    sub = v[::step_r, ::step_c] if v.ndim == 2 else v
    sub = sub[np.isfinite(sub)]
    if sub.size == 0:
        return None
    median_ft = float(np.median(sub)) * z_to_ft
    lo, hi = expected_range_ft
    if lo <= median_ft <= hi:
        return None
    metres_assumed = abs(z_to_ft - FT_PER_M) < 1e-3
    feet_assumed = abs(z_to_ft - 1.0) < 1e-3
    as_m = median_ft * FT_PER_M  # the band read as metres instead of feet
    as_ft = median_ft / FT_PER_M  # the band read as feet instead of metres
    if feet_assumed and lo <= as_m <= hi:
        hint = f" Read as metres instead of feet it would be {as_m:,.0f} ft, which fits: check --dem-z-units."
    elif metres_assumed and lo <= as_ft <= hi:
        hint = f" Read as feet instead of metres it would be {as_ft:,.0f} ft, which fits: check --dem-z-units."
    else:
        hint = " Check the DEM's elevation unit (--dem-z-units) and that it covers the site."
    return f"{name}: median ground elevation {median_ft:,.0f} ft is outside the {lo:,.0f}-{hi:,.0f} ft expected here.{hint}"


def plausibility_warning(grid: ElevationGrid, expected_range_ft: tuple[float, float] = LAKE_GEORGE_RANGE_FT) -> str | None:
    """A warning when ``grid``'s elevations look like the wrong unit (see :func:`elevation_plausibility`)."""
    return elevation_plausibility(grid.values, grid.z_to_ft, expected_range_ft, name=grid.name)
