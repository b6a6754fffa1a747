"""What a site reader's backend gives the reading policy: the adapters' side of :mod:`~stormwater_plugin.services.reading_policy`.

A backend (the file reader in ``headless`` with GDAL, fiona and rasterio; the plugin's snapshot in
``qgis_bridge`` with the QGIS API) fetches; the policy decides. The part of the contract the policy reads
through a typed protocol today is the DEM handle: one per read, opened once
(``headless.dem.DemFile``, ``qgis_bridge.snapshot.DemInfo``), from which the reach of the rules
(:class:`~stormwater_plugin.services.reading_policy.ReadingReach`), the working CRS and the DEM window are taken.
"""

from __future__ import annotations

from typing import Protocol


class DemHandle(Protocol):
    """A DEM as a backend opened it for one read."""

    @property
    def name(self) -> str:
        """The DEM's name in warnings (its file's or layer's)."""
        ...

    @property
    def cell_ft(self) -> float:
        """The DEM's larger pixel side, feet (:func:`~stormwater_plugin.services.intake.dem_cell_ft`: degrees at an upper bound)."""
        ...


__all__ = ["DemHandle"]
