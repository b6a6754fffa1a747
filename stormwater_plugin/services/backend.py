"""What a site reader's backend gives the reading policy: the adapters' side of :mod:`~stormwater_plugin.services.reading_policy`.

A backend (the file reader in ``headless`` with GDAL, fiona and rasterio; the plugin's snapshot in
``qgis_bridge`` with the QGIS API) fetches; the policy and the one read (:mod:`~stormwater_plugin.services.site_read`)
decide. The contract is typed here:

* the DEM handle, one per read, opened once (``headless.dem.DemFile``, ``qgis_bridge.dem.QgisDemBand``), from
  which the reach of the rules (:class:`~stormwater_plugin.services.reading_policy.ReadingReach`), the working
  CRS and the DEM window are taken, and the band's primitives (:class:`DemBand`) that
  :mod:`~stormwater_plugin.services.dem_read` reads into the core's grid;
* the layers (:class:`LayerBackend`): the sources of each role as they declare themselves
  (:class:`SourceInfo`), and their features fetched (:class:`FetchedFeatures`), whole or inside a box, in the
  layer's own CRS and then moved into the working CRS. CRSs are the backend's own objects (``pyproj.CRS``,
  ``QgsCoordinateReferenceSystem``): the read passes them back without looking inside.

The CRS primitives (:class:`CrsBackend`: ``headless.crs`` with pyproj, ``qgis_bridge.crs`` with QGIS) describe a CRS,
transform points to longitude/latitude and project to and from a CRS's own geodetic CRS; the decisions made with them
(the working CRS, the site's centre, the scale factor and the words for findings.json) are
:mod:`~stormwater_plugin.services.site_crs`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Mapping, Protocol, Sequence, Tuple, TypeVar

import numpy as np
from shapely.geometry.base import BaseGeometry

from ..core.dem_source import PixelWindow
from .grid_scale import Ellipsoid, ToGeodetic, ToGrid

#: A box (xmin, ymin, xmax, ymax) in one CRS.
Box = tuple[float, float, float, float]
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


@dataclass
class SourceInfo:
    """One source of a role as it declares itself, before its features are read.

    Parameters
    ----------
    role : str
        The role it gives features to.
    where : str
        Names it in warnings (``path:layer``).
    name : str
        Its layer's or file's name (the one entry standing for features not read).
    crs : object
        The CRS it declares, the backend's own object.
    crs_name : str
        That CRS's name in warnings.
    count : int
        The features it declares.
    columns : list of str
        Its field names, as stored.
    extent : tuple of 4 float or None
        Its declared extent, in its CRS (``None``: none declared, or not finite).
    fits_crs : bool
        Whether its declared extent can lie where its CRS says
        (:func:`~stormwater_plugin.services.intake.outside_area_of_use`).
    id_prefix : str
        Begins the ids numbered by position of its features when it is not its role's first source.
    id_first : tuple of str
        Fields naming its features before ``id`` (a KML placemark's ``name``).
    handle : object
        The backend's own handle of the source (an open layer, a feature source).
    crs_known : bool
        Whether it declares a CRS at all; one that does not is misplaced, never read
        (:func:`~stormwater_plugin.services.placement_layers.crs_unknown_reason`).
    """

    role: str
    where: str
    name: str
    crs: object
    crs_name: str
    count: int
    columns: list[str]
    extent: Box | None = None
    fits_crs: bool = True
    id_prefix: str = ""
    id_first: tuple[str, ...] = ()
    handle: object = field(default=None, repr=False)
    crs_known: bool = True


class GeomSlots(Protocol):
    """Each feature's geometry by position (a list, a numpy object array), replaceable."""

    def __getitem__(self, i: int, /) -> BaseGeometry | None: ...

    def __setitem__(self, i: int, value: BaseGeometry | None, /) -> None: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[BaseGeometry | None]: ...


class FetchedFeatures(Protocol):
    """A source's features as fetched, in one CRS: position ``i`` of each list is one feature.

    ``geoms`` holds shapely geometries (``None``: no usable geometry; ``unusable[i]`` then says why, when
    known); ``records`` the attributes as plain values under the stored field names; ``restored`` the
    (position, field) of text values read whole after the driver cut them.
    """

    @property
    def geoms(self) -> GeomSlots: ...

    records: list[dict[str, object]]
    columns: list[str]
    unusable: dict[int, str]
    restored: list[tuple[int, str]]

    def __len__(self) -> int: ...


class LayerBackend(Protocol):
    """A backend's layers: what the one read (:func:`~stormwater_plugin.services.site_read.read_layers`) fetches through."""

    def sources(self) -> Mapping[str, Sequence[SourceInfo]]:
        """Every source of each role, in reading order."""
        ...

    def fetch(self, source: SourceInfo, box: Box | None = None) -> FetchedFeatures:
        """The features of ``source`` in its own CRS: all of them, or those meeting ``box`` (in its CRS) and those without geometry."""
        ...

    def to_working(self, source: SourceInfo, features: FetchedFeatures, working: object) -> tuple[FetchedFeatures, str | None]:
        """``features`` (of ``source``, in its CRS) in ``working``, and the source CRS's text when they were moved (``None``: same CRS)."""
        ...

    def fetch_records(self, source: SourceInfo, columns: Sequence[str]) -> list[dict[str, object]]:
        """Every feature's values of ``columns`` only, without geometry (the ids of a source that cannot be measured)."""
        ...

    def unplaceable(self, source: SourceInfo, features: FetchedFeatures) -> list[int] | None:
        """Positions of the features (in its CRS) that lie where that CRS cannot place them; ``None`` when none fits."""
        ...

    def working_crs(self, parts: Mapping[str, Sequence[tuple[FetchedFeatures, Sequence[str]]]], site_parcel_id: str | None) -> tuple[object, str]:
        """The working CRS and why (:func:`~stormwater_plugin.services.working_crs.choose_working_crs`), from each role's usable
        sources in their own CRSs with their features' ids (they locate the site)."""
        ...

    def ft_per_unit(self, crs: object) -> float:
        """Feet per unit of ``crs``'s axes (no scale factor)."""
        ...

    def crs_text(self, crs: object) -> str:
        """``crs`` in a warning (its code, else its definition)."""
        ...

    def box_in(self, box: Box | None, src: object, dst: object) -> Box | None:
        """``box`` in CRS ``src`` as a box in ``dst`` (``None``: it cannot be transformed)."""
        ...


__all__ = ["Box", "CrsBackend", "CrsInfo", "DemBand", "DemHandle", "FetchedFeatures", "GeomSlots", "GridProjection", "LayerBackend", "LonLatBox",
           "SourceInfo"]
