"""The map of an application: the plan on top, context and terrain below, the site in view.

Opening an application loads its package, the register's context and its DEM. The
reviewer must see the proposed devices and septic systems first, so the layer tree
is ordered plan (points, lines, then areas, the smallest features on top), context, DEM;
the DEM is drawn as a half-transparent hillshade and soils and parcels as outlines, so nothing
below them hides. The canvas frames the site parcel with a margin.

The setback rings and slope rays of a check are many and large: they are drawn only
from 1:2,500 in (:data:`ZONE_SCALE`) and only for the subject of the finding selected
in the table (a layer variable the symbols and labels read), never for the whole site
at once. The features stay in the layers (Processing, the report and the tests read them).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsExpressionContextUtils,
    QgsFeatureRequest,
    QgsFillSymbol,
    QgsHillshadeRenderer,
    QgsMapLayer,
    QgsPalLayerSettings,
    QgsProject,
    QgsProperty,
    QgsRasterLayer,
    QgsRectangle,
    QgsRenderContext,
    QgsSingleSymbolRenderer,
    QgsSymbolLayer,
    QgsUnitTypes,
    QgsVectorLayer,
    QgsWkbTypes,
)

from ..qgis_bridge.compat import null_rectangle

#: The symbol-layer property "enabled": ``PropertyLayerEnabled`` up to QGIS 3.28, ``LayerEnabled`` in the scoped enum after.
_LAYER_ENABLED = getattr(QgsSymbolLayer.Property, "LayerEnabled", None) or QgsSymbolLayer.Property.PropertyLayerEnabled
#: Largest scale denominator at which setback rings and slope rays are drawn (1:2,500 and closer in).
ZONE_SCALE = 2500.0
#: Layer variable naming the subject(s) (``+``-joined ids) of the finding selected in the table.
FOCUS_VARIABLE = "stormwater_review_focus"
#: Custom property marking a layer whose zones follow the selected finding.
ZONES_PROPERTY = "stormwater_review/focus_zones"
FOCUS_EXPRESSION = f"array_contains(string_to_array(coalesce(@{FOCUS_VARIABLE}, ''), '+'), to_string(\"subject_id\"))"
#: Opacity of the DEM's hillshade under the plan.
HILLSHADE_OPACITY = 0.45
#: Margin around the site parcel, as a share of its larger side, and the least width shown (feet).
SITE_MARGIN = 0.25
MIN_SITE_VIEW_FT = 300.0
#: Area layers drawn as outlines: reference lines over the terrain, never a fill hiding the hillshade or the plan.
OUTLINED = ("soil", "parcel")
#: Features sampled per area layer to rank it by its features' size.
_AREA_SAMPLE = 2000


def _geometry_rank(layer: QgsMapLayer) -> int:
    if not isinstance(layer, QgsVectorLayer):
        return 3
    kind = QgsWkbTypes.geometryType(layer.wkbType())
    order = {QgsWkbTypes.GeometryType.PointGeometry: 0, QgsWkbTypes.GeometryType.LineGeometry: 1, QgsWkbTypes.GeometryType.PolygonGeometry: 2}
    return order.get(kind, 3)


def _mean_area(layer: QgsMapLayer) -> float:
    """The mean area of an area layer's features (a sample), in its CRS's units; 0 for other layers."""
    if _geometry_rank(layer) != 2 or not isinstance(layer, QgsVectorLayer):
        return 0.0
    total, n = 0.0, 0
    request = QgsFeatureRequest().setNoAttributes().setLimit(_AREA_SAMPLE)
    for feat in layer.getFeatures(request):
        if feat.hasGeometry():
            total += feat.geometry().area()
            n += 1
    return total / n if n else 0.0


def draw_order(layers: Sequence[QgsMapLayer]) -> list[QgsMapLayer]:
    """``layers`` top to bottom: points, lines, then areas with the smallest features on top (a septic system over the
    lake and the parcels); file order otherwise."""
    return sorted(layers, key=lambda lyr: (_geometry_rank(lyr), _mean_area(lyr)))


def add_application_layers(project: QgsProject, plan: Sequence[QgsMapLayer], context: Sequence[QgsMapLayer], dem: QgsRasterLayer | None) -> None:
    """Add the application's layers: the plan on top, the context below it, the DEM at the bottom (hillshade)."""
    root = project.layerTreeRoot()
    for group in (draw_order(plan), draw_order(context)):
        for layer in group:
            if _outlined(layer):
                outline(layer)
            project.addMapLayer(layer, False)
            root.addLayer(layer)  # appended: below everything added before it
    if dem is not None:
        hillshade(dem)
        project.addMapLayer(dem, False)
        root.addLayer(dem)


def _outlined(layer: QgsMapLayer) -> bool:
    return isinstance(layer, QgsVectorLayer) and _geometry_rank(layer) == 2 and any(w in layer.name().lower() for w in OUTLINED)


def outline(layer: QgsVectorLayer) -> None:
    """Soil map units (brown) and tax parcels (grey) as outlines: the ground and the plan's features stay visible."""
    colour = "#8c6d31" if "soil" in layer.name().lower() else "#505050"
    layer.setRenderer(QgsSingleSymbolRenderer(QgsFillSymbol.createSimple({"style": "no", "outline_color": colour, "outline_width": "0.3"})))
    layer.triggerRepaint()


def hillshade(dem: QgsRasterLayer) -> None:
    """The DEM as a half-transparent hillshade (the relief reads under the plan; elevations are in the Identify tool)."""
    renderer = QgsHillshadeRenderer(dem.dataProvider(), 1, 315.0, 45.0)
    renderer.setMultiDirectional(True)
    dem.setRenderer(renderer)
    dem.setOpacity(HILLSHADE_OPACITY)
    dem.triggerRepaint()


# -- the site in view ------------------------------------------------------------------


def _truthy(value: Any) -> bool:
    if value is None or (hasattr(value, "isNull") and value.isNull()):
        return False
    return str(value).strip().lower() in ("1", "true", "t", "yes", "y")


def site_parcel_extent(parcels: QgsVectorLayer | None, site_parcel: str, plan: Iterable[QgsVectorLayer]) -> QgsRectangle:
    """The site parcel's bounds in the parcels' CRS: the named parcel (any text field equal to ``site_parcel``), else
    those with ``is_site`` set, else the parcels under the plan's features; empty when there is none of these."""
    if parcels is None or not parcels.isValid():
        return QgsRectangle()
    names = [f.name() for f in parcels.fields()]
    wanted = site_parcel.strip()
    flag = next((n for n in names if n.lower() == "is_site"), None)
    picked = null_rectangle()
    found = False
    for feat in parcels.getFeatures():
        if not feat.hasGeometry():
            continue
        hit = bool(wanted) and any(str(feat[n]) == wanted for n in names if feat[n] is not None)
        if not wanted and flag is not None:
            hit = _truthy(feat[flag])
        if hit:
            picked.combineExtentWith(feat.geometry().boundingBox())
            found = True
    if found:
        return picked
    for layer in plan:  # the parcels holding the plan's features
        if layer is parcels or not isinstance(layer, QgsVectorLayer) or not layer.isValid() or layer.featureCount() == 0:
            continue
        ext = layer.extent()
        if parcels.crs() != layer.crs():
            ext = QgsCoordinateTransform(layer.crs(), parcels.crs(), QgsProject.instance()).transformBoundingBox(ext)
        for feat in parcels.getFeatures(QgsFeatureRequest().setFilterRect(ext)):
            if feat.hasGeometry():
                picked.combineExtentWith(feat.geometry().boundingBox())
                found = True
        if found:
            return picked
    return QgsRectangle()


def view_extent(rect: QgsRectangle, crs: QgsCoordinateReferenceSystem, dest: QgsCoordinateReferenceSystem) -> QgsRectangle:
    """``rect`` (in ``crs``) with :data:`SITE_MARGIN` around it and at least :data:`MIN_SITE_VIEW_FT` across, in ``dest``."""
    unit_ft = _feet_per_unit(crs)
    span = max(rect.width(), rect.height()) * (1 + 2 * SITE_MARGIN)
    if unit_ft is not None:
        span = max(span, MIN_SITE_VIEW_FT / unit_ft)
    if span <= 0:
        return QgsRectangle()
    c = rect.center()
    out = QgsRectangle(c.x() - span / 2, c.y() - span / 2, c.x() + span / 2, c.y() + span / 2)
    if dest.isValid() and crs.isValid() and dest != crs:
        out = QgsCoordinateTransform(crs, dest, QgsProject.instance()).transformBoundingBox(out)
    return out


def _feet_per_unit(crs: QgsCoordinateReferenceSystem) -> float | None:
    if not crs.isValid() or crs.isGeographic():
        return None
    factor = QgsUnitTypes.fromUnitToUnitFactor(crs.mapUnits(), QgsUnitTypes.DistanceUnit.DistanceFeet)
    return float(factor) if factor and factor > 0 else None


def _plan_extent(plan: Sequence[QgsMapLayer]) -> tuple[QgsRectangle, QgsCoordinateReferenceSystem] | None:
    rect, crs = None, QgsCoordinateReferenceSystem()
    for layer in plan:
        if not isinstance(layer, QgsVectorLayer) or not layer.isValid() or layer.featureCount() <= 0:
            continue
        ext = layer.extent()
        if rect is None:
            rect, crs = QgsRectangle(ext), layer.crs()
            continue
        if layer.crs() != crs:
            ext = QgsCoordinateTransform(layer.crs(), crs, QgsProject.instance()).transformBoundingBox(ext)
        rect.combineExtentWith(ext)
    return (rect, crs) if rect is not None else None


def frame_site(canvas: Any, parcels: QgsVectorLayer | None, site_parcel: str, plan: Sequence[QgsMapLayer]) -> QgsRectangle:
    """Set ``canvas`` to the site parcel with a margin (else the plan's extent); returns the extent set (empty: nothing set)."""
    vectors = [lyr for lyr in plan if isinstance(lyr, QgsVectorLayer)]
    rect = site_parcel_extent(parcels, site_parcel, vectors)
    if not rect.isEmpty() and parcels is not None:
        crs = parcels.crs()
    else:
        got = _plan_extent(vectors)
        if got is None:
            return QgsRectangle()
        rect, crs = got
    dest = canvas.mapSettings().destinationCrs()
    if not dest.isValid():
        canvas.setDestinationCrs(crs)
        dest = crs
    out = view_extent(rect, crs, dest)
    if not out.isEmpty():
        canvas.setExtent(out)
        canvas.refresh()
    return out


# -- rings and rays for the selected finding ----------------------------------------------


def limit_zones(layer: QgsVectorLayer) -> None:
    """Draw ``layer``'s zones from 1:2,500 in and only for the focused subject (symbols and labels alike)."""
    layer.setScaleBasedVisibility(True)
    layer.setMinimumScale(ZONE_SCALE)  # the most zoomed-out scale at which it is drawn
    layer.setMaximumScale(0.0)
    layer.setCustomProperty(ZONES_PROPERTY, True)
    prop = QgsProperty.fromExpression(FOCUS_EXPRESSION)
    renderer = layer.renderer()
    if renderer is not None:
        for symbol in renderer.symbols(QgsRenderContext()):
            for sl in symbol.symbolLayers():
                sl.setDataDefinedProperty(_LAYER_ENABLED, prop)
    labeling = layer.labeling()
    if labeling is not None and hasattr(labeling, "settings"):
        try:
            settings = QgsPalLayerSettings(labeling.settings())
        except TypeError:  # a rule-based labeling: the symbols already hide the zones
            settings = None
        if settings is not None:
            props = settings.dataDefinedProperties()
            props.setProperty(QgsPalLayerSettings.Property.Show, prop)
            settings.setDataDefinedProperties(props)
            labeling.setSettings(settings)
    set_focus(layer, "")


def set_focus(layer: QgsMapLayer, subject: str) -> None:
    QgsExpressionContextUtils.setLayerVariable(layer, FOCUS_VARIABLE, subject)
    layer.triggerRepaint()


def focus_zones(project: QgsProject, subject: str | None) -> int:
    """Show the rings and rays of ``subject`` (``+``-joined ids; ``None``: none); returns the layers set."""
    n = 0
    for layer in project.mapLayers().values():
        if layer.customProperty(ZONES_PROPERTY, False):
            set_focus(layer, subject or "")
            n += 1
    return n


__all__ = ["FOCUS_VARIABLE", "HILLSHADE_OPACITY", "ZONE_SCALE", "add_application_layers", "draw_order", "focus_zones", "frame_site",
           "hillshade", "limit_zones", "outline", "site_parcel_extent", "view_extent"]
