"""The print layout's legend filtered by its map's content, tested off the main thread.

QGIS filters a layout legend by its map ("Only show items inside linked map",
``setLegendFilterByMapEnabled``) with a hit test, ``QgsMapHitTest``, that reads
every feature under the map and asks each layer's renderer which legend entries
they use. QGIS 3.22 runs it on the main thread when the legend is first painted
(0.1–0.25 s of CPU on the demo, more on a large parcel layer), and its hit test
reads the layers themselves, so it cannot run in a task.

:class:`LegendHitTask` does the same test in a ``QgsTask``, the way QGIS's own
map renderer splits its work: the main thread takes, per vector layer, a
feature source (``QgsVectorLayerFeatureSource``), a clone of its renderer and
its render context (milliseconds); the task reads the features under the map's
visible extent and collects each renderer's legend keys
(``legendKeysForFeature``). :func:`apply_legend_hits` then gives the legend
exactly the entries the filter would have kept (a fixed legend node order per
layer, the filter off), so painting the legend tests nothing.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

from qgis.core import (
    QgsExpressionContext,
    QgsExpressionContextUtils,
    QgsFeatureRequest,
    QgsLayoutItemLegend,
    QgsMapLayerLegendUtils,
    QgsMapSettings,
    QgsPrintLayout,
    QgsRenderContext,
    QgsTask,
    QgsVectorLayer,
    QgsVectorLayerFeatureSource,
)

from ..qgis_bridge.compat import legend_rule_key_role
from .gc_pause import in_frozen_heap

#: Features read between two looks at the task's cancel flag.
_CANCEL_EVERY = 500


@dataclass
class _LayerTest:
    """What the task needs of one layer, taken on the main thread."""

    layer_id: str
    source: Any  # QgsVectorLayerFeatureSource, or None: the layer is outside its scale range (no entry shown)
    renderer: Any
    fields: Any
    context: Any  # QgsRenderContext: the map's, with the layer's transform, extent and expression scope


def legend_layers(layout: QgsPrintLayout) -> list[QgsVectorLayer]:
    """The vector layers the layout's filtered legends show (each once, in legend order)."""
    out: dict[str, QgsVectorLayer] = {}
    for item in layout.items():
        if isinstance(item, QgsLayoutItemLegend) and item.legendFilterByMapEnabled():
            for node in item.model().rootGroup().findLayers():
                layer = node.layer()
                if isinstance(layer, QgsVectorLayer) and layer.renderer() is not None:
                    out.setdefault(layer.id(), layer)
    return list(out.values())


class LegendHitTask(QgsTask):
    """The legend keys each layer's features under the map use (QGIS's legend filter by map), read in a task.

    Parameters
    ----------
    settings : QgsMapSettings
        The map as exported (extent, output size, dpi, CRS): :func:`~.print_layout.map_render_task` uses the same.
    layers : list of QgsVectorLayer
        The layers to test (:func:`legend_layers`); only those among ``settings.layers()`` are filtered, as in QGIS.

    After the task: ``keys`` maps a layer id to the set of legend keys its
    features use (a layer in its map's layers but outside its scale range, or
    with no feature under the map, has an empty set); ``error`` is ``None``
    unless the test failed (then the legend keeps QGIS's own filter).
    """

    def __init__(self, settings: QgsMapSettings, layers: list[QgsVectorLayer]) -> None:
        super().__init__("Stormwater review: the layout legend's entries", QgsTask.Flag.CanCancel)
        self.keys: dict[str, set[str]] = {}
        self.error: str | None = None
        self.details = ""
        shown = {lyr.id() for lyr in settings.layers()}
        self.tests: list[_LayerTest] = []
        visible = settings.visibleExtent()
        for layer in layers:
            if layer.id() not in shown or layer.renderer() is None:
                continue  # QGIS filters only the layers of the map it tests
            if not layer.isInScaleRange(settings.scale()):
                self.tests.append(_LayerTest(layer.id(), None, None, None, None))
                continue
            context = QgsRenderContext.fromMapSettings(settings)
            context.setCoordinateTransform(settings.layerTransform(layer))
            context.setExtent(settings.outputExtentToLayerExtent(layer, visible))
            expressions = QgsExpressionContext(context.expressionContext())
            expressions.appendScope(QgsExpressionContextUtils.layerScope(layer))
            context.setExpressionContext(expressions)
            self.tests.append(_LayerTest(layer.id(), QgsVectorLayerFeatureSource(layer), layer.renderer().clone(), layer.fields(), context))

    @in_frozen_heap  # the collections in this thread do not walk the project's long-lived objects
    def run(self) -> bool:  # noqa: D401 - QgsTask API
        from qgis.PyQt.QtGui import QImage, QPainter

        image = QImage(8, 8, QImage.Format.Format_ARGB32_Premultiplied)
        painter = QPainter(image)  # nothing is drawn; symbols starting to render may ask for a painter
        try:
            for k, test in enumerate(self.tests):
                if self.isCanceled():
                    return False
                self.keys[test.layer_id] = set() if test.source is None else self._test(test, painter)
                self.setProgress(100.0 * (k + 1) / max(1, len(self.tests)))
            return not self.isCanceled()
        except Exception as exc:  # the legend keeps QGIS's own filter; never raised into the task manager
            self.error = f"{type(exc).__name__}: {exc}"
            self.details = traceback.format_exc()
            return False
        finally:
            painter.end()

    def _test(self, test: _LayerTest, painter: Any) -> set[str]:
        context = test.context
        context.setPainter(painter)
        renderer = test.renderer
        renderer.startRender(context, test.fields)
        keys: set[str] = set()
        try:
            request = QgsFeatureRequest(context.extent())
            request.setExpressionContext(context.expressionContext())
            request.setSubsetOfAttributes(list(renderer.usedAttributes(context)), test.fields)
            expressions = context.expressionContext()
            for n, feature in enumerate(test.source.getFeatures(request)):
                if n % _CANCEL_EVERY == 0 and self.isCanceled():
                    break
                expressions.setFeature(feature)
                keys.update(renderer.legendKeysForFeature(feature, context))
        finally:
            renderer.stopRender(context)
            context.setPainter(None)
        return keys


def apply_legend_hits(layout: QgsPrintLayout, keys: dict[str, set[str]]) -> int:
    """Give the layout's filtered legends the entries of ``keys`` (:attr:`LegendHitTask.keys`) and turn their filter off.

    Each tested layer keeps, in its order, the legend entries whose rule key is
    among its features' keys, as QGIS's filter keeps them; a layer left with no
    entry is taken out of the legend, as QGIS's legend renderer skips it under
    the filter; an untested layer keeps its entries.
    Then each legend is fitted to its content (``adjustBoxSize``). Main thread;
    nothing is read or tested. Returns the number of legends changed.
    """
    role = legend_rule_key_role()
    changed = 0
    for item in layout.items():
        if not isinstance(item, QgsLayoutItemLegend) or not item.legendFilterByMapEnabled():
            continue
        item.setLegendFilterByMapEnabled(False)
        model = item.model()
        for node in model.rootGroup().findLayers():
            wanted = keys.get(node.layerId())
            if wanted is None:
                continue
            originals = model.layerOriginalLegendNodes(node)
            # the original nodes are already in the node's order, if it has one: keep that order's indices
            order = QgsMapLayerLegendUtils.legendNodeOrder(node) if QgsMapLayerLegendUtils.hasLegendNodeOrder(node) else list(range(len(originals)))
            keep = [order[i] for i, legend_node in enumerate(originals) if i < len(order) and str(legend_node.data(role) or "") in wanted]
            QgsMapLayerLegendUtils.setLegendNodeOrder(node, keep)
            model.refreshLayerLegend(node)
        for node in model.rootGroup().findLayers():
            # QGIS's legend renderer skips a layer left without entries by the filter (and a group left empty: always)
            if not model.layerLegendNodes(node) and node.parent() is not None:
                node.parent().removeChildNode(node)
        item.adjustBoxSize()
        changed += 1
    return changed
