"""The result layers of a live re-check: only the features whose rows changed are replaced, in the layers shown.

Replacing the result group at every edit costs the main thread the styles (a QML read per layer) and the layer
tree's churn, about 0.2 s on the demo, and building every layer anew costs the task about as much as the rules
it re-runs. A live update instead takes, on the main thread when the run starts, what each result layer shown
holds (:func:`shown_now`: the row keys :func:`~.result_layers.add_to_project` registered, see
:data:`~.result_layers.DRAWN`). The task computes the rows of every result layer (:func:`~.result_layers.result_layer_specs`,
the rows a full check draws) and compares them with those: a row whose geometry and attributes a feature shown
already holds stays; the features of rows no longer there are deleted, the new rows' features made in the task
(:func:`plan_layers`). The main thread then deletes and adds those features in the layers shown
(:func:`show_live_layers`): the layers, their style, visibility and place in the tree stay.

When the layers shown are not those the result makes (another name, other fields, a layer removed or changed since
the run started, a result group never registered) the layers are built in the task as after Run and the group is
replaced. So after any edit sequence each result layer holds the features a full check draws (in another order):
``tests/qgis/test_live_check.py`` holds it to that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from qgis.core import QgsFeature, QgsFields, QgsProject
from qgis.PyQt.QtCore import QCoreApplication

from ..qgis_bridge.results import make_fields
from .envelope_task import is_siting_layer
from .result_layers import (
    DRAWN,
    LayerSpec,
    ResultLayer,
    RowKey,
    add_to_project,
    features_of,
    group_name,
    is_result,
    keyed,
    layer_of,
    result_layer_specs,
)


@dataclass(frozen=True)
class ShownLayer:
    """A result layer shown when a live run started: its name, fields, id, the version of its contents and its row keys' feature ids.

    ``keys`` is the :class:`~.result_layers.Drawn` mapping of then, which is never changed in place: the task reads it as it was.
    """

    name: str
    fields: tuple[str, ...]
    layer_id: str
    version: int
    keys: Mapping[RowKey, tuple[int, ...]]


@dataclass
class LayerChange:
    """What one layer shown changes: the row keys whose features go (how many each), and the new rows' features with their keys."""

    gone: dict[RowKey, int]
    added_keys: list[RowKey]
    added: list[QgsFeature]


@dataclass
class LiveLayers:
    """A live run's result layers: the changes to the layers shown, or (``changes`` ``None``) the layers built to replace the group."""

    specs: list[LayerSpec]
    crs: Any
    shown: tuple[ShownLayer, ...] | None
    changes: list[LayerChange] | None = None
    layers: list[ResultLayer] = field(default_factory=list)


def shown_now(jurisdiction: str) -> tuple[ShownLayer, ...] | None:
    """What the result layers shown hold (main thread, when a live run starts); ``None`` when one was not registered."""
    group = QgsProject.instance().layerTreeRoot().findGroup(group_name(jurisdiction))
    if group is None:
        return None
    out = []
    for node in group.findLayers():
        layer = node.layer()
        if layer is None or not is_result(layer) or is_siting_layer(layer):
            continue
        drawn = DRAWN.get(layer.id())
        if drawn is None:
            return None
        out.append(ShownLayer(layer.name(), tuple(layer.fields().names()), layer.id(), drawn.version, drawn.keys))
    return tuple(out)


def plan_layers(result: Any, inputs: Any, crs: Any, shown: tuple[ShownLayer, ...] | None) -> LiveLayers:
    """The task's part: every result layer's rows, compared with what the layers shown hold (any thread)."""
    return layers_update(result_layer_specs(result, inputs), crs, shown)


#: The fields of each result layer schema, made once (a feature copies them; they are never changed).
_FIELDS: dict[tuple[tuple[str, Any], ...], QgsFields] = {}


def _fields(specs: tuple[tuple[str, Any], ...]) -> QgsFields:
    """``make_fields(specs)``, made once per schema (the live re-check adds a few features to a few layers at each edit)."""
    found = _FIELDS.get(specs)
    if found is None:
        found = _FIELDS[specs] = make_fields(specs)
    return found


#: Each layer shown whose rows a live run found it holds already: its row keys shown then (a mapping never changed in place,
#: held here) and the rows' keys found in it. A later run comparing rows of equal keys with the same mapping finds it
#: unchanged without looking each key up; only the layers of the last run are kept.
_HELD: dict[str, tuple[Mapping[RowKey, tuple[int, ...]], list[RowKey]]] = {}


def layers_update(specs: list[LayerSpec], crs: Any, shown: tuple[ShownLayer, ...] | None) -> LiveLayers:
    """What turns the layers ``shown`` into ``specs``: the features to delete and add, or (another set of layers) the layers built."""
    global _HELD
    out = LiveLayers(specs, crs, shown)
    if shown is not None and [(s.name, s.fields) for s in shown] == [(sp.name, tuple(n for n, _ in sp.specs)) for sp in specs]:
        changes = []
        held_before, held = _HELD, {}
        for spec, old in zip(specs, shown):
            rows, keys = spec.drawn()
            shown_keys = old.keys
            was = held_before.get(old.layer_id)
            if was is not None and was[0] is shown_keys and was[1] == keys:  # the same rows as those the layer was found to hold
                held[old.layer_id] = was
                changes.append(LayerChange({}, [], []))
                continue
            left: dict[RowKey, int] = {}
            new_rows, new_keys = [], []
            for row, key in zip(rows, keys):
                n = left.get(key)
                if n is None:
                    n = len(shown_keys.get(key, ()))
                if n > 0:
                    left[key] = n - 1  # a feature shown holds this row already
                else:
                    new_rows.append(row)
                    new_keys.append(key)
            gone = {k: n for k, n in left.items() if n > 0}
            gone.update({k: len(ids) for k, ids in old.keys.items() if k not in left})
            if not gone and not new_rows:
                held[old.layer_id] = (shown_keys, keys)
            changes.append(LayerChange(gone, new_keys, features_of(_fields(spec.specs), new_rows, new_keys) if new_rows else []))
        _HELD = held
        out.changes = changes
        return out
    _HELD = {}
    out.layers = [layer_of(spec, crs) for spec in specs]  # another set of layers: the group is replaced
    main = QCoreApplication.instance().thread() if QCoreApplication.instance() is not None else None
    if main is not None:
        for rl in out.layers:
            rl.layer.moveToThread(main)
    return out


def _shown(jurisdiction: str, carry: Callable[[Any], bool]) -> list[Any] | None:
    group = QgsProject.instance().layerTreeRoot().findGroup(group_name(jurisdiction))
    if group is None:
        return None
    return [n.layer() for n in group.findLayers() if n.layer() is not None and is_result(n.layer()) and not carry(n.layer())]


def _unchanged_since(layers: list[Any], shown: tuple[ShownLayer, ...]) -> bool:
    """Whether the layers shown are those the run started from, each holding what it held then."""
    if [lyr.id() for lyr in layers] != [s.layer_id for s in shown]:
        return False
    for lyr, s in zip(layers, shown):
        drawn = DRAWN.get(s.layer_id)
        if drawn is None or drawn.version != s.version or drawn.count != lyr.featureCount():
            return False
    return True


def show_live_layers(update: LiveLayers, jurisdiction: str, carry: Callable[[Any], bool]) -> dict[str, list[int]] | None:
    """Put a live run's result layers on the map (main thread): only the features changed, in place; else the group replaced.

    Returns the features added to each layer (layer id to feature ids) when the layers shown were changed in place, else ``None``.
    """
    layers = _shown(jurisdiction, carry)
    if update.changes is not None and update.shown is not None and layers is not None and _unchanged_since(layers, update.shown):
        added_ids: dict[str, list[int]] = {}
        failed = False
        for lyr, change in zip(layers, update.changes):
            if not change.gone and not change.added:
                continue  # the same features: the layer shown stays as it is
            drawn = DRAWN[lyr.id()]
            keys = dict(drawn.keys)  # a new mapping: a task started earlier reads the one it was given
            doomed: list[int] = []
            for k, n in change.gone.items():
                doomed.extend(keys[k][-n:])
                keys[k] = keys[k][:-n]
                if not keys[k]:
                    del keys[k]
            provider = lyr.dataProvider()
            if doomed:
                provider.deleteFeatures(doomed)
            ids: list[int] = []
            if change.added:
                ok, added = provider.addFeatures(change.added)
                ids = [int(f.id()) for f in added] if ok else []
                if len(ids) != len(change.added_keys):  # not added as asked: the group is drawn anew from the rows
                    del DRAWN[lyr.id()]
                    failed = True
                    break
                for k, ids_k in keyed(change.added_keys, ids).items():
                    keys[k] = keys.get(k, ()) + ids_k
            drawn.keys, drawn.count, drawn.version = keys, drawn.count - len(doomed) + len(ids), drawn.version + 1
            added_ids[lyr.id()] = ids
            lyr.updateExtents()
            lyr.triggerRepaint()
        if not failed:
            return added_ids
    built = update.layers or [layer_of(spec, update.crs) for spec in update.specs]
    add_to_project(built, jurisdiction, carry=carry)
    return None


def decisions_added(update: LiveLayers) -> bool:
    """Whether a feature of ``update``'s changes carries a reviewer decision (a value other than NULL or empty), as it was added.

    With no decision taken, :func:`~.result_layers.set_decisions` writes to the features a live update added only those that
    carry one (each is given no decision): when none does, it has nothing to write, and is not asked to read them back.
    """
    for change in update.changes or ():
        for feat in change.added:
            at = feat.fields().indexOf("decision")
            if at < 0:
                break  # a layer without decisions: its features carry none
            value = feat.attribute(at)
            if not (value is None or value == "" or (hasattr(value, "isNull") and value.isNull())):
                return True
    return False


__all__ = ["LayerChange", "LiveLayers", "ShownLayer", "decisions_added", "layers_update", "plan_layers", "show_live_layers", "shown_now"]
