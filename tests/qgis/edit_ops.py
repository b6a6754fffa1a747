"""One edit of a devices layer's edit buffer, drawn by a hypothesis strategy: the live read's and live plan's properties share it.

An edit is a tuple: ``("move", i, dx, dy)``, ``("null", i)``, ``("attr", i, field, value)``, ``("add", dx)``,
``("delete", i)``, ``("undo",)``, ``("redo",)``, ``("commit",)``, ``("rollback",)``; ``i`` picks a feature (modulo their
count), offsets are in the layer's units.
"""

from __future__ import annotations

from typing import Any

from qgis.core import QgsFeature, QgsGeometry, QgsPointXY


def apply_edit(layer: Any, op: tuple[Any, ...]) -> None:
    """Apply ``op`` to ``layer`` (in edit mode), as QGIS's editing tools would; an edit of a feature with none left does nothing."""
    fids = [f.id() for f in layer.getFeatures()]
    kind = op[0]
    if kind in ("move", "null", "attr", "delete") and not fids:
        return
    if kind == "move":
        fid = fids[op[1] % len(fids)]
        g = QgsGeometry(layer.getFeature(fid).geometry())
        if g.isNull():
            g = QgsGeometry.fromPointXY(QgsPointXY(layer.extent().center()))
        g.translate(op[2], op[3])
        layer.changeGeometry(fid, g)
    elif kind == "null":
        layer.changeGeometry(fids[op[1] % len(fids)], QgsGeometry())
    elif kind == "attr":
        layer.changeAttributeValue(fids[op[1] % len(fids)], layer.fields().indexOf(op[2]), op[3])
    elif kind == "add":
        f = QgsFeature(layer.fields())
        f.setGeometry(QgsGeometry.fromPointXY(QgsPointXY(layer.extent().center().x() + op[1], layer.extent().center().y())))
        f["id"] = f"NEW-{len(fids)}"
        f["device_type"] = "dry_well"
        layer.addFeature(f)
    elif kind == "delete":
        layer.deleteFeature(fids[op[1] % len(fids)])
    elif kind == "undo":
        layer.undoStack().undo()
    elif kind == "redo":
        layer.undoStack().redo()
    elif kind == "commit":
        layer.commitChanges(False)
    elif kind == "rollback":
        layer.rollBack()
        layer.startEditing()
