"""The run's warnings that state one fact on every path, in one wording.

The command line's reader and the QGIS snapshot both say when layers were reprojected, when the DEM's
elevation unit was assumed or its elevations look like another unit (or it has no data over the site),
and that the DEM is sampled in its own CRS; findings.json must be the same
document whichever read the site, so the words are made here.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..core.model import Warning_
from ..core.raster import ElevationGrid
from ..core.roles import ROLES
from ..core.terrain import plausibility_warning


def reprojected_warnings(moves: Sequence[tuple[str, str]], working: str) -> list[Warning_]:
    """One ``reprojected`` warning per source CRS.

    Parameters
    ----------
    moves : sequence of (str, str)
        (role, source CRS's label such as ``EPSG:2260``) for each source transformed, in any order: the roles
        are named in the contract's order (:data:`~stormwater_plugin.core.roles.ROLES`), whichever order a
        front end read them in.
    working : str
        The working CRS's label.
    """
    by_crs: dict[str, set[str]] = {}
    for role, label in moves:
        by_crs.setdefault(label, set()).add(role)

    def order(role: str) -> tuple[int, str]:
        return (ROLES.index(role) if role in ROLES else len(ROLES), role)

    groups = sorted(((sorted(roles, key=order), label) for label, roles in by_crs.items()), key=lambda g: order(g[0][0]))
    return [Warning_("reprojected", f"{', '.join(roles)} reprojected from {label} to the working CRS {working}") for roles, label in groups]


def dem_z_assumed_warning(note: str) -> Warning_:
    """``dem_z_unit_assumed``: the DEM's elevation unit was assumed (``note``: :attr:`~stormwater_plugin.core.dem_policy.ZUnit.note`, with any band scale said)."""
    return Warning_("dem_z_unit_assumed", f"DEM {note}", "dem")


def dem_sampled_in_own_crs_warning(dem_crs: str) -> Warning_:
    """``dem_sampled_in_own_crs``: the DEM (in CRS ``dem_crs``, a label) is sampled where the points fall, never resampled."""
    return Warning_("dem_sampled_in_own_crs", f"the DEM stays in its own CRS ({dem_crs}); points are projected into it and sampled bilinearly, never resampled",
                    "dem")


#: Ground elevations below the first or above the second look like the wrong elevation unit, feet (a sanity range
#: for the DEM as a whole, not a rule: the pack's lake surfaces are checked by the engine).
GROUND_RANGE_FT: tuple[float, float] = (150.0, 6000.0)


def dem_values_warnings(grid: ElevationGrid) -> list[Warning_]:
    """What the DEM window read says of its elevations: no data at all (``dem_all_nodata``), or elevations unlikely in
    the unit decided (``dem_z_implausible``, :func:`~stormwater_plugin.core.terrain.plausibility_warning`, else a span
    outside :data:`GROUND_RANGE_FT`); one check for the command line's read and the plugin's.
    """
    finite = grid.values[np.isfinite(grid.values)]
    if finite.size == 0:
        return [Warning_("dem_all_nodata", f"the DEM {grid.name} has no data over the site: every elevation-dependent check is undetermined")]
    msg = plausibility_warning(grid)
    if msg:
        return [Warning_("dem_z_implausible", msg)]
    z_ft = finite * grid.z_to_ft
    lo, hi = float(np.min(z_ft)), float(np.max(z_ft))
    if hi < GROUND_RANGE_FT[0] or lo > GROUND_RANGE_FT[1]:
        # a lake's surface: the pack's lake_surfaces
        return [Warning_("dem_z_implausible", f"DEM elevations span {lo:.0f}–{hi:.0f} ft, unlikely for ground here: check --dem-z-units")]
    return []
