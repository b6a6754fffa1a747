"""The siting layers' marks while the live findings move on: *updating* on the moves, *out of date* on the envelope.

After a live update with a violation the suggested moves are looked for again in the background: until they are
drawn the moves layer shown is the last edit's, so its entry in the layer tree says "(updating…)". The siting
envelope of a device type reads every role but the devices: an edit of another role leaves the envelope shown
out of date until it is built again, and its entries say so. Only the tree's entries are renamed
(``QgsLayerTreeLayer.setUseLayerName``): the layers keep their names, by which the plugin finds them, and a
layer drawn anew has an entry of its own, unmarked.
"""

from __future__ import annotations

from typing import Any, Callable

from qgis.core import QgsProject

from .envelope_task import MOVES_NAME, is_siting_layer
from .result_layers import group_name

#: What the marked entries add to their layer's name.
UPDATING_MARK, OUT_OF_DATE_MARK = " (updating…)", " (out of date: build it again)"


def _nodes(jurisdiction: str, wanted: Callable[[Any], bool]) -> list[Any]:
    group = QgsProject.instance().layerTreeRoot().findGroup(group_name(jurisdiction))
    if group is None:
        return []
    return [n for n in group.findLayers() if n.layer() is not None and wanted(n.layer())]


def mark(jurisdiction: str, wanted: Callable[[Any], bool], suffix: str) -> int:
    """Rename the tree entries of the result group's layers ``wanted`` picks to their layer's name and ``suffix``; how many."""
    nodes = _nodes(jurisdiction, wanted)
    for node in nodes:
        node.setUseLayerName(False)
        node.setName(node.layer().name() + suffix)
    return len(nodes)


def unmark(jurisdiction: str, wanted: Callable[[Any], bool]) -> None:
    """The entries ``wanted`` picks show their layer's own name again."""
    for node in _nodes(jurisdiction, wanted):
        if not node.useLayerName():
            node.setUseLayerName(True)


def is_moves(layer: Any) -> bool:
    return bool(layer.name() == MOVES_NAME)


def is_envelope(layer: Any) -> bool:
    return bool(is_siting_layer(layer) and layer.name() != MOVES_NAME)


__all__ = ["OUT_OF_DATE_MARK", "UPDATING_MARK", "is_envelope", "is_moves", "mark", "unmark"]
