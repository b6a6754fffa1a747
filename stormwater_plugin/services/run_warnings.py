"""The run's warnings that state one fact on every path, in one wording (issue 23, "Source adapters").

The command line's reader and the QGIS snapshot both say when layers were reprojected, when the DEM's
elevation unit was assumed, and that the DEM is sampled in its own CRS; findings.json must be the same
document whichever read the site, so the words are made here.
"""

from __future__ import annotations

from typing import Sequence

from ..core.model import ROLES, Warning_


def reprojected_warnings(moves: Sequence[tuple[str, str]], working: str) -> list[Warning_]:
    """One ``reprojected`` warning per source CRS.

    Parameters
    ----------
    moves : sequence of (str, str)
        (role, source CRS's label such as ``EPSG:2260``) for each source transformed, in any order: the roles
        are named in the contract's order (:data:`~stormwater_plugin.core.model.ROLES`), whichever order a
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
