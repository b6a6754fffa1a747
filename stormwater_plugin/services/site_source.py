"""Where a site comes from: one protocol for the file reader and the QGIS snapshot, one use case over both.

A :class:`SiteSource` reads a site into plain inputs (:class:`SiteRead`: the
engine's :class:`~stormwater_plugin.core.engine.SiteInputs` in the working
CRS, that CRS as WKT, and the document's ``inputs`` description). The
command line's adapter is ``headless.site_source.FileSiteSource`` (files,
through the headless reader); the plugin's is
``qgis_bridge.snapshot.QgisSiteSource`` (QGIS layers, through the snapshot).
Both hand what they read to :func:`review_site`, which runs the one review
use case (:func:`~stormwater_plugin.services.review.check`), so the same
layers give the same findings.json whichever front end read them.

QGIS-free and file-free: the adapters do the reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Protocol, Sequence, runtime_checkable

from ..core.engine import SiteInputs
from ..core.overrides import Override
from ..core.rulepack import RulePack
from .review import Review, check


@dataclass
class SiteRead:
    """A site as a :class:`SiteSource` read it.

    Parameters
    ----------
    inputs : SiteInputs
        The engine's inputs, in the working CRS (``inputs.crs_name`` names it).
    crs_wkt : str
        The working CRS as WKT (for the outputs' layers).
    description : dict
        What was read, for the findings.json ``inputs`` (paths or layer sources, the DEM and its unit).
    source : object, optional
        The adapter's own record of the read (the reader's ``LoadedSite``, the QGIS ``Snapshot``), for its front end.
    """

    inputs: SiteInputs
    crs_wkt: str
    description: dict[str, object] = field(default_factory=dict)
    source: object = None


@runtime_checkable
class SiteSource(Protocol):
    """Anything that reads a site into a :class:`SiteRead` for a rule pack (the pack decides how far around the site to read)."""

    def read(self, pack: RulePack) -> SiteRead:
        """Read the site's layers and DEM window; raise the adapter's input error when they cannot be used."""
        ...


def working_crs_text(name: str, authority: str, why: str, scale: float) -> str:
    """The working CRS in words for findings.json, whichever adapter chose it.

    Parameters
    ----------
    name : str
        The CRS's name (``NAD83 / UTM zone 18N``).
    authority : str
        Its authority code (``EPSG:26918``).
    why : str
        Why it was chosen (the adapter's words).
    scale : float
        The grid scale factor at the site (grid distance / ellipsoidal distance).

    Returns
    -------
    str
        ``"NAD83 / UTM zone 18N (EPSG:26918), the DEM's CRS; distances on the ellipsoid (grid scale factor 0.999744)"``,
        the words of the command line's reader.
    """
    return f"{name} ({authority}), {why}; distances on the ellipsoid (grid scale factor {scale:.6f})"


def review_site(
    source: SiteSource,
    pack: RulePack,
    overrides: Sequence[Override] = (),
    *,
    moves: bool = True,
    previous: Mapping[str, object] | None = None,
    previous_label: str = "",
    progress: Callable[[float], bool] | None = None,
) -> tuple[SiteRead, Review]:
    """Read ``source`` and review it: the one path from any front end's inputs to a :class:`Review`.

    Parameters
    ----------
    source : SiteSource
    pack : RulePack
    overrides, moves, previous, previous_label, progress
        As :func:`~stormwater_plugin.services.review.check`.

    Returns
    -------
    (SiteRead, Review)
        What was read, and its review (``review.doc`` is the findings.json document).
    """
    site = source.read(pack)
    review = check(site.inputs, pack, overrides, crs_name=site.inputs.crs_name, inputs_description=site.description, moves=moves,
                   previous=previous, previous_label=previous_label, progress=progress)
    return site, review


__all__ = ["SiteRead", "SiteSource", "review_site", "working_crs_text"]
