"""Read a site package and a DEM from files into the core's inputs (headless edge).

geopandas, rasterio and pyproj are imported here, lazily, and nowhere in the
core. Every layer is reprojected to one projected working CRS: the DEM's when
it is projected, else the local UTM zone of the site. Problems a user can fix
raise :class:`InputError` with a message naming the file, layer or field.

:func:`read_site` composes the reader's parts, split along their jobs as
``qgis_bridge`` is: :mod:`.sources` (which files and layers give each role),
:mod:`.vectors` (reading them, within :mod:`.layer_budget`, into
:mod:`.frames`), :mod:`.crs` (the working CRS and scale factor) and
:mod:`.dem` (the DEM window); what they decide is in ``services``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fiona

from ..core.model import SiteInputs, Warning_
from ..services import batch_plan, site_read
from ..services.backend import Box
from ..services.feature_geometry import ARC_STEP_DEG
from ..services.layer_sources import describe_sources
from ..services.placement import PlanOffParcel
from .crs import PYPROJ
from .dem import DemFile, read_dem
from .dem_source import open_dem_source
from .errors import InputError
from .sources import collect_sources
from .vectors import FileLayers


@dataclass
class LoadedSite:
    inputs: SiteInputs
    crs: Any  # pyproj.CRS
    sources: dict[str, str] = field(default_factory=dict)
    dem_path: str | None = None
    #: Why the working CRS was chosen (the words of :func:`choose_working_crs`).
    crs_why: str = ""
    #: The DEM's CRS as WKT ("" without a DEM).
    dem_wkt: str = ""
    #: The DEM's dataset tags (what built it, when the plan's contours did).
    dem_tags: dict[str, str] = field(default_factory=dict)


def site_units(loaded: LoadedSite) -> dict[str, tuple[float, str]]:
    """Each site parcel's (unit_to_ft, crs_name) for the batch (:func:`~stormwater_plugin.services.batch_plan.site_units`)."""
    return batch_plan.site_units(PYPROJ, loaded.crs, loaded.crs_why, loaded.inputs.layers)


def read_site(
    package: Path | None,
    layer_options: list[str],
    dem_path: Path | None,
    dem_z_units: str | None = None,
    site_parcel_id: str | None = None,
    class_override: str | None = None,
    pack: Any = None,
) -> LoadedSite:
    """Read the site package, ``--layer`` overrides and the DEM into :class:`SiteInputs`.

    With ``pack`` the DEM is read over the window its rules need
    (:func:`~stormwater_plugin.services.dem_window.dem_window`: each DEM
    rule's features grown by its reach, and the site parcel grown by the
    envelope's reach); without it, around the plan and the wells and septic
    systems plus 1,000 ft (``services.reading_policy.DEM_FALLBACK_MARGIN_FT``).
    """
    sources, warnings = collect_sources(package, layer_options)
    # The DEM is opened once for the whole read: its CRS, pixel size, extent, window and windowed source come from one handle;
    # the layers in one GDAL environment, each opened once.
    with DemFile(dem_path) if dem_path is not None else contextlib.nullcontext() as dem_file, contextlib.ExitStack() as stack:
        stack.enter_context(fiona.Env(OGR_ARC_STEPSIZE=str(ARC_STEP_DEG)))
        backend = FileSite(stack, sources)
        backend.dem = dem_file
        try:
            read = site_read.read_site(backend, pack, site_parcel_id, class_override, dem_z_units, warnings)
        except PlanOffParcel as exc:
            raise InputError(str(exc)) from exc
        stack.close()
        dem_crs = dem_file.crs if dem_file is not None else None
        return LoadedSite(read.inputs, read.crs, describe_sources(sources), str(dem_path) if dem_path else None, read.why,
                          dem_crs.to_wkt() if dem_crs is not None else "", dict(dem_file.src.tags()) if dem_file is not None else {})


class FileSite(FileLayers):
    """The files and the DEM as the one read's :class:`~stormwater_plugin.services.site_read.SiteBackend`."""

    whole_dem_unplaced = True

    def read_dem(self, working: Any, box: Box | None, z_units: str | None, warnings: list[Warning_]) -> tuple[Any, Any]:
        assert self.dem is not None
        # the layers are read: closed, with their GDAL environment, before the raster is (a vector error GDAL keeps must not reach rasterio)
        self._stack.close()
        dem, dem_warnings = read_dem(self.dem, working, z_units, area=box)  # None: the whole DEM
        warnings.extend(dem_warnings)
        # The same file in windows, with the same unit decision and transforms: the flow trace reads further as it proceeds.
        return dem, open_dem_source(self.dem, dem, working, self.dem.crs) if dem is not None else None

