"""The result layers of a live re-check: built in the task, their features put into the layers shown.

Replacing the result group at every edit costs the main thread the styles (a QML read per layer) and
the layer tree's churn, about 0.2 s on the demo. A live update instead builds the new layers in the
check's own thread (memory layers, no style: QGIS's Processing builds its outputs off the main thread
and moves them to it the same way), then, when the layers shown have the same names in the same order,
swaps each one's features in place (its style, visibility and position in the tree stay). Otherwise
the group is replaced as after Run.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, MutableMapping

from qgis.core import QgsProject
from qgis.PyQt.QtCore import QCoreApplication

from .result_layers import ResultLayer, add_to_project, build_result_layers, group_name, is_result

#: What each layer built for a live update holds (a hash of its features' attributes and geometries), taken in the task.
_CONTENT: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def _content(layer: Any) -> int:
    return hash(tuple((tuple(f.attributes()), bytes(f.geometry().asWkb())) for f in layer.getFeatures()))


def build_off_main_thread(result: Any, inputs: Any, crs: Any) -> list[ResultLayer]:
    """:func:`~.result_layers.build_result_layers` in a task's thread, each layer then handed to the main thread."""
    layers = build_result_layers(result, inputs, crs)
    for rl in layers:
        try:
            _CONTENT[rl.layer] = _content(rl.layer)
        except (TypeError, RuntimeError):  # unhashable attribute values: the layer is always put in
            pass
    main = QCoreApplication.instance().thread() if QCoreApplication.instance() is not None else None
    if main is not None:
        for rl in layers:
            rl.layer.moveToThread(main)
    return layers


def _shown(jurisdiction: str, carry: Callable[[Any], bool]) -> list[Any] | None:
    group = QgsProject.instance().layerTreeRoot().findGroup(group_name(jurisdiction))
    if group is None:
        return None
    return [n.layer() for n in group.findLayers() if n.layer() is not None and is_result(n.layer()) and not carry(n.layer())]


def show_live_layers(layers: list[ResultLayer], jurisdiction: str, carry: Callable[[Any], bool],
                     drawn: MutableMapping[str, int] | None = None) -> bool:
    """Put ``layers``' features into the result layers shown, in place; the group replaced when they differ. Returns whether in place.

    ``drawn`` (layer name to content, kept by the caller between live updates, emptied when the group is made
    anew) lets a layer whose content is what the layer shown holds already be left as it is.
    """
    shown = _shown(jurisdiction, carry)
    drawn = drawn if drawn is not None else {}
    if shown is not None and [lyr.name() for lyr in shown] == [rl.layer.name() for rl in layers] and all(
            old.fields().names() == rl.layer.fields().names() for old, rl in zip(shown, layers)):
        for old, rl in zip(shown, layers):
            content = _CONTENT.get(rl.layer)
            if content is not None and drawn.get(old.name()) == content:
                continue  # the same features: the layer shown stays as it is
            drawn.pop(old.name(), None)
            if content is not None:
                drawn[old.name()] = content
            provider = old.dataProvider()
            provider.truncate()
            provider.addFeatures(list(rl.layer.getFeatures()))
            old.updateExtents()
            old.triggerRepaint()
        return True
    add_to_project(layers, jurisdiction, carry=carry)
    drawn.clear()
    drawn.update({rl.layer.name(): _CONTENT[rl.layer] for rl in layers if rl.layer in _CONTENT})
    return False
