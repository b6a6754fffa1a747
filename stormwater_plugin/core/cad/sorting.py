"""Sorting a CAD drawing's entities into the checker's roles, by a mapping table kept as data.

The drawing arrives as plain entities (layer, kind, geometry, text, block name and attributes), read by
a front end (GDAL's DXF driver on the command line, QGIS's OGR provider in the plugin). This module
decides, for each entity, its role and attributes, and which text labels name which features; it
reads no file and knows no CAD library.

Readings (documented in docs/cad.md):

- a layer rule matches the entity's CAD layer name (case-insensitive shell patterns, first rule wins);
  a block rule matches an INSERT's block name and wins over its layer's rule (a ``DRYWELL`` block on
  ``C-STRM-STRC`` is a dry well);
- a closed outline on an area role (parcels, wetlands, clearing, …) or on a device, septic or building
  layer becomes a polygon; an open outline on an area role stays a line and is named in a warning (the
  checker then treats that area as unmeasured, never as absent);
- a hatch that repeats a closed outline of the same layer is dropped (one feature, not two);
- a text label or a data-tag block names the feature it belongs to: among the features of its own layer, else of its
  layer's discipline and major group (``C-STRM-IDEN`` labels ``C-STRM-*`` features; a generic layer such as
  ``C-ANNO-TEXT`` any feature), the smallest area holding it, else the one nearest within
  ``label_reach_ft``; a tie, or a feature with two labels, keeps the generated id (``C-STRM-DRYW-2``) and
  the ambiguity is listed. A data tag's attributes (``ID``, ``DEVICE_TYPE``, ``WATERBODY``, …) become
  the feature's fields;
- every entity on a layer no rule maps is counted per layer and listed, never dropped silently.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry import LineString, MultiLineString, Polygon
from shapely.geometry.base import BaseGeometry

from ..errors import StormwaterError
from ..roles import FOOTPRINT_ROLES, POLYGON_ROLES, ROLES

MAPPING_FORMAT = "stormwater-check-cad-mapping"
DEFAULT_MAPPING = Path(__file__).with_name("ncs_mapping.json")
#: Extra role the import knows besides the checker's: existing-grade contours (for a DEM).
CONTOURS = "contours"
#: Block attribute tags read as a feature's id.
ID_TAGS = ("ID", "TAG", "NAME", "LABEL", "NUMBER", "NO", "MARK")
_MTEXT_CODES = re.compile(r"\\[A-Za-z][^;\\]*;|\\P|[{}]")


class CadMappingError(ValueError, StormwaterError):
    """The mapping table is not valid (names the rule)."""


@dataclass(frozen=True)
class CadEntity:
    """One entity of the drawing, as read.

    ``kind``: ``insert`` (a block reference, a point), ``text`` (TEXT/MTEXT, a point), ``hatch``
    (a polygon), ``line`` (lines, polylines, arcs, circles; closed or not) or ``point``.
    Coordinates are in the drawing's units.
    """

    layer: str
    kind: str
    geometry: BaseGeometry
    text: str | None = None
    block: str | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)
    handle: str = ""


@dataclass(frozen=True)
class Rule:
    patterns: tuple[str, ...]
    role: str | None
    set: Mapping[str, Any]
    why: str = ""
    merge: bool = False

    def matches(self, name: str) -> bool:
        return self._pattern.match(name.upper()) is not None

    @functools.cached_property
    def _pattern(self) -> re.Pattern[str]:
        """The rule's name patterns compiled once into one expression (a drawing of a million entities asks it per name)."""
        return _compiled(self.patterns)


@dataclass(frozen=True)
class CadMapping:
    """A mapping table: layer rules, block rules, label and ignore patterns."""

    name: str
    layers: tuple[Rule, ...]
    blocks: tuple[Rule, ...]
    labels: tuple[str, ...]
    ignore: tuple[str, ...]
    label_reach_ft: float
    attribute_fields: tuple[str, ...] = ()

    def layer_rule(self, layer: str) -> Rule | None:
        return self._lookups()[0](layer)

    def block_rule(self, block: str) -> Rule | None:
        return self._lookups()[1](block)

    def is_label_layer(self, layer: str) -> bool:
        return self._lookups()[2](layer)

    def is_ignored(self, layer: str) -> bool:
        return self._lookups()[3](layer)

    def _lookups(self) -> tuple[Callable[[str], Rule | None], Callable[[str], Rule | None], Callable[[str], bool], Callable[[str], bool]]:
        """The four lookups, each compiled once and remembered per name: a drawing holds few layer and block names and many
        entities (a name-pattern match per entity per rule took most of a 1,000,000-entity import)."""
        cached = self.__dict__.get("_cached_lookups")
        if cached is None:
            labels, ignore = _compiled(self.labels), _compiled(self.ignore)
            cached = (
                functools.lru_cache(maxsize=4096)(lambda n: next((r for r in self.layers if r.matches(n)), None)),
                functools.lru_cache(maxsize=4096)(lambda n: next((r for r in self.blocks if r.matches(n)), None)),
                functools.lru_cache(maxsize=4096)(lambda n: labels.match(n.upper()) is not None),
                functools.lru_cache(maxsize=4096)(lambda n: ignore.match(n.upper()) is not None),
            )
            object.__setattr__(self, "_cached_lookups", cached)  # a frozen dataclass: the cache is no field of it
        return cached  # type: ignore[no-any-return]


def _compiled(patterns: Sequence[str]) -> re.Pattern[str]:
    """Shell-style name patterns (``C-STRM-*``) as one case-folded regular expression (an empty list matches nothing)."""
    if not patterns:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{fnmatch.translate(p.upper())})" for p in patterns))


def _rules(items: Any, where: str) -> tuple[Rule, ...]:
    if not isinstance(items, list):
        raise CadMappingError(f"{where}: a list of rules")
    out = []
    for i, r in enumerate(items):
        if not isinstance(r, dict) or "match" not in r or "role" not in r:
            raise CadMappingError(f"{where}[{i}]: each rule needs 'match' and 'role' (null to ignore, with 'why')")
        pats = r["match"] if isinstance(r["match"], list) else [r["match"]]
        role = r["role"]
        if role is not None and role not in ROLES and role != CONTOURS:
            raise CadMappingError(f"{where}[{i}]: unknown role {role!r}; roles: {', '.join(ROLES + (CONTOURS,))}")
        if role is None and not r.get("why"):
            raise CadMappingError(f"{where}[{i}] ({pats[0]}): a rule that drops entities says why")
        sets = r.get("set") or {}
        if not isinstance(sets, dict):
            raise CadMappingError(f"{where}[{i}]: 'set' is an object of field values")
        out.append(Rule(tuple(str(p) for p in pats), role, dict(sets), str(r.get("why") or ""), bool(r.get("merge", False))))
    return tuple(out)


def load_mapping(path: Path | str | None = None) -> CadMapping:
    """The mapping table at ``path`` (default: the National CAD Standard table shipped with the package)."""
    p = Path(path) if path else DEFAULT_MAPPING
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CadMappingError(f"{p}: cannot read the mapping table ({exc.strerror})") from exc
    except ValueError as exc:
        raise CadMappingError(f"{p}: the mapping table is not JSON ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != MAPPING_FORMAT:
        raise CadMappingError(f"{p}: not a stormwater-check CAD mapping table (format {MAPPING_FORMAT!r})")
    reach = data.get("label_reach_ft", 10.0)
    if not isinstance(reach, (int, float)) or reach <= 0:
        raise CadMappingError(f"{p}: label_reach_ft must be a positive number of feet")
    return CadMapping(
        name=str(data.get("name") or p.name),
        layers=_rules(data.get("layers", []), "layers"),
        blocks=_rules(data.get("blocks", []), "blocks"),
        labels=tuple(str(x) for x in data.get("labels", [])),
        ignore=tuple(str(x) for x in data.get("ignore", [])),
        label_reach_ft=float(reach),
        attribute_fields=tuple(str(x).lower() for x in data.get("attribute_fields", [])),
    )


@dataclass
class PlanFeature:
    """A feature of the imported plan: its role, geometry (drawing units) and attributes (``id`` among them)."""

    role: str
    geometry: BaseGeometry
    attrs: dict[str, Any]
    generated_id: bool = True


@dataclass
class SortedPlan:
    """The drawing sorted into roles, with what was not used and why."""

    features: dict[str, list[PlanFeature]]
    unmapped: dict[str, int]
    dropped: dict[str, tuple[int, str]]
    warnings: list[str]

    def counts(self) -> dict[str, int]:
        return {role: len(fs) for role, fs in self.features.items() if fs}


def clean_text(text: str | None) -> str:
    """A TEXT/MTEXT value without MTEXT formatting codes, on one line, trimmed."""
    t = _MTEXT_CODES.sub(" ", str(text or ""))
    return " ".join(t.split())


def _closed(g: BaseGeometry, tol: float) -> bool:
    if isinstance(g, LineString) and len(g.coords) >= 4:
        a, b = g.coords[0], g.coords[-1]
        return bool(np.hypot(a[0] - b[0], a[1] - b[1]) <= tol)
    return False


def _as_area(g: BaseGeometry, tol: float) -> BaseGeometry | None:
    """A closed outline as a polygon (2-D), else None."""
    if isinstance(g, Polygon):
        return shapely.force_2d(g)
    if _closed(g, tol):
        ring = [(x, y) for x, y, *_ in g.coords]
        ring[-1] = ring[0]
        poly = shapely.make_valid(Polygon(ring))
        return poly if poly.area > 0 else None
    if isinstance(g, MultiLineString):
        polys = [_as_area(part, tol) for part in g.geoms]
        if polys and all(p is not None for p in polys):
            return shapely.union_all([p for p in polys if p is not None])
    return None


def sort_entities(entities: Sequence[CadEntity], mapping: CadMapping, unit_to_ft: float) -> SortedPlan:
    """Sort ``entities`` into roles; ``unit_to_ft`` is the drawing unit in feet (for the label reach)."""
    tol = 1e-6 / unit_to_ft
    features: dict[str, list[PlanFeature]] = {r: [] for r in ROLES + (CONTOURS,)}
    unmapped: Counter[str] = Counter()
    dropped: dict[str, tuple[int, str]] = {}
    warnings: list[str] = []
    labels: list[tuple[str, BaseGeometry, str]] = []
    per_layer: Counter[str] = Counter()
    open_outlines: Counter[str] = Counter()
    tags: list[PlanFeature] = []
    for e in entities:
        if mapping.is_ignored(e.layer):
            continue
        if e.kind == "text":
            text = clean_text(e.text)
            if text:
                labels.append((text, shapely.force_2d(e.geometry), e.layer))
            continue
        if mapping.is_label_layer(e.layer) and e.kind != "insert":
            n, why = dropped.get(e.layer, (0, "annotation (leaders, frames) on a label layer"))
            dropped[e.layer] = (n + 1, why)
            continue
        rule = mapping.block_rule(e.block) if e.kind == "insert" and e.block else None
        if rule is None:
            rule = mapping.layer_rule(e.layer)
        if rule is None:
            unmapped[e.layer] += 1
            continue
        if rule.role is None and rule.merge:
            tag = PlanFeature("*", shapely.force_2d(e.geometry), {"cad_block": e.block or "", "cad_layer": e.layer})
            _tag_attributes(tag, e, mapping)
            tags.append(tag)
            continue
        if rule.role is None:
            n, why = dropped.get(e.layer, (0, rule.why))
            dropped[e.layer] = (n + 1, why)
            continue
        g = e.geometry
        if rule.role in POLYGON_ROLES or rule.role in FOOTPRINT_ROLES:
            area = _as_area(g, tol)
            if area is not None:
                g = area
            elif rule.role in POLYGON_ROLES and not isinstance(g, (Polygon,)) and g.geom_type not in ("Point", "MultiPoint"):
                open_outlines[e.layer] += 1
            if rule.role != CONTOURS:
                g = shapely.force_2d(g)
        per_layer[e.layer] += 1
        attrs: dict[str, Any] = {"id": f"{e.layer}-{per_layer[e.layer]}", "cad_layer": e.layer, "cad_handle": e.handle, "cad_kind": e.kind}
        if e.block:
            attrs["cad_block"] = e.block
        attrs.update(rule.set)
        feat = PlanFeature(rule.role, g, attrs)
        _tag_attributes(feat, e, mapping)
        if e.kind == "hatch" and _repeats_outline(feat, features[rule.role]):
            continue
        features[rule.role].append(feat)
    for layer, n in sorted(open_outlines.items()):
        warnings.append(f"{n} open outline(s) on CAD layer {layer}: an area must be a closed polyline; kept as lines, so that area cannot be measured")
    _merge_tags(features, tags, mapping.label_reach_ft / unit_to_ft, warnings)
    _assign_labels(features, labels, mapping.label_reach_ft / unit_to_ft, warnings)
    _unique_ids(features, warnings)
    return SortedPlan({r: fs for r, fs in features.items() if fs}, dict(sorted(unmapped.items())), dropped, warnings)


def _value(text: str) -> Any:
    """A block attribute's text as a number when it is one (``"7.5"`` -> 7.5, ``"0"`` -> 0), else the text."""
    t = text.strip()
    try:
        f = float(t)
    except ValueError:
        return t
    return int(f) if f.is_integer() and "." not in t and "e" not in t.lower() else f


def _tag_attributes(feat: PlanFeature, e: CadEntity, mapping: CadMapping) -> None:
    """The block's attributes as fields: an id tag (``ID``, ``TAG``, …) and the mapping's ``attribute_fields``."""
    tag_id = next((str(v).strip() for k, v in e.attributes.items() if str(k).upper() in ID_TAGS and str(v).strip()), "")
    if tag_id:
        feat.attrs["id"] = tag_id
        feat.generated_id = False
    for k, v in e.attributes.items():
        key = str(k).lower()
        if key in mapping.attribute_fields and key != "id" and str(v).strip():
            feat.attrs[key] = _value(str(v))


def _group(layer: str) -> str:
    """The National CAD Standard discipline and major group of a layer name (``C-STRM`` of ``C-STRM-IDEN``)."""
    return "-".join(layer.upper().split("-")[:2])


def _same_group(flat: list[PlanFeature], layer: str) -> list[int]:
    """Indexes of the features drawn on ``layer`` itself, else in its group, else all (a generic annotation layer)."""
    same = [k for k, f in enumerate(flat) if str(f.attrs.get("cad_layer", "")).upper() == layer.upper()]
    if same:
        return same
    g = _group(layer)
    idx = [k for k, f in enumerate(flat) if _group(str(f.attrs.get("cad_layer", ""))) == g]
    return idx or list(range(len(flat)))


def _host(flat: list[PlanFeature], pt: BaseGeometry, layer: str, reach: float) -> list[int]:
    """Features a tag or label at ``pt`` may name: the smallest area of its group holding it, else the nearest within ``reach``."""
    cand = _same_group(flat, layer)
    areas = [k for k in cand if flat[k].geometry.geom_type.endswith("Polygon") and flat[k].geometry.covers(pt)]
    if areas:
        smallest = min(flat[k].geometry.area for k in areas)
        return [k for k in areas if flat[k].geometry.area <= smallest * (1 + 1e-9)]
    near = [(float(shapely.distance(flat[k].geometry, pt)), k) for k in cand]
    near = [(d, k) for d, k in near if d <= reach]
    if not near:
        return []
    best = min(d for d, _ in near)
    return [k for d, k in near if d <= best + 1e-9]


def _merge_tags(features: dict[str, list[PlanFeature]], tags: list[PlanFeature], reach: float, warnings: list[str]) -> None:
    """Each data tag gives its attributes (and id) to the one feature :func:`_host` finds for it."""
    flat = [f for role, fs in features.items() if role != CONTOURS for f in fs]
    for t in tags:
        hosts = _host(flat, t.geometry, str(t.attrs.get("cad_layer", "")), reach)
        if len(hosts) != 1:
            warnings.append(f"data tag {t.attrs.get('cad_block')} ({t.attrs.get('id', 'no id')}) on {t.attrs.get('cad_layer')} names {len(hosts)} features: not used")
            continue
        host = flat[hosts[0]]
        for k, v in t.attrs.items():
            if k not in ("cad_block", "cad_layer"):
                host.attrs[k] = v
        if not t.generated_id:
            host.generated_id = False


def _repeats_outline(hatch: PlanFeature, same_role: list[PlanFeature]) -> bool:
    for f in same_role:
        if f.attrs.get("cad_layer") == hatch.attrs.get("cad_layer") and f.geometry.geom_type.endswith("Polygon"):
            a, b = f.geometry, hatch.geometry
            if a.area > 0 and shapely.symmetric_difference(a, b).area <= 0.01 * a.area:
                return True
    return False


def _assign_labels(features: dict[str, list[PlanFeature]], labels: list[tuple[str, BaseGeometry, str]], reach: float, warnings: list[str]) -> None:
    flat = [f for role, fs in features.items() if role != CONTOURS for f in fs]
    if not flat or not labels:
        return
    claims: dict[int, list[str]] = {}
    for text, pt, layer in labels:
        hosts = _host(flat, pt, layer, reach)
        if len(hosts) > 1:
            warnings.append(f"label '{text}' (CAD layer {layer}) is as near to {len(hosts)} features: not used as an id")
            continue
        if hosts:
            claims.setdefault(hosts[0], []).append(text)
    for k, texts in claims.items():
        f = flat[k]
        names = list(dict.fromkeys(texts))
        if not f.generated_id:
            continue
        if len(names) == 1 and len(names[0]) <= 40:
            f.attrs["id"] = names[0]
            f.generated_id = False
        else:
            warnings.append(f"{f.attrs['id']} has {len(names)} labels ({', '.join(names)}): kept its generated id")


def _unique_ids(features: dict[str, list[PlanFeature]], warnings: list[str]) -> None:
    for role, fs in features.items():
        seen: Counter[str] = Counter()
        for f in fs:
            fid = str(f.attrs["id"])
            seen[fid] += 1
            if seen[fid] > 1:
                new = f"{fid}#{seen[fid]}"
                warnings.append(f"two {role} features are labelled {fid}: the second is {new}")
                f.attrs["id"] = new


__all__ = ["CONTOURS", "CadEntity", "CadMapping", "CadMappingError", "PlanFeature", "SortedPlan", "clean_text", "load_mapping", "sort_entities"]
