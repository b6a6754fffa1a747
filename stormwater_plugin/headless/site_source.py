"""The command line's :class:`~stormwater_plugin.services.site_source.SiteSource`: a site package, ``--layer`` files and a DEM file.

A thin wrapper over :func:`~stormwater_plugin.headless.reader.read_site`
(the reader does the reading and every decision about CRS, units and the DEM
window); it describes what was read as ``stormwater-check check`` records it
in findings.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.rulepack import RulePack
from ..services.site_source import SiteRead
from .reader import read_site


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
    site_parcel_id, class_override : str, optional
        As ``--site-parcel`` and ``--class``.
    """

    package: Path | None
    layer_options: list[str] = field(default_factory=list)
    dem_path: Path | None = None
    dem_z_units: str | None = None
    site_parcel_id: str | None = None
    class_override: str | None = None

    def read(self, pack: RulePack) -> SiteRead:
        """Read the files (:func:`~stormwater_plugin.headless.reader.read_site`); raises its ``InputError``."""
        loaded = read_site(self.package, list(self.layer_options), self.dem_path, self.dem_z_units, self.site_parcel_id, self.class_override,
                           pack=pack)
        description: dict[str, object] = {
            "site": str(self.package) if self.package else None,
            "layers": loaded.sources,
            "dem": loaded.dem_path,
            "dem_z": loaded.inputs.dem.z_unit_note if loaded.inputs.dem else None,
        }
        return SiteRead(loaded.inputs, loaded.crs.to_wkt(), description, loaded)


__all__ = ["FileSiteSource"]
