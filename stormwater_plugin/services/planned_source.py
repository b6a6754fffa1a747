"""A site planned on the main thread and read in any thread: the plugin's :class:`~stormwater_plugin.services.site_source.SiteSource`
once its layers are taken (``qgis_bridge.snapshot.QgisSiteSource.plan``), and the findings.json ``inputs`` of what it read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Protocol

from ..core.model import SiteInputs
from ..core.rulepack import RulePack
from .role_layer_status import RoleLayerStatus
from .site_source import SiteRead


class ReadSnapshot(Protocol):
    """What a plan's read gives (``qgis_bridge.snapshot.Snapshot``)."""

    @property
    def inputs(self) -> SiteInputs: ...

    @property
    def layers_read(self) -> Mapping[str, RoleLayerStatus] | None: ...

    def crs_wkt(self) -> str: ...


class ReadPlan(Protocol):
    """What a planned source reads (``qgis_bridge.snapshot.SnapshotPlan``): its ``read`` runs in any thread."""

    def read(self, feedback: object = None, progress: Callable[[float], None] | None = None) -> ReadSnapshot: ...


def read_description(layers: Mapping[str, str], dem: str | None, snap: ReadSnapshot, project_file: str | None) -> dict[str, object]:
    """The findings.json ``inputs`` of a snapshot from its sources' texts (taken on the main thread): each role's layer source (the part read), the DEM and its unit."""
    read = snap.layers_read or {}
    return {
        "site": project_file or None,
        "layers": {r: read[r].source if r in read else src for r, src in layers.items()},
        "layers_read": {r: st.describe() for r, st in read.items()},
        "dem": dem,
        "dem_z": snap.inputs.dem.z_unit_note if snap.inputs.dem is not None else None,
    }


@dataclass
class PlannedSiteSource:
    """A ``QgisSiteSource`` planned on the main thread (``QgisSiteSource.plan``): a ``SiteSource`` whose :meth:`read` runs in any thread.

    Parameters
    ----------
    snapshot_plan : SnapshotPlan
        What is read (layers detached for another thread).
    layer_sources, dem_source
        The role layers' and the DEM's source texts, for the document's ``inputs``.
    project_file, contour_count, feedback, progress
        As ``QgisSiteSource.plan``.
    """

    snapshot_plan: ReadPlan
    layer_sources: Mapping[str, str]
    dem_source: str | None = None
    project_file: str | None = None
    contour_count: int = 0
    feedback: object = None
    progress: Callable[[float], None] | None = None

    def read(self, pack: RulePack | None) -> SiteRead:
        """Read the planned layers and the DEM window (the plan's pack decides the windows; ``pack`` is the same pack)."""
        snap = self.snapshot_plan.read(self.feedback, self.progress)
        return SiteRead(snap.inputs, snap.crs_wkt(), read_description(self.layer_sources, self.dem_source, snap, self.project_file), snap,
                        contour_count=self.contour_count)


__all__ = ["PlannedSiteSource", "ReadPlan", "read_description"]
