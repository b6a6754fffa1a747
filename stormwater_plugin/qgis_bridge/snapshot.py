"""Snapshot QGIS layers into plain :class:`SiteInputs` the engine (and a QgsTask) can use.

:class:`QgisSiteSource` is the plugin's
:class:`~stormwater_plugin.services.site_source.SiteSource`: the same plain
inputs the command line's file reader gives, for the same use case
(:func:`~stormwater_plugin.services.site_source.review_site`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext, QgsProject

from ..core.model import PROJECT_CLASSES, FeatureLayer, SiteInputs, Warning_
from ..core.roles import CONTEXT_ROLES, ROLES, TERRAIN_EXTENT_ROLES
from ..services.intake import FILTER_MIN_FEATURES as FILTER_MIN_FEATURES  # the size above which a context layer is read near the site only
from ..services.intake import MAX_LISTED, dem_cell_ft, role_reaches_ft, unplaceable_feature_problem
from ..services.placement_layers import SourcePlace, as_misplaced, exclude_features, plan_layer_place, unplaceable_warning
from ..services.reading_policy import (
    ReadingReach,
    context_filtered_warning,
    decide_layer_placement,
    dem_read_box,
    screened_feature_by_feature,
    template_undrawn,
    whole_dem,
)
from ..services.run_warnings import reprojected_warnings
from ..services.site_source import SiteRead, working_crs_text
from ..services.site_template import read_statements
from .crs import choose_working_crs, crs_label, site_ground_scale, site_working_crs, unit_to_ft
from .dem import QgisDemSource, read_dem
from .layer_parts import RoleLayerStatus, resolve_parts
from .layer_place import (
    box_in,
    box_of_rect,
    feature_count,
    fits_crs,
    layer_extent,
    layer_file_name,
    source_crs_names,
    source_name,
    source_text,
    unplaceable_positions,
)
from .vectors import read_features, source_crs

#: Margin around the plan read from the DEM, in feet: more than every setback and the 100 ft slope reach.
DEM_MARGIN_FT = 1000.0


@dataclass
class Snapshot:
    """The engine's inputs plus the working CRS as a QGIS object (for result layers)."""

    inputs: SiteInputs
    crs: QgsCoordinateReferenceSystem
    crs_reason: str
    #: Role to what was read (name, feature count, whole source or part), for the run summary.
    layers_read: dict[str, RoleLayerStatus] | None = None


class DetachedSource:
    """A vector layer's features for another thread (``QgsVectorLayerFeatureSource``, documented thread-safe).

    The fields, CRS, extent and count are captured on the main thread when it
    is made; :meth:`getFeatures` may then run in a ``QgsTask``. The layer
    itself is never touched again.

    Parameters
    ----------
    layer : QgsVectorLayer
        Taken on the main thread.
    """

    def __init__(self, layer: Any) -> None:
        from qgis.core import QgsVectorLayerFeatureSource

        self._source = QgsVectorLayerFeatureSource(layer)
        self._fields = layer.fields()
        self._crs = layer.crs()
        self._extent = layer.extent()
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


@dataclass
class DemInfo:
    """What the snapshot needs of the DEM layer, captured on the main thread (a provider clone to read from): the read's
    :class:`~stormwater_plugin.services.backend.DemHandle`."""

    crs: QgsCoordinateReferenceSystem
    extent: Any
    px: float
    name: str
    provider: Any

    @property
    def cell_ft(self) -> float:
        """The larger pixel side, feet (:func:`~stormwater_plugin.services.intake.dem_cell_ft`: degrees at an upper bound)."""
        return dem_cell_ft(self.px, None if self.crs.isGeographic() else unit_to_ft(self.crs))

    @classmethod
    def of(cls, dem_layer: Any, provider: Any = None) -> DemInfo:
        px = max(abs(dem_layer.rasterUnitsPerPixelX()), abs(dem_layer.rasterUnitsPerPixelY()))
        return cls(dem_layer.crs(), dem_layer.extent(), px, dem_layer.name(), provider if provider is not None else dem_layer.dataProvider())


def default_readers() -> tuple[Callable[..., Any], Callable[..., bool], Callable[..., Any]]:
    """The snapshot's own conversions (features, CRS fit, DEM window), looked up when called."""
    return read_features, fits_crs, read_dem


@dataclass
class SnapshotPlan:
    """Everything a snapshot reads, taken on the main thread in milliseconds; :meth:`read` may run in a ``QgsTask``."""

    sources: dict[str, Any]
    layers_read: dict[str, RoleLayerStatus]
    warnings: list[Warning_]
    dem: DemInfo | None
    dem_z_units: str | None
    site: str | None
    class_override: str | None
    context: QgsCoordinateTransformContext
    pack: Any
    #: Layers opened for the plan (whole sources of parts): kept alive while it is read.
    keep: list[Any]
    #: The conversions (features, CRS fit, DEM window); the live re-check's reuse the last read's of the same inputs (gui.live_read).
    #: ``None``: the module's own, looked up when the plan is read (:func:`default_readers`).
    readers: tuple[Callable[..., Any], Callable[..., bool], Callable[..., Any]] | None = None

    def read(self, feedback: Any = None, progress: Callable[[float], None] | None = None) -> Snapshot:
        """Read the layers and the DEM window (any thread); ``progress`` gets the fraction read (0 to 1)."""
        return _read(self, feedback, progress)


def _drop_undrawn_template_layers(sources: dict[str, Any], warnings: list[Warning_]) -> None:
    """A site template's empty layers are not drawn, never "none" (:func:`~stormwater_plugin.services.site_template.undrawn_roles`).

    The roles whose layer is an empty layer of a template package (its ``site_statements`` table) not
    stated none are taken out of ``sources`` with a warning, as the command line reads them. A check
    whose every layer is an empty template layer is refused (:class:`~stormwater_plugin.services.site_template.TemplateError`).
    """
    from pathlib import Path

    by_package: dict[str, dict[str, int]] = {}
    for role, src in sources.items():
        uri = src.source() if hasattr(src, "source") else ""
        path = str(uri).split("|")[0]
        if not path.lower().endswith(".gpkg") or not hasattr(src, "featureCount"):
            continue
        by_package.setdefault(path, {})[role] = int(src.featureCount())
    templates = {path: (stated, counts) for path, counts in by_package.items()
                 if Path(path).is_file() and (stated := read_statements(Path(path))) is not None}
    refuse = len(templates) == 1 and sum(len(c) for _, c in templates.values()) == len(sources)
    for path, (stated, counts) in templates.items():
        undrawn, notes = template_undrawn(Path(path).name, stated, counts, refuse)
        for role in undrawn:
            del sources[role]
        warnings.extend(notes)


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
    for r in list(sources):
        if r not in ROLES:
            warnings.append(Warning_("unknown_role", f"layer role '{r}' is not part of the contract and was ignored", r))
            del sources[r]
    _drop_undrawn_template_layers(sources, warnings)
    keep = list(sources.values())
    if detach:
        from qgis.core import QgsVectorLayer

        sources = {r: DetachedSource(s) if isinstance(s, QgsVectorLayer) else s for r, s in sources.items()}
        if dem_layer is not None and dem_provider is None:
            dem_provider = dem_layer.dataProvider().clone()
    dem = DemInfo.of(dem_layer, dem_provider) if dem_layer is not None else None
    site = str(site_parcel_id).strip() if site_parcel_id not in (None, "") else None
    cls = class_override if class_override in PROJECT_CLASSES else None
    return SnapshotPlan(sources, layers_read, warnings, dem, dem_z_units, site, cls, context, pack, keep)


def context_reaches_ft(pack: Any, cell_ft: float) -> dict[str, float]:
    """How far from the site and the plan each context role is read, feet (``inf``: the DEM's extent or the whole layer).

    :func:`~stormwater_plugin.services.intake.role_reaches_ft`, the command line's reading, for the context roles.
    """
    return role_reaches_ft(pack, cell_ft, CONTEXT_ROLES)


def _dem_box(dem: DemInfo, working: Any, context: Any) -> tuple[float, float, float, float]:
    from qgis.core import QgsCoordinateTransform

    r = QgsCoordinateTransform(dem.crs, working, context).transformBoundingBox(dem.extent) if dem.crs != working else dem.extent
    return r.xMinimum(), r.yMinimum(), r.xMaximum(), r.yMaximum()


def _read(plan: SnapshotPlan, feedback: Any, progress: Callable[[float], None] | None) -> Snapshot:
    read_features, fits_crs, read_dem = plan.readers or default_readers()  # the live re-check's reuse the last read's
    sources, context, warnings = plan.sources, plan.context, list(plan.warnings)
    ordered = sorted(sources, key=ROLES.index)
    dem_crs = plan.dem.crs if plan.dem is not None else None
    # A layer whose coordinates do not fit its CRS takes no part in choosing the working CRS (as the command line).
    misfit = {r for r in ordered if not fits_crs(sources[r], context)}
    # One feature that cannot be placed never makes its layer misplaced (as the command line): a layer the
    # command line reads whole is judged feature by feature, and misplaced only when none of its features fits.
    stray: dict[str, list[int]] = {}
    for r in sorted(misfit, key=ordered.index):
        if screened_feature_by_feature(r, feature_count(sources[r])):
            found = unplaceable_positions(sources[r], context)
            if found is not None:
                misfit.discard(r)
                stray[r] = found
    choosing = [r for r in ordered if r not in misfit] or ordered
    working, reason = choose_working_crs(
        dem_crs,
        [source_crs(sources[r]) for r in choosing],
        [(layer_extent(sources[r]), source_crs(sources[r])) for r in choosing],
        context,
    )
    counts = {r: feature_count(sources[r]) for r in ordered}
    total = float(sum(max(c, 1) for c in counts.values())) or 1.0
    done = 0.0

    def step(role: str) -> None:
        nonlocal done
        done += max(counts[role], 1)
        if progress is not None:
            progress(min(done / total, 1.0))

    filtered = plan.pack is not None
    layers: dict[str, FeatureLayer] = {}
    raw: dict[str, FeatureLayer | None] = {}  # misplaced roles as read (their ids), before they are listed as without geometry
    moves: list[tuple[str, str]] = []  # (role, source CRS) of each layer transformed (services.run_warnings words them)
    role_warnings: dict[str, list[Warning_]] = {}

    def read_misplaced(r: str, into: list[Warning_]) -> None:
        # read only to name its features (the command line's MAX_LISTED); in its own CRS when its coordinates do not fit it
        own = source_crs(sources[r])
        if counts[r] > MAX_LISTED:
            raw[r] = None
            return
        raw[r] = read_features(sources[r], r, own if r in misfit else working, context, into, feedback)
        moved(r)

    def moved(r: str) -> None:
        crs = source_crs(sources[r])
        if crs.isValid() and crs != working:
            moves.append((r, crs.authid() or crs.toProj()))

    def read_plan(into: list[Warning_], first: bool) -> None:
        for r in ordered:  # the plan first: it locates the site and places the context's window
            if r in misfit:
                read_misplaced(r, into)
            elif not (filtered and r in CONTEXT_ROLES):
                layers[r] = read_features(sources[r], r, working, context, into, feedback)
                moved(r)
            else:
                continue
            if first:
                step(r)

    plan_warnings: list[Warning_] = []
    read_plan(plan_warnings, True)
    # The UTM zone of the site's centre, as the command line takes it (services.working_crs.site_lonlat): the plan was read in
    # the zone of the layers' extents, and is read again in the site's when the two differ (a site by a zone boundary).
    by_site = site_working_crs(dem_crs, layers, working, plan.site, context)
    if by_site is not None:
        if by_site[0] != working:
            working = by_site[0]
            layers.clear()
            raw.clear()
            moves.clear()
            plan_warnings = []
            read_plan(plan_warnings, False)
        reason = by_site[1]
    warnings.extend(plan_warnings)
    site = plan.site
    crs_names = source_crs_names(sources)
    for r, found in stray.items():  # the plan's layers are read; the context's are excluded from as they are read
        if found and r in layers:
            _exclude(layers, r, found, unplaceable_feature_problem(source_text(sources[r]), crs_names[r]), role_warnings)
    reasons, far = _placement(sources, ordered, misfit, layers, plan.pack, plan.dem, working, context, site, crs_names)
    for r, (positions, far_why) in far.items():
        _exclude(layers, r, positions, far_why, role_warnings)
    for r in ordered:  # a plan layer far from the rest of the plan: misplaced, each of its features named (read whole, as the command line)
        if r not in CONTEXT_ROLES and r not in misfit and reasons.get(r) is not None:
            raw[r] = layers.pop(r)
    # The scale factor at the site, as the command line and the batch take it (services.working_crs), without a misplaced layer.
    scale = site_ground_scale(working, layers, site, context)
    u = unit_to_ft(working) / scale
    if filtered:
        reach = ReadingReach(role_reaches_ft(plan.pack, plan.dem.cell_ft if plan.dem is not None else 0.0))
        dem_box = _dem_box(plan.dem, working, context) if plan.dem is not None else None
        plan_layers = dict(layers)
        for r in ordered:
            if r not in CONTEXT_ROLES or r in misfit:
                continue
            if reasons.get(r) is not None:
                read_misplaced(r, warnings)
                step(r)
                continue
            rect = reach.context_box(r, counts[r], plan_layers, site, unit_to_ft(working), dem_box)  # the command line's window
            layers[r] = read_features(sources[r], r, working, context, warnings, feedback, rect=rect)
            if stray.get(r) and rect is None:
                _exclude(layers, r, stray[r], unplaceable_feature_problem(source_text(sources[r]), crs_names[r]), role_warnings)
            moved(r)
            filtered_note = context_filtered_warning(source_name(sources[r]), len(layers[r]), counts[r], r) if rect is not None else None
            if filtered_note is not None:
                role_warnings.setdefault(r, []).append(filtered_note)
            step(r)
    for r in ordered:
        why = reasons.get(r)
        if why is not None:
            layers[r], w = as_misplaced(r, raw.get(r), why, counts[r], layer_file_name(sources[r]))
            role_warnings.setdefault(r, []).append(w)
    layers = {r: layers[r] for r in ordered if r in layers}
    for r in ordered:
        warnings.extend(role_warnings.get(r, []))
    warnings.extend(reprojected_warnings(moves, working.authid() or working.toProj()))
    dem = None
    dem_source = None
    if plan.dem is not None and not (feedback is not None and feedback.isCanceled()):
        info = plan.dem
        window = dem_read_box(layers, plan.pack, u, info, site, TERRAIN_EXTENT_ROLES, DEM_MARGIN_FT / u)
        if window is not None and whole_dem(window):  # a rule with unlimited reach (a flow trace of no declared length): the DEM's whole extent
            window = _dem_box(info, working, context)
        if window is None:
            warnings.append(Warning_("dem_unused", "no layer has features, so the DEM window could not be placed", "dem"))
        else:
            dem = read_dem(info.provider, dem_crs, working, window, plan.dem_z_units, context, warnings, name=info.name)
            if dem is not None:  # the whole band in blocks: the flow trace reads further windows as it proceeds
                dem_source = QgisDemSource(info.provider, dem_crs, working, plan.dem_z_units, context, name=info.name)
    # In the command line's words (one wording for both adapters, so the dock's findings.json is the CLI's).
    crs_name = working_crs_text(working.description(), working.authid(), reason, scale) if working.authid() else \
        f"{crs_label(working)}, {reason}; distances on the ellipsoid (grid scale factor {scale:.6f})"
    inputs = SiteInputs(layers=layers, dem=dem, unit_to_ft=u, crs_name=crs_name, site_parcel_id=site, class_override=plan.class_override,
                        warnings=warnings, dem_source=dem_source)
    return Snapshot(inputs=inputs, crs=working, crs_reason=reason, layers_read=plan.layers_read)


def _exclude(layers: dict[str, FeatureLayer], role: str, positions: list[int], reason: str, role_warnings: dict[str, list[Warning_]]) -> None:
    """Exclude the features of a role's layer at ``positions`` (:func:`~stormwater_plugin.services.placement_layers.exclude_features`), warned."""
    layers[role], ids = exclude_features(layers[role], positions, reason)
    role_warnings.setdefault(role, []).append(unplaceable_warning(role, reason, ids))


def _placement(
    sources: Mapping[str, Any], ordered: list[str], misfit: set[str], layers: Mapping[str, FeatureLayer], pack: Any, dem: DemInfo | None,
    working: Any, context: Any, site: str | None, crs_names: Mapping[str, str],
) -> tuple[dict[str, str | None], dict[str, tuple[list[int], str]]]:
    """Why each role's layer is misplaced, and its stray plan features (:func:`~stormwater_plugin.services.reading_policy.decide_layer_placement`).

    The plan's layers are given as read (working CRS), the context's by their extent transformed.
    """
    reach = ReadingReach.of(pack, dem)
    ft = unit_to_ft(working)
    places: list[SourcePlace] = []
    for r in ordered:
        place = SourcePlace(r, source_text(sources[r]), crs_names[r], fits_crs=r not in misfit)
        if r in misfit:
            pass
        elif r in CONTEXT_ROLES:
            place.bounds = box_in(box_of_rect(layer_extent(sources[r])), source_crs(sources[r]), working, context) if feature_count(sources[r]) else None
        elif r in layers:
            plan_layer_place(place, layers[r])
        places.append(place)
    return decide_layer_placement(places, layers, reach, ft, site)


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
        line's policy), and a context role (:data:`CONTEXT_ROLES`) of more than
        :data:`~stormwater_plugin.services.intake.FILTER_MIN_FEATURES` features only around the site and the plan
        (:func:`~stormwater_plugin.services.intake.context_window`); without it, every feature, and the DEM
        around the plan roles plus :data:`DEM_MARGIN_FT`.

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


def snapshot_inputs(
    role_layers: Mapping[str, Any],
    dem_layer: Any = None,
    dem_z_units: str | None = None,
    site_parcel_id: str | None = None,
    class_override: str | None = None,
) -> SiteInputs:
    """The engine's inputs from QGIS layers (see :func:`snapshot`); plain data, safe to hand to a QgsTask."""
    return snapshot(role_layers, dem_layer, dem_z_units, site_parcel_id, class_override).inputs


def _description(layers: Mapping[str, str], dem: str | None, snap: Snapshot, project_file: str | None) -> dict[str, Any]:
    """The findings.json ``inputs`` of a snapshot from its sources' texts (taken on the main thread): each role's layer source (the part read), the DEM and its unit."""
    read = snap.layers_read or {}
    return {
        "site": project_file or None,
        "layers": {r: read[r].source if r in read else src for r, src in layers.items()},
        "layers_read": {r: st.describe() for r, st in read.items()},
        "dem": dem,
        "dem_z": snap.inputs.dem.z_unit_note if snap.inputs.dem is not None else None,
    }


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


@dataclass
class PlannedSiteSource:
    """A :class:`QgisSiteSource` planned on the main thread (:meth:`QgisSiteSource.plan`): a ``SiteSource`` whose :meth:`read` runs in any thread.

    Parameters
    ----------
    snapshot_plan : SnapshotPlan
        What is read (layers detached for another thread).
    layer_sources, dem_source
        The role layers' and the DEM's source texts, for the document's ``inputs``.
    project_file, contour_count, feedback, progress
        As :meth:`QgisSiteSource.plan`.
    """

    snapshot_plan: SnapshotPlan
    layer_sources: Mapping[str, str]
    dem_source: str | None = None
    project_file: str | None = None
    contour_count: int = 0
    feedback: Any = None
    progress: Callable[[float], None] | None = None

    def read(self, pack: Any) -> SiteRead:
        """Read the planned layers and the DEM window (the plan's pack decides the windows; ``pack`` is the same pack)."""
        snap = self.snapshot_plan.read(self.feedback, self.progress)
        return SiteRead(snap.inputs, snap.crs.toWkt(), _description(self.layer_sources, self.dem_source, snap, self.project_file), snap,
                        contour_count=self.contour_count)
