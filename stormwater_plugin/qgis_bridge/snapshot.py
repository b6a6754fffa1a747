"""Snapshot QGIS layers into plain :class:`SiteInputs` the engine (and a QgsTask) can use.

:func:`plan_snapshot` on the main thread; :meth:`SnapshotPlan.read` (any thread) is the one read (``services.site_read``) via :class:`QgisLayers`.

:class:`QgisSiteSource` is the plugin's
:class:`~stormwater_plugin.services.site_source.SiteSource`: the same plain
inputs the command line's file reader gives, for the same use case
(:func:`~stormwater_plugin.services.site_source.review_site`).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Callable, Mapping

from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext, QgsProject

from ..core.model import SiteInputs, Warning_
from ..core.roles import ROLES
from ..services import planned_source, site_crs
from ..services.backend import Box, SourceInfo
from ..services.layer_source_text import layer_file_name as file_layer_name
from ..services.placement_layers import crs_declared
from ..services.plan_choices import contract_roles_only, stated_class, stated_site
from ..services.read_progress import ReadProgress
from ..services.refetch import matched_by_id
from ..services.site_read import moved_memo, read_site
from ..services.site_source import SiteRead
from ..services.template_layers import drop_undrawn_template_layers
from .crs import QgisCrs, crs_wkt1, unit_to_ft
from .dem import QgisDemBand, QgisDemSource, read_dem
from .layer_parts import RoleLayerStatus, resolve_parts
from .layer_place import (
    box_in,
    box_of_rect,
    feature_count,
    fits_crs,
    layer_extent,
    source_name,
    source_text,
    unplaceable_positions,
)
from .vectors import QgisFrame, read_features, source_crs


@dataclass
class Snapshot:
    """The engine's inputs plus the working CRS as a QGIS object (for result layers)."""

    inputs: SiteInputs
    crs: QgsCoordinateReferenceSystem
    crs_reason: str
    #: Role to what was read (name, feature count, whole source or part), for the run summary.
    layers_read: dict[str, RoleLayerStatus] | None = None

    def crs_wkt(self) -> str:
        """The working CRS as WKT (for the outputs' layers)."""
        return crs_wkt1(self.crs)


class DetachedSource:
    """A vector layer's features for another thread (``QgsVectorLayerFeatureSource``, documented thread-safe).

    The fields, CRS, extent and count are captured on the main thread when it is made; :meth:`getFeatures` may then run
    in a ``QgsTask``. The layer itself is never touched again.

    Parameters
    ----------
    layer : QgsVectorLayer
        Taken on the main thread.
    extent : QgsRectangle, optional
        What ``layer.extent()`` gives now, when known (an edited layer's is read feature by feature): ``gui.live_plan``.
    """

    def __init__(self, layer: Any, extent: Any = None) -> None:
        from qgis.core import QgsVectorLayerFeatureSource

        self._source = QgsVectorLayerFeatureSource(layer)
        self._fields, self._crs = layer.fields(), layer.crs()
        self._extent = layer.extent() if extent is None else extent
        self._count = int(layer.featureCount())
        self._name = layer.name()
        self._uri = str(layer.source())

    def source(self) -> str:
        return self._uri

    def fields(self) -> Any:
        return self._fields

    def sourceCrs(self) -> Any:  # noqa: N802 - QGIS API
        return self._crs

    def sourceExtent(self) -> Any:  # noqa: N802 - QGIS API
        return self._extent

    def featureCount(self) -> int:  # noqa: N802 - QGIS API
        return self._count

    def name(self) -> str:
        return self._name

    def getFeatures(self, request: Any = None) -> Any:  # noqa: N802 - QGIS API
        from qgis.core import QgsFeatureRequest

        return self._source.getFeatures(request if request is not None else QgsFeatureRequest())


def describe_source(src: Any, role: str, context: QgsCoordinateTransformContext, fits: Callable[[Any, Any], bool] = fits_crs) -> SourceInfo:
    """A role's layer as it declares itself: its name, CRS, feature count, fields, extent and whether that extent ``fits`` its CRS."""
    crs = source_crs(src)
    where, described = source_text(src), crs.description()  # each asked once, the fields' names in one call (the live read describes an edited layer at each edit)
    return SourceInfo(role, where, file_layer_name(where), crs, described, feature_count(src), list(src.fields().names()),
                      box_of_rect(layer_extent(src)), fits(src, context), source_name(src), handle=src, crs_known=crs_declared(crs.isValid(), described))


def default_readers() -> tuple[Callable[..., Any], Callable[..., SourceInfo], Callable[..., Any]]:
    """The snapshot's own conversions (features, a layer's description with its CRS fit, DEM window), looked up when called."""
    return read_features, describe_source, read_dem


@dataclass
class SnapshotPlan:
    """Everything a snapshot reads, taken on the main thread in milliseconds; :meth:`read` may run in a ``QgsTask``."""

    sources: dict[str, Any]
    layers_read: dict[str, RoleLayerStatus]
    warnings: list[Warning_]
    #: The DEM band (a provider clone when detached): the read's one DEM handle.
    dem: QgisDemBand | None
    dem_z_units: str | None
    site: str | None
    class_override: str | None
    context: QgsCoordinateTransformContext
    pack: Any
    #: Layers opened for the plan (whole sources of parts): kept alive while it is read.
    keep: list[Any]
    #: The conversions (features, a layer's description with its CRS fit, DEM window); the live re-check's reuse the last read's of the
    #: same inputs (gui.live_read). ``None``: the module's own, looked up when the plan is read (:func:`default_readers`).
    readers: tuple[Callable[..., Any], Callable[..., SourceInfo], Callable[..., Any]] | None = None

    def read(self, feedback: Any = None, progress: Callable[[float], None] | None = None) -> Snapshot:
        """Read the layers and the DEM window (any thread); ``progress`` gets the fraction read (0 to 1)."""
        return _read(self, feedback, progress)


def plan_snapshot(
    role_layers: Mapping[str, Any],
    dem_layer: Any = None,
    dem_z_units: str | None = None,
    site_parcel_id: str | None = None,
    class_override: str | None = None,
    context: QgsCoordinateTransformContext | None = None,
    dem_provider: Any = None,
    pack: Any = None,
    detach: bool = True,
) -> SnapshotPlan:
    """Take what :func:`snapshot` reads on the main thread, without reading features (see :func:`snapshot`).

    With ``detach`` every ``QgsVectorLayer`` becomes a :class:`DetachedSource`
    and the DEM is read through a provider clone, so :meth:`SnapshotPlan.read`
    can run off the main thread.
    """
    if context is None:
        context = QgsProject.instance().transformContext()
    # none chosen (``None``): the DEM read decides from the file's unit, else assumes it, and its note says which (qgis_bridge.dem.dem_z_unit)
    warnings: list[Warning_] = []
    # A geometry-type part of a mixed layer is read as its whole source (never part of a role silently).
    sources, layers_read = resolve_parts({r: s for r, s in role_layers.items() if s is not None}, warnings)
    contract_roles_only(sources, warnings)
    drop_undrawn_template_layers(sources, warnings)
    keep = list(sources.values())
    described_by = None  # the layer's provider, whose metadata a clone made here shares (read on the main thread: qgis_bridge.dem)
    if detach:
        from qgis.core import QgsVectorLayer

        sources = {r: DetachedSource(s) if isinstance(s, QgsVectorLayer) else s for r, s in sources.items()}
        if dem_layer is not None and dem_provider is None:
            described_by = dem_layer.dataProvider()
            dem_provider = described_by.clone()
    dem = QgisDemBand(dem_provider if dem_provider is not None else dem_layer.dataProvider(), dem_layer.crs(), dem_layer.name(), described_by=described_by) if dem_layer is not None else None
    return SnapshotPlan(sources, layers_read, warnings, dem, dem_z_units, stated_site(site_parcel_id), stated_class(class_override), context, pack, keep)


@dataclass
class PlannedSiteSource(planned_source.PlannedSiteSource):
    """A :class:`~stormwater_plugin.services.planned_source.PlannedSiteSource` of a :class:`SnapshotPlan` (the dock reuses its plan's layers)."""

    snapshot_plan: SnapshotPlan


class QgisLayers:
    """A plan's layers and DEM as the one read's :class:`~stormwater_plugin.services.site_read.SiteBackend` (any thread).

    Each role has its one layer (a source list of one); features are read in the layer's own CRS, then read again
    by feature id in the working CRS (the request transforms them), through the plan's ``readers``.
    """

    whole_dem_unplaced = False

    def __init__(self, plan: SnapshotPlan, feedback: Any, progress: Callable[[float], None] | None) -> None:
        self._plan, self._feedback = plan, feedback
        self._read, self._describe, self._read_dem = plan.readers or default_readers()  # the live re-check's reuse the last read's
        self.context = plan.context
        self.crs_ops = QgisCrs(plan.context)
        self.dem = plan.dem
        #: What reading the features says (a geometry that cannot be converted, a layer without CRS), in reading order.
        self.warnings: list[Warning_] = []
        self._progress = ReadProgress([feature_count(s) for s in plan.sources.values()], progress)
        self._infos: dict[str, list[SourceInfo]] | None = None
        self._ft: dict[int, tuple[Any, float]] = {}

    def sources(self) -> dict[str, list[SourceInfo]]:
        if self._infos is not None:
            return self._infos
        out: dict[str, list[SourceInfo]] = {}
        for r in sorted(self._plan.sources, key=ROLES.index):
            out[r] = [self._describe(self._plan.sources[r], r, self.context)]
        self._infos = out
        return out

    def fetch(self, source: SourceInfo, box: Box | None = None) -> QgisFrame:
        frame = self._read(source.handle, source.role, source.crs, self.context, self.warnings, self._feedback, rect=box)
        self._progress.fetched(source.role, source.count)
        return frame

    def to_working(self, source: SourceInfo, features: Any, working: Any) -> tuple[QgisFrame, str | None]:
        fr: QgisFrame = features
        crs = source_crs(source.handle)  # a layer without CRS is never moved: the read lists it as misplaced
        if crs == working:
            return fr, None
        # the same features again (their warnings were given by the first read), transformed by the request
        moved = self._read(source.handle, source.role, working, self.context, [], self._feedback, rect=None,
                           fids=None if fr.rect is None else tuple(fr.fids), attributes=False)
        unusable = dict(fr.unusable)
        geoms = matched_by_id(fr.fids, fr.geoms, moved.fids, moved.geoms, unusable)
        return QgisFrame(geoms, fr.records, fr.columns, working, fr.fids, fr.rect, unusable, fr.restored, moved_memo(fr, moved)), crs.authid() or crs.toProj()

    def fetch_records(self, source: SourceInfo, columns: Any) -> list[dict[str, Any]]:
        return [{c: rec.get(c) for c in columns} for rec in self.fetch(source).records]

    def unplaceable(self, source: SourceInfo, features: Any) -> list[int] | None:
        return unplaceable_positions(source_crs(source.handle), features.geoms, self.context)

    def box_in(self, box: Box | None, src: Any, dst: Any) -> Box | None:
        return box_in(box, src, dst, self.context)

    def working_crs(self, parts: Mapping[str, Any], site_parcel_id: str | None) -> tuple[Any, str]:
        """:func:`~stormwater_plugin.services.site_crs.parts_working_crs`: the layers as read locate the site, as the command line's do."""
        return site_crs.parts_working_crs(self.crs_ops, self.dem.crs if self.dem is not None else None, parts, attrgetter("crs"),
                                          lambda role, fr, base: self.to_working(self.sources()[role][0], fr, base)[0], site_parcel_id)

    def ft_per_unit(self, crs: Any) -> float:
        # the read asks of its working CRS several times: found once per CRS object (held; a QGIS CRS object is a value)
        held = self._ft.get(id(crs))
        if held is None or held[0] is not crs:
            held = self._ft[id(crs)] = (crs, unit_to_ft(crs))
        return held[1]

    def crs_text(self, crs: Any) -> str:
        return str(crs.authid() or crs.toProj())

    def dem_extent(self, working: Any) -> Box | None:
        return box_in(box_of_rect(self.dem.extent), self.dem.crs, working, self.context) if self.dem is not None else None  # as files are carried

    def read_dem(self, working: Any, box: Box | None, z_units: str | None, warnings: list[Warning_]) -> tuple[Any, Any]:
        info = self.dem
        if info is None or (self._feedback is not None and self._feedback.isCanceled()):
            return None, None
        dem = self._read_dem(info.provider, info.crs, working, box, z_units, self.context, warnings, name=info.name)  # None: the whole DEM
        if dem is None:
            return None, None
        # the whole band in blocks: the flow trace reads further windows as it proceeds, in the unit the window was read in (not decided again)
        return dem, QgisDemSource(info.provider, info.crs, working, z_units, self.context, name=info.name, template=dem, described=info)


def _read(plan: SnapshotPlan, feedback: Any, progress: Callable[[float], None] | None) -> Snapshot:
    backend = QgisLayers(plan, feedback, progress)
    read = read_site(backend, plan.pack, plan.site, plan.class_override, plan.dem_z_units, [])
    inputs = read.inputs
    # the plan's own notes first, then what reading the features said, then the read's
    inputs.warnings = list(plan.warnings) + backend.warnings + inputs.warnings
    return Snapshot(inputs=inputs, crs=read.crs, crs_reason=read.why, layers_read=plan.layers_read)


def snapshot(
    role_layers: Mapping[str, Any],
    dem_layer: Any = None,
    dem_z_units: str | None = None,
    site_parcel_id: str | None = None,
    class_override: str | None = None,
    context: QgsCoordinateTransformContext | None = None,
    feedback: Any = None,
    dem_provider: Any = None,
    pack: Any = None,
) -> Snapshot:
    """Read the role layers and the DEM window into plain data (in the calling thread).

    Parameters
    ----------
    role_layers : mapping
        Role to ``QgsVectorLayer`` or Processing feature source; ``None``
        values and unknown roles are left out (a role left out is "not
        supplied", which the engine reports).
    dem_layer : QgsRasterLayer, optional
        Ground elevations.
    dem_z_units : {"m", "ft", "us-ft"}, optional
        The DEM's elevation unit, declared by the user; when ``None`` the unit the
        raster file declares (:func:`~stormwater_plugin.qgis_bridge.dem.band_unit`, read
        as the command line reads it), else it is assumed and a warning added.
    site_parcel_id : str, optional
        Identity of the site parcel.
    class_override : {"exempt", "minor", "major"}, optional
        Project class; ``None`` lets the engine classify.
    context : QgsCoordinateTransformContext, optional
        Datum transformations; the current project's by default.
    feedback : QgsFeedback, optional
        Cancels the read.
    dem_provider : QgsRasterDataProvider, optional
        Provider to read from instead of ``dem_layer.dataProvider()`` (a
        clone, for reading off the main thread).
    pack : RulePack, optional
        The rules: the DEM is read over the window they need
        (:func:`~stormwater_plugin.services.dem_window.dem_window`, the command
        line's policy), and a context role (:data:`~stormwater_plugin.core.roles.CONTEXT_ROLES`) of more than
        :data:`~stormwater_plugin.services.intake.FILTER_MIN_FEATURES` features only around the site and the plan
        (:func:`~stormwater_plugin.services.intake.context_window`); without it, every feature, and the DEM
        around the plan and the wells and septic systems plus ``services.reading_policy.DEM_FALLBACK_MARGIN_FT``.

    Notes
    -----
    The dock reads off the main thread: :func:`plan_snapshot` there, then
    :meth:`SnapshotPlan.read` in its ``QgsTask``.

    A layer whose coordinates do not fit its CRS (its extent against the CRS's
    ``bounds()``), or, with a pack, that lies wholly beyond its role's reach of
    the site, is misplaced, as on the command line
    (:func:`~stormwater_plugin.services.placement_layers.misplaced_sources`):
    its features are listed as without usable geometry with the reason, so
    every rule reading them is undetermined, with a ``layer_misplaced`` warning.
    """
    plan = plan_snapshot(role_layers, dem_layer, dem_z_units, site_parcel_id, class_override, context, dem_provider, pack, detach=False)
    return plan.read(feedback)


def _layer_source(layer: Any) -> str:
    try:
        return str(layer.source())
    except Exception:  # a Processing feature source has no source(): its name
        return source_name(layer)


@dataclass
class QgisSiteSource:
    """A site read from QGIS layers: the plugin's :class:`~stormwater_plugin.services.site_source.SiteSource`.

    :meth:`read` runs :func:`snapshot` in the calling thread (the dock reads in
    a ``QgsTask`` with :func:`plan_snapshot` instead; both give the same inputs).

    Parameters
    ----------
    role_layers : mapping
        Role to ``QgsVectorLayer`` or Processing feature source.
    dem_layer : QgsRasterLayer, optional
    dem_z_units, site_parcel_id, context
        As :func:`snapshot` (the project class is the use case's option,
        :class:`~stormwater_plugin.services.site_source.ReviewOptions`).
    project_file : str, optional
        Recorded as the document's ``inputs.site``.
    """

    role_layers: Mapping[str, Any]
    dem_layer: Any = None
    dem_z_units: str | None = None
    site_parcel_id: str | None = None
    context: QgsCoordinateTransformContext | None = None
    project_file: str | None = None

    #: Existing-grade contour features in the project, for the completeness list.
    contour_count: int = 0
    #: Warnings the front end adds to the read (a role whose layer was removed from the project).
    notes: tuple[Warning_, ...] = ()

    def read(self, pack: Any) -> SiteRead:
        """Snapshot the layers for ``pack`` (its rules place the DEM window and the context's reach)."""
        return self.plan(pack, detach=False).read(pack)

    def plan(self, pack: Any, *, detach: bool = True, feedback: Any = None, progress: Callable[[float], None] | None = None) -> PlannedSiteSource:
        """What :meth:`read` reads, taken here (main thread, milliseconds): its ``read`` may then run in a ``QgsTask``.

        Parameters
        ----------
        pack : RulePack
            The rules (they place the DEM window and the context's reach).
        detach : bool
            Read through thread-safe feature sources and a DEM provider clone (for another thread).
        feedback : object with ``isCanceled()``, optional
            Cancels the read.
        progress : callable, optional
            Given the fraction read (0 to 1).

        Raises
        ------
        TemplateError
            Every layer is an empty layer of a site template.
        """
        plan = plan_snapshot(self.role_layers, self.dem_layer, self.dem_z_units, self.site_parcel_id, context=self.context, pack=pack,
                             detach=detach)
        plan.warnings.extend(self.notes)
        layers = {r: _layer_source(lyr) for r, lyr in self.role_layers.items() if lyr is not None}
        dem = str(self.dem_layer.source()) if self.dem_layer is not None else None
        return PlannedSiteSource(plan, layers, dem, self.project_file, self.contour_count, feedback, progress)

