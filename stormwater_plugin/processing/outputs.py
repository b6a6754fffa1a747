"""Output writers the algorithms share: rows into sinks (styled when loaded), JSON files, warnings and the closing summary."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from qgis.core import QgsFeature, QgsFeatureSink, QgsProcessingAlgorithm, QgsProcessingLayerPostProcessorInterface

from ..core.model import Warning_
from ..qgis_bridge.results import field_specs, make_fields, to_qgs
from ..resources_path import style_path
from ..services.layer_rows import Row, Schema


class StyleOnLoad(QgsProcessingLayerPostProcessorInterface):
    """Give an output layer the dock's style (status colours, labels) when QGIS loads it after the run.

    QGIS keeps only a pointer to a post-processor: :func:`style_output` holds
    each one in :attr:`alive` so Python does not collect it first.
    """

    alive: list[StyleOnLoad] = []

    def __init__(self, style: str) -> None:
        super().__init__()
        self.style = style

    def postProcessLayer(self, layer: Any, context: Any, feedback: Any) -> None:  # noqa: N802 - QGIS API
        """Load the shipped QML style onto ``layer`` (left unstyled, with a note, when it is missing)."""
        path = style_path(self.style)
        if not path.is_file():
            feedback.pushInfo(f"style {self.style}.qml not found; the layer keeps QGIS's default style")
            return
        layer.loadNamedStyle(str(path))
        layer.triggerRepaint()


def style_output(context: Any, dest: str, style: str) -> None:
    """Style output ``dest`` with the shipped QML ``style`` if QGIS will load it on completion."""
    if not dest or not context.willLoadLayerOnCompletion(dest):
        return
    processor = StyleOnLoad(style)
    StyleOnLoad.alive.append(processor)
    context.layerToLoadOnCompletionDetails(dest).setPostProcessor(processor)


def write_rows(sink: Any, fields: Any, rows: Iterable[Row], multi: bool = True) -> int:
    """Add (shapely geometry or None, attributes) rows to a sink (geometries multi-part when ``multi``); returns how many."""
    n = 0
    for geom, attrs in rows:
        f = QgsFeature(fields)
        if geom is not None:
            f.setGeometry(to_qgs(geom, multi))
        f.setAttributes(attrs)
        sink.addFeature(f, QgsFeatureSink.Flag.FastInsert)
        n += 1
    return n


def write_sink(alg: QgsProcessingAlgorithm, parameters: dict, context: Any, key: str, schema: Schema | Any, wkb: Any, crs: Any,
               rows: Iterable[Row], style: str | None = None, multi: bool = True) -> str | None:
    """Write ``rows`` to the sink ``key`` (fields from a :mod:`~stormwater_plugin.services.layer_rows` schema or ``QgsFields``).

    Returns the sink's destination, or ``None`` when the user asked for no such output. ``style``: the shipped
    QML style the layer gets when QGIS loads it (the dock's colours and labels).
    """
    fields = make_fields(field_specs(schema)) if isinstance(schema, tuple) else schema
    sink, dest = alg.parameterAsSink(parameters, key, context, fields, wkb, crs)
    if sink is None:
        return None
    if style:
        style_output(context, dest, style)
    write_rows(sink, fields, rows, multi)
    return dest


def write_sinks(alg: QgsProcessingAlgorithm, parameters: dict, context: Any, crs: Any,
                sinks: Iterable[tuple[str, Schema | Any, Any, Iterable[Row], str | None]], multi: bool = True) -> dict[str, Any]:
    """:func:`write_sink` for each ``(key, schema, wkb type, rows, style)``; returns the destinations written, by key."""
    out: dict[str, Any] = {}
    for key, schema, wkb, rows, style in sinks:
        dest = write_sink(alg, parameters, context, key, schema, wkb, crs, rows, style, multi)
        if dest is not None:
            out[key] = dest
    return out


def push_warnings(feedback: Any, warnings: Iterable[Warning_]) -> None:
    """Each warning to the log, prefixed by its layer."""
    for w in warnings:
        feedback.pushWarning(f"{w.layer + ': ' if w.layer else ''}{w.message}")


def write_json(path: str, doc: object, default: Any = None) -> None:
    """``doc`` as indented JSON (``default``: how values JSON does not know are written)."""
    Path(path).write_text(json.dumps(doc, indent=2, default=default), encoding="utf-8")


def finish(feedback: Any, summary: str) -> None:
    """Progress to 100, then the summary (qgis_process prints its progress dots first, then the summary on its own line)."""
    feedback.setProgress(100)
    feedback.pushInfo(summary)
