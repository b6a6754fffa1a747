"""What a site reader's backend gives the reading policy: the adapters' side of :mod:`~stormwater_plugin.services.reading_policy`.

A backend (the file reader in ``headless`` with GDAL, fiona and rasterio; the plugin's snapshot in
``qgis_bridge`` with the QGIS API) fetches; the policy and the one read (:mod:`~stormwater_plugin.services.site_read`)
decide. Two parts of the contract are typed here:

* the DEM handle, one per read, opened once (``headless.dem.DemFile``, ``qgis_bridge.snapshot.DemInfo``), from
  which the reach of the rules (:class:`~stormwater_plugin.services.reading_policy.ReadingReach`), the working
  CRS and the DEM window are taken;
* the layers (:class:`LayerBackend`): the sources of each role as they declare themselves
  (:class:`SourceInfo`), and their features fetched (:class:`FetchedFeatures`), whole or inside a box, in the
  layer's own CRS and then moved into the working CRS. CRSs are the backend's own objects (``pyproj.CRS``,
  ``QgsCoordinateReferenceSystem``): the read passes them back without looking inside.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Mapping, Protocol, Sequence

from shapely.geometry.base import BaseGeometry

#: A box (xmin, ymin, xmax, ymax) in one CRS.
Box = tuple[float, float, float, float]


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


__all__ = ["Box", "DemHandle", "FetchedFeatures", "GeomSlots", "LayerBackend", "SourceInfo"]
