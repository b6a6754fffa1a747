"""The command line's :class:`~stormwater_plugin.services.site_source.SiteSource`: a site package, ``--layer`` files and a DEM file.

A thin wrapper over :func:`~stormwater_plugin.headless.reader.read_site`
(the reader does the reading and every decision about CRS, units and the DEM
window); it adds what only the files can say (the notes on a DEM built from
the plan's contours, the package's contour count); what was read is described as
``stormwater-check check`` records it in findings.json by :func:`~stormwater_plugin.services.layer_sources.read_description`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.model import Warning_
from ..core.rulepack import RulePack
from ..services.layer_sources import read_description
from ..services.site_source import SiteRead
from . import reader
from .completeness_cli import contour_count
from .contours_dem import dem_notes


@dataclass
class FileSiteSource:
    """A site read from files.

    Parameters
    ----------
    package : Path or None
        The site package (a GeoPackage with standard layer names).
    layer_options : list of str
        ``ROLE=PATH[:LAYER]`` sources (``--layer``).
    dem_path : Path or None
        The DEM file.
    dem_z_units : {"m", "ft", "us-ft"}, optional
        The DEM's elevation unit; ``None``: the unit the file declares.
    site_parcel_id : str, optional
        As ``--site-parcel`` (the project class is the use case's option, :class:`~stormwater_plugin.services.site_source.ReviewOptions`).
    notes : list of Warning_, optional
        Warnings from elsewhere (the context catalog's), added after the reader's.
    dem_notes : bool, optional
        Say what the DEM was built from and compare the package's existing-grade contours with it, as ``check`` does
        (:func:`~stormwater_plugin.headless.contours_dem.dem_notes`).
    compare_dem : Path, optional
        The DEM those contours are compared with instead (``--compare-dem``).
    compare_z_units : str, optional
        The elevation unit stated for the DEM on the command line (``--dem-z-units``), for that comparison.
    context_catalog : Path, optional
        The context catalog the roles were filled from (``--context``), recorded in the description.
    """

    package: Path | None
    layer_options: list[str] = field(default_factory=list)
    dem_path: Path | None = None
    dem_z_units: str | None = None
    site_parcel_id: str | None = None
    notes: list[Warning_] = field(default_factory=list)
    dem_notes: bool = False
    compare_dem: Path | None = None
    compare_z_units: str | None = None
    context_catalog: Path | None = None

    def read(self, pack: RulePack) -> SiteRead:
        """Read the files (:func:`~stormwater_plugin.headless.reader.read_site`); raises its ``InputError``."""
        # through the module: a test that watches the read (the --out lock held meanwhile) replaces reader.read_site
        loaded = reader.read_site(self.package, list(self.layer_options), self.dem_path, self.dem_z_units, self.site_parcel_id, pack=pack)
        loaded.inputs.warnings.extend(list(self.notes) + (dem_notes(self.package, loaded.dem_path, self.compare_dem, self.compare_z_units,
                                                                    loaded.dem_tags)
                                                          if self.dem_notes else []))
        description = read_description(self.package, loaded.sources, loaded.dem_path, loaded.inputs.dem.z_unit_note if loaded.inputs.dem else None,
                                       self.context_catalog)
        return SiteRead(loaded.inputs, loaded.crs.to_wkt(), description, loaded, contour_count(self.package))


__all__ = ["FileSiteSource"]
