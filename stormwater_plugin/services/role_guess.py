"""Guess which loaded layer plays which role, from its name, fields and geometry type.

Pure Python (no QGIS): the dock describes each layer as a :class:`LayerInfo`
and gets back one layer key per role. A layer is used for one role at most,
and a role is left empty rather than filled with a poor match. The words and
geometries each role goes by are the role contract's (:mod:`~stormwater_plugin.core.roles`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ..core.roles import EXISTING_NAME_TOKENS, FIELD_NAME_HINTS, LAYER_NAME_HINTS, ROLE_GEOMETRIES, ROLES

_TOKEN = re.compile(r"[^a-z0-9]+")
#: Below this score a layer is not proposed for a role.
MIN_SCORE = 10


@dataclass(frozen=True)
class LayerInfo:
    """What the guesser knows about one layer.

    Parameters
    ----------
    key : str
        Anything that identifies the layer to the caller (a QGIS layer id).
    name : str
        The layer's display name (or file name).
    fields : sequence of str
        Attribute field names.
    geometry : str
        ``"point"``, ``"line"``, ``"polygon"``, ``"mixed"`` (a layer whose
        geometry type is not fixed, as GeoPackage ``GEOMETRY`` layers) or
        ``""`` for no geometry.
    """

    key: str
    name: str
    fields: Sequence[str] = field(default_factory=tuple)
    geometry: str = ""
    #: The plugin's own output (result, siting or mask layers): never proposed for a role.
    result: bool = False


def tokens(name: str) -> list[str]:
    """Lower-case word tokens of a layer name; ``"Dry_Wells (2024)"`` gives ``["dry", "wells", "2024"]``."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return [t for t in _TOKEN.split(spaced.lower()) if t]


def score(role: str, info: LayerInfo) -> int:
    """How well a layer fits a role; 0 when its geometry cannot play it.

    Exact role names score highest, then field hints, then name hints.
    """
    accepted = ROLE_GEOMETRIES[role]
    if info.result:
        return 0
    if info.geometry not in accepted and not (info.geometry == "mixed" and len(accepted) > 1):
        return 0
    toks = tokens(info.name)
    # Existing buildings (OSM, footprint datasets, "existing structures") are not proposed building sites.
    if role == "building_sites" and (EXISTING_NAME_TOKENS & set(toks)) and "proposed" not in toks:
        return 0
    joined = "_".join(toks)
    s = 0
    if joined == role or joined.rstrip("s") == role.rstrip("s") or joined.replace("_", "") == role.replace("_", ""):
        s += 100
    hints = LAYER_NAME_HINTS[role]
    for t in toks:
        if t in hints:
            s += 20
    for h in hints:
        if "_" in h and h in joined:
            s += 20
    lowered = {f.lower() for f in info.fields}
    s += 15 * sum(1 for f in FIELD_NAME_HINTS[role] if f in lowered)
    # A "dry well" is an infiltration device, not a water-supply well.
    if "dry" in toks or "drywell" in joined or "dry_well" in joined:
        if role == "wells":
            s = 0
        elif role == "devices":
            s += 30
    # "water" alone is ambiguous; prefer polygons for water bodies.
    if role == "waterbodies" and "water" in toks and info.geometry == "polygon" and "supply" not in toks:
        s += 10
    return s


def guess_roles(layers: Iterable[LayerInfo], roles: Sequence[str] = ROLES) -> dict[str, str | None]:
    """Assign at most one layer to each role, best matches first.

    Parameters
    ----------
    layers : iterable of LayerInfo
        The candidate layers.
    roles : sequence of str
        Roles to fill (default: every role of the contract).

    Returns
    -------
    dict
        Role to layer key, or ``None`` where nothing fits well enough.
    """
    infos = list(layers)
    pairs = []
    for r in roles:
        for i, info in enumerate(infos):
            s = score(r, info)
            if s >= MIN_SCORE:
                pairs.append((-s, roles.index(r), i, r))
    pairs.sort()
    out: dict[str, str | None] = {r: None for r in roles}
    used: set[int] = set()
    for _, _, i, r in pairs:
        if out[r] is not None or i in used:
            continue
        out[r] = infos[i].key
        used.add(i)
    return out


__all__ = ["LayerInfo", "guess_roles", "score", "tokens"]
