"""The live re-check's partial read (issue 39): the snapshot's conversions through a :class:`~..services.live_read.ReadMemo`.

The snapshot (``qgis_bridge.snapshot``) converts through its plan's ``readers``: the features of a source, its
description with the fit of its CRS, the DEM window. :func:`live_readers` gives it these three through a memo of the last complete
live read, keyed on the whole of each conversion's inputs, so only the layers edited since (a new feature
source, ``gui.live_plan``) and a DEM window that moved are read again; every decision of the read is made
again from the layers as they are (:mod:`~..services.live_read`). The DEM's source for the flow trace's further
windows is the plan's own provider clone, and each read takes its own copy of a kept layer's lists: nothing a read
changes is shared with a stale read still running. A kept DEM window is shared, its values read-only (no read changes them).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..qgis_bridge.crs import crs_text
from ..qgis_bridge.edit_state import EditState, converted_geometries, geometry_changes
from ..qgis_bridge.layer_place import box_of_rect, feature_count, fits_crs, layer_extent
from ..qgis_bridge.snapshot import default_readers
from ..qgis_bridge.vectors import QgisFrame, source_crs
from ..services.live_read import ReadMemo
from ..services.site_read import same_records_memo


def _crs_key(memo: ReadMemo, crs: Any) -> str:
    """A CRS's WKT2 (the key of a conversion in it: ``qgis_bridge.crs.crs_text``), taken once per CRS object: a source's CRS is the
    same object at every read of the source (``DetachedSource``), and the memo holds the object while it keeps its text."""
    if crs is None:
        return ""
    held, text = memo.remember(("crs text", id(crs)), lambda: (crs, crs_text(crs)))
    return str(text) if held is crs else crs_text(crs)


def _own_layer(frame: QgisFrame) -> QgisFrame:
    """A read's own copy of a kept layer's features: the lists the read changes (it marks features in them) never shared with another
    read; the records, fields, ids and restored values, which no read changes, are.

    A stale re-check may still run beside the new one; the geometries themselves are immutable and are shared, and so is the
    frame's ``memo`` (what the read derives of the same features: ``services.site_read._kept``).
    """
    own = object.__new__(QgisFrame)  # dataclasses.replace of a frame (no __post_init__) without its generic steps: a read copies each
    own.__dict__.update(frame.__dict__)  # layer at every edit
    own.geoms, own.unusable = list(frame.geoms), dict(frame.unusable)
    return own


def _shared_grid(grid: Any) -> Any:
    """A kept DEM window, shared by every read that reuses it, its values made read-only: no read changes them (each reader
    and rule computes into arrays of its own; one that tried would raise rather than change another read's), so a stale read
    still running and the new one read the same numbers, and the next check finds the same grid by identity (``core.derived``)
    rather than copying its values and comparing them bit for bit."""
    if grid is not None:
        grid.values.flags.writeable = False
    return grid


#: An edited layer's new feature source -> the source taken of the layer before it, and the edit buffer as each holds it
#: (``gui.live_plan``).
EditedFrom = Mapping[Any, tuple[Any, EditState | None, EditState | None]]


def _edited(memo: ReadMemo, key: tuple[Any, ...], source: Any, crs: Any, edited_from: EditedFrom) -> QgisFrame | None:
    """The whole read of ``source`` in its own CRS made from the last complete read of the source taken before it of the same
    layer (``edited_from``) when only geometries changed between the two (``qgis_bridge.edit_state``): the earlier features,
    in their order, with those geometries converted as the read converts them. ``None`` otherwise (the source is read whole):
    no earlier read of it here, a warning given then, a read in another CRS, a field or a feature not the earlier one's, a
    geometry that cannot be converted."""
    found = edited_from.get(source)
    if found is None:
        return None
    before, was, now = found
    changed = geometry_changes(was, now)
    held = memo.earlier((key[0], before, *key[2:])) if changed is not None else None
    if changed is None or held is None or held.warnings or not isinstance(held.value, QgisFrame):
        return None
    old: QgisFrame = held.value
    own = source_crs(source)
    if own.isValid() and crs.isValid() and own != crs:  # read in another CRS: the request transforms each feature
        return None
    # the fields' names in one call (their order, as a whole read lists them), not a call into QGIS per field
    if old.rect is not None or source_crs(before) != own or list(source.fields().names()) != old.columns:
        return None
    at = {fid: k for k, fid in enumerate(old.fids)}
    if any(fid not in at for fid in changed):
        return None
    converted = converted_geometries(list(changed.values()))
    if converted is None:  # a geometry that cannot be converted: the whole read lists it
        return None
    geoms = list(old.geoms)
    for fid, g in zip(changed, converted):
        geoms[at[fid]] = g
    return QgisFrame(geoms, old.records, old.columns, crs, old.fids, None, memo=same_records_memo(old))  # its records' names and ids kept


def live_readers(memo: ReadMemo, edited_from: EditedFrom | None = None) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
    """The snapshot's ``SnapshotPlan.readers`` through ``memo``.

    The memo's conversions were made in the same transformation context (the planner starts an empty memo when
    the project's changed). A conversion cut short by the read's Cancel is never kept. The snapshot's own conversions
    are looked up when one is made (:func:`~..qgis_bridge.snapshot.default_readers`), as a plan without readers does.
    ``edited_from``: an edited layer's new source is made from the read of the one before it where only geometries changed.
    """
    def features(source: Any, role: str, crs: Any, ctx: Any, warnings: list[Any], fb: Any = None, rect: Any = None, fids: Any = None,
                 attributes: bool = True) -> Any:
        key = ("features", source, role, _crs_key(memo, crs), None if rect is None else tuple(rect), fids, attributes)

        def make() -> Any:
            patched = _edited(memo, key, source, crs, edited_from) if edited_from and rect is None and fids is None and attributes else None
            return patched if patched is not None else default_readers()[0](source, role, crs, ctx, warnings, fb, rect=rect, fids=fids,
                                                                             attributes=attributes)

        return _own_layer(memo.convert(key, role, make, warnings, lambda: not (fb is not None and fb.isCanceled())))

    def fits(source: Any, ctx: Any) -> bool:  # of the CRS, the extent and the count it is judged from (an edit moving no extent keeps it)
        key = ("fits", _crs_key(memo, source_crs(source)), box_of_rect(layer_extent(source)), feature_count(source))
        return bool(memo.remember(key, lambda: fits_crs(source, ctx)))

    def describe(source: Any, role: str, ctx: Any) -> Any:  # the source's description, its CRS fit judged (a layer's source never changes)
        return memo.convert(("source", source, role), "source", lambda: default_readers()[1](source, role, ctx, fits), [], lambda: True)

    def dem(provider: Any, dem_crs: Any, working: Any, window: Any, z_units: Any, ctx: Any, warnings: list[Any], name: str = "DEM") -> Any:
        key = ("dem", str(provider.dataSourceUri()), _crs_key(memo, dem_crs), _crs_key(memo, working), tuple(window), z_units, name)
        return _shared_grid(memo.convert(key, "dem", lambda: default_readers()[2](provider, dem_crs, working, window, z_units, ctx, warnings, name=name),
                                      warnings, lambda: True))

    return features, describe, dem


__all__ = ["live_readers"]
