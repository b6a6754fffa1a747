"""One role's sources as one layer: the ids the check names, what is without usable geometry and why, and the warnings of reading.

A role may come from several sources (a role exported as points and polygons, a ``--layer`` given twice; the plugin's
one layer a role is a list of one): the one read (:mod:`~stormwater_plugin.services.site_read`) hands each as read here
as a :class:`ReadSource`; this module decides the merged layer. Ids are kept; a feature without usable geometry is listed with its reason (every rule
reading it is then undetermined); fields read under another name, text restored after a NUL, a context layer read
near the site only, and ids given twice are warned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from shapely.geometry.base import BaseGeometry

from ..core.model import FeatureLayer, Warning_
from .intake import MAX_LISTED, unplaceable_feature_problem
from .placement_layers import misplaced_warning, unplaceable_warning
from .reading_policy import context_filtered_warning


@dataclass
class ReadSource:
    """One source of a role as an adapter read it.

    Parameters
    ----------
    where : str
        Names it in warnings (``path:layer``).
    name : str
        Its layer's or file's name, in the one entry standing for features not read.
    crs_name : str
        The name of the CRS it declares.
    count : int
        The features it declares.
    ids : list of str
        The check's id of each feature read; for a source misplaced before its features were read, the ids of its
        features (or the one entry standing for them all).
    geoms : list or None
        Each feature's geometry in the working CRS (``None``: no usable geometry); ``None``: misplaced before reading.
    attrs : list of dict
        Each feature's attributes, fields under the names the check reads.
    unusable : mapping of int to str
        Features (by position) without usable geometry, with the reason.
    misplaced : str or None
        Why the whole source is misplaced.
    renames : mapping of str to str
        Fields read under another name (:func:`~stormwater_plugin.services.intake.match_fields`).
    near : sequence of (str, str)
        Fields resembling a wanted field, not read as it.
    restored : sequence of (int, str)
        (position, field) of text values read whole after GDAL cut them at a NUL.
    filtered : bool
        A context layer read within the site's reach only.
    stray_beyond : bool
        A context layer whose features beyond the window could not be placed by its CRS (not read: one entry).
    unplaceable : set of str
        Reasons of features excluded one by one (worded as such).
    """

    where: str
    name: str
    crs_name: str
    count: int
    ids: list[str]
    geoms: list[BaseGeometry | None] | None = None
    attrs: list[dict[str, object]] = field(default_factory=list)
    unusable: Mapping[int, str] = field(default_factory=dict)
    misplaced: str | None = None
    renames: Mapping[str, str] = field(default_factory=dict)
    near: Sequence[tuple[str, str]] = ()
    restored: Sequence[tuple[int, str]] = ()
    filtered: bool = False
    stray_beyond: bool = False
    unplaceable: set[str] = field(default_factory=set)


def _source_notes(role: str, src: ReadSource) -> list[Warning_]:
    """What reading ``src`` says before its features: fields matched or nearly, text restored, a context layer filtered."""
    out: list[Warning_] = []
    if src.renames:
        out.append(Warning_("fields_matched", f"{src.where}: read {', '.join(f'{a!r} as {b!r}' for a, b in src.renames.items())} "
                            "(case, or a shapefile's 10-character field names)", role))
    for col, wanted in src.near:
        out.append(Warning_("field_near_match", f"{src.where}: no field '{wanted}', but a field '{col}' resembles it and was not read as it; "
                            f"rename '{col}' to '{wanted}' if it is that field (findings that need {wanted} are undetermined)", role))
    if src.restored:
        shown = ", ".join(f"{src.ids[i]} ({col})" for i, col in src.restored[:MAX_LISTED])
        out.append(Warning_("text_nul_restored", f"{src.where}: {len(src.restored)} value(s) held a NUL character, where GDAL cuts a text; "
                            f"read whole with the NUL removed: {shown}; check them against their source", role,
                            tuple(src.ids[i] for i, _ in src.restored[:MAX_LISTED])))
    filtered = context_filtered_warning(src.where, len(src.ids), src.count, role) if src.filtered else None
    if filtered is not None:
        out.append(filtered)
    return out


def merge_role(role: str, sources: Sequence[ReadSource]) -> tuple[FeatureLayer, list[Warning_]]:
    """One role's sources as one layer, with the warnings of reading them (in the order of the sources)."""
    warnings: list[Warning_] = []
    geoms: list[BaseGeometry | None] = []
    ids: list[str] = []
    attrs: list[dict[str, object]] = []
    no_geometry: dict[str, str] = {}
    seen: dict[str, int] = {}
    across: dict[str, set[str]] = {}
    for k, src in enumerate(sources):
        if src.geoms is None:  # misplaced before reading: its ids only
            assert src.misplaced is not None
            for fid in src.ids:
                no_geometry.setdefault(fid, src.misplaced)
            warnings.append(misplaced_warning(role, src.count, src.misplaced, src.ids))
            continue
        warnings.extend(_source_notes(role, src))
        unplaceable = set(src.unplaceable)
        bad: dict[str, list[str]] = {}
        for i, fid in enumerate(src.ids):
            if fid in seen and seen[fid] != k:
                across.setdefault(fid, set()).update({sources[seen[fid]].where, src.where})
            seen.setdefault(fid, k)
            # a feature with no geometry at all keeps that reason (the cleaner reports it), wherever its layer lies
            g = src.geoms[i]
            why = src.misplaced if src.misplaced is not None and (g is not None or i in src.unusable) else src.unusable.get(i)
            if why is not None:
                no_geometry.setdefault(fid, why)
                bad.setdefault(why, []).append(fid)
                continue
            geoms.append(g)  # None for a feature with no geometry at all: the core lists it
            ids.append(fid)
            attrs.append(src.attrs[i])
        if src.stray_beyond and src.misplaced is None:
            # the features beyond the window that lie where the CRS cannot place them were not read: one entry
            why = unplaceable_feature_problem(src.where, src.crs_name)
            fid = f"(the features of {src.name} beyond the area its CRS covers)"
            no_geometry.setdefault(fid, why)
            bad.setdefault(why, []).append(fid)
            unplaceable.add(why)
        for why, fids_bad in bad.items():
            if why == src.misplaced:
                warnings.append(misplaced_warning(role, len(fids_bad), why, fids_bad))
            elif why in unplaceable:
                warnings.append(unplaceable_warning(role, why, fids_bad))
            else:
                warnings.append(Warning_("geometry_unusable", f"{len(fids_bad)} feature(s) of the '{role}' layer from {src.where} {why}: every rule "
                                         "reading it is undetermined for them", role, tuple(fids_bad[:MAX_LISTED])))
    if len(set(ids)) != len(ids):
        warnings.append(Warning_("duplicate_ids", "some features share an id; findings name them by that id", role))
    if across:
        shown = ", ".join(sorted(across)[:10])
        warnings.append(Warning_("duplicate_ids_across_sources", f"id(s) {shown} appear in more than one source of the '{role}' role "
                                 f"({' and '.join(sorted(set().union(*across.values())))}): each is checked; make sure one feature is not given twice",
                                 role, tuple(sorted(across))))
    return FeatureLayer.from_sequences(role, geoms, ids, attrs, no_geometry=no_geometry), warnings


__all__ = ["ReadSource", "merge_role"]
