"""What a site reader's backend gives the reading policy: the adapters' side of :mod:`~stormwater_plugin.services.reading_policy`.

A backend (the file reader in ``headless`` with GDAL, fiona and rasterio; the plugin's snapshot in
``qgis_bridge`` with the QGIS API) fetches; the policy decides. The part of the contract the policy reads
through a typed protocol today is the DEM handle: one per read, opened once
(``headless.dem.DemFile``, ``qgis_bridge.snapshot.DemInfo``), from which the reach of the rules
(:class:`~stormwater_plugin.services.reading_policy.ReadingReach`), the working CRS and the DEM window are taken.

The CRS primitives (:class:`CrsBackend`: ``headless.crs`` with pyproj, ``qgis_bridge.crs`` with QGIS) describe a CRS,
transform points to longitude/latitude and project to and from a CRS's own geodetic CRS; the decisions made with them
(the working CRS, the site's centre, the scale factor and the words for findings.json) are
:mod:`~stormwater_plugin.services.site_crs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, Tuple, TypeVar

import numpy as np

from ..core.dem_source import PixelWindow
from .grid_scale import Ellipsoid, ToGeodetic, ToGrid

#: A backend's own CRS object (``pyproj.CRS``, ``QgsCoordinateReferenceSystem``): the policy only hands it back.
CrsT = TypeVar("CrsT")
#: West, south, east, north, degrees.
LonLatBox = Tuple[float, float, float, float]


@dataclass(frozen=True)
class CrsInfo:
    """What the policy reads of a CRS.

    Attributes
    ----------
    name : str
        ``NAD83 / UTM zone 18N``.
    authority : str
        ``EPSG:26918`` (the backend's identifier; ``""`` when it has none).
    projected : bool
        Linear (not angular) map units.
    conformal : bool
        Scale independent of direction (transverse Mercator, Lambert conformal conic, stereographic…).
    metres_per_unit : float
        One map unit in metres (meaningful when ``projected``).
    """

    name: str
    authority: str
    projected: bool
    conformal: bool
    metres_per_unit: float


@dataclass(frozen=True)
class GridProjection:
    """A projected CRS's projection from and to its own geodetic CRS (no datum shift), its unit and its ellipsoid."""

    to_geodetic: ToGeodetic
    to_grid: ToGrid
    unit_m: float
    ellipsoid: Ellipsoid


class CrsBackend(Protocol[CrsT]):
    """A backend's CRS operations: all the working-CRS policy needs of pyproj or QGIS."""

    def describe(self, crs: CrsT) -> CrsInfo:
        """Name, identifier and kind of ``crs``."""
        ...

    def from_epsg(self, code: int) -> CrsT:
        """The CRS of an EPSG code (a WGS 84 UTM zone)."""
        ...

    def to_lonlat(self, crs: CrsT, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Points of ``crs`` as WGS 84 longitudes and latitudes, degrees (not finite where a point cannot be transformed)."""
        ...

    def projection(self, crs: CrsT) -> GridProjection | None:
        """The projection of a projected CRS (:class:`GridProjection`); ``None`` when it is not projected or cannot be built."""
        ...

    def area_of_use(self, crs: CrsT) -> LonLatBox | None:
        """Where ``crs`` is meant to be used, degrees; ``None`` when it declares no area."""
        ...


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


# --------------------------------------------------------------------------- the DEM's band (services.dem_read decides from these)


class DemBand(DemHandle, Protocol):
    """Band 1 of a DEM as a backend gives it: what the file or layer states and its raw pixels, nothing decided.

    :mod:`~stormwater_plugin.services.dem_read` decides from these whether it is an elevation band, its elevation
    unit, what is nodata, the pixel window a box needs, the pixel size in feet and the grid the core receives.
    """

    @property
    def crs(self) -> object:
        """The DEM's CRS, as the backend's own CRS object."""
        ...

    @property
    def crs_name(self) -> str:
        """The DEM's CRS in words for warnings (its authority code, else its definition)."""
        ...

    @property
    def unit_m(self) -> float | None:
        """Metres per horizontal unit of a projected DEM; ``None`` for one in degrees."""
        ...

    @property
    def geotransform(self) -> tuple[float, float, float, float, float, float]:
        """The whole raster's geotransform, GDAL order, in its own CRS."""
        ...

    @property
    def shape(self) -> tuple[int, int]:
        """The whole raster's (rows, cols)."""
        ...

    @property
    def band_count(self) -> int:
        """Number of bands."""
        ...

    @property
    def dtype(self) -> str:
        """Band 1's data type, numpy name (``""`` when unknown)."""
        ...

    @property
    def colour(self) -> Sequence[str]:
        """Each band's colour interpretation (GDAL names)."""
        ...

    @property
    def has_palette(self) -> bool:
        """Whether band 1 carries a colour table."""
        ...

    @property
    def declared_unit(self) -> str | None:
        """The elevation unit the file declares, as written (:func:`~stormwater_plugin.core.dem_policy.file_z_unit`); ``None``: none."""
        ...

    @property
    def nodata(self) -> float | None:
        """The band's nodata value in raw units; ``None`` when none, or when :meth:`read`'s mask carries it."""
        ...

    @property
    def scale(self) -> float:
        """The band's declared scale (elevation = raw × scale + offset)."""
        ...

    @property
    def offset(self) -> float:
        """The band's declared offset."""
        ...

    def read(self, window: PixelWindow) -> np.ndarray | None:
        """Raw band values over ``window`` (inside the raster), a masked array where the backend knows nodata; ``None``: unreadable."""
        ...


__all__ = ["CrsBackend", "CrsInfo", "DemBand", "DemHandle", "GridProjection", "LonLatBox"]
