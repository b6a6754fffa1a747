"""The completeness check: what the submission must show for its class and jurisdiction, and what is missing.

Run before the technical check, it answers a reviewer's first question, "can this application be
reviewed?", as a list to send back ("incomplete: no test pit data (shgw_elev_ft) for DW-1, DW-2; no
building_sites layer"). The requirements are data: each pack's ``submission`` items
(:class:`~stormwater_plugin.core.rulepack.SubmissionItem`), each with its citation and verbatim excerpt.
QGIS-free; it reads the layers the check reads.

Readings (docs/cad.md):

- an *absent* layer is missing (the package says nothing about that role); an *empty* layer is shown
  ("none on the site and within 100 ft"), as the check reads it;
- a *template*'s empty layer (``stormwater-check new-site``) is not drawn, so missing, until the applicant
  states there are none (``none_present`` in its ``site_statements`` table), as the check reads it;
- a device field is missing when it is null, blank, or zero where the device-plausibility pack reads zero
  as missing (an elevation of 0 ft in the Park is a blank cell, not a datum);
- topography is shown by a DEM given to the check, or a non-empty ``contours`` layer (existing grade,
  from a CAD import);
- with no class given or computed, every item of every class applies, each saying for which classes
  (never a silent "complete");
- after a check, a feature drawn as a point (or a symbol) whose plausible size (``packs/device_plausibility.json``,
  ``extents``) leaves a finding undetermined is missing its drawn footprint: a device, a septic system, a well or
  any other feature the finding measures. One line per feature, naming it and what settles it
  (:attr:`~stormwater_plugin.core.extents.Extent.remedy`, the words its findings already end with), with the
  citations of the findings it decides, however many they are. A line (a stream's centreline) is the map's
  drawing of it, not a symbol, and is not asked for.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Mapping, Sequence

import shapely

from ..core.cad.sorting import CONTOURS
from ..core.extents import feature_extent
from ..core.model import CheckResult, FeatureLayer, JsonObject, Status
from ..core.roles import ROLE_NOUN
from ..core.rulepack import PACK_DIR, RulePack, SubmissionItem

#: The layer of existing-grade contours in a package (a CAD import's), which shows the site's topography without a DEM.
CONTOURS_LAYER: str = CONTOURS  # the CAD import's layer of existing-grade contours (core.cad.sorting)


#: The fields read, by the file they were read from and its version (its path, modification time and size).
_ZERO_MISSING: dict[tuple[str, int, int], frozenset[str]] = {}


def _zero_is_missing() -> frozenset[str]:
    """The fields whose 0 means "not stated" (pack data), read again only when the file changed (asked at every live edit)."""
    path = os.path.join(PACK_DIR, "device_plausibility.json")  # text, not a Path: made at every live edit
    st = os.stat(path)
    version = (path, st.st_mtime_ns, st.st_size)
    found = _ZERO_MISSING.get(version)
    if found is None:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        found = _ZERO_MISSING[version] = frozenset(str(f) for f in data.get("zero_is_missing_fields", []))
    return found


@dataclass(frozen=True)
class ItemResult:
    """One requirement and what the package shows of it: ``shown`` true, or ``missing`` lines."""

    item: SubmissionItem
    missing: tuple[str, ...]
    applies_because: str = ""

    @property
    def shown(self) -> bool:
        return not self.missing

    def as_dict(self) -> JsonObject:
        return {
            "id": self.item.id,
            "what": self.item.what,
            "citation": self.item.citation.text,
            "excerpt": self.item.citation.excerpt,
            "classes": list(self.item.classes),
            "status": "shown" if self.shown else "missing",
            "missing": list(self.missing),
            "applies_because": self.applies_because,
        }


@dataclass(frozen=True)
class FootprintRequest:
    """A feature drawn as a point whose plausible size leaves findings undetermined: its drawn footprint is asked for once.

    ``device`` is the feature's id (a device's, the first kind asked for), ``role`` its layer role.
    """

    device: str
    what: str
    remedy: str
    citations: tuple[str, ...]
    findings: int
    role: str = "devices"

    @property
    def line(self) -> str:
        n = f"{self.findings} finding{'s' if self.findings != 1 else ''}"
        noun = ROLE_NOUN.get(self.role, self.role)
        return f"the footprint of {noun} {self.device} ({self.what}; its plausible size leaves {n} undetermined): {self.remedy}"


@dataclass(frozen=True)
class Completeness:
    """The completeness of a submission: each applicable item, and the list to send back."""

    jurisdiction: str
    project_class: str | None
    items: tuple[ItemResult, ...] = field(default_factory=tuple)
    #: Devices whose drawn footprint a check's findings need (:func:`footprint_requests`).
    footprints: tuple[FootprintRequest, ...] = ()

    @property
    def complete(self) -> bool:
        return all(r.shown for r in self.items) and not self.footprints

    @property
    def missing(self) -> list[str]:
        """One line per thing missing: the same gap required by several items is said once, with every citation."""
        cited: dict[str, list[str]] = {}
        for r in self.items:
            for m in r.missing:
                where = cited.setdefault(f"{m}{r.applies_because}", [])
                if r.item.citation.text not in where:
                    where.append(r.item.citation.text)
        return [f"{text} ({'; '.join(where)})" for text, where in cited.items()] + [f"{r.line} ({'; '.join(r.citations)})" for r in self.footprints]

    def summary(self) -> str:
        """One line a reviewer can send back: ``complete: …`` or ``incomplete: a; b; c``."""
        if self.complete:
            return f"complete: the package shows every item {self.jurisdiction} requires" + (f" of a {self.project_class} project" if self.project_class else "")
        return "incomplete: " + "; ".join(self.missing)

    def as_dict(self) -> JsonObject:
        return {"jurisdiction": self.jurisdiction, "project_class": self.project_class, "complete": self.complete,
                "summary": self.summary(), "missing": list(self.missing), "items": [r.as_dict() for r in self.items]}


def _blank(v: object, name: str, zero_missing: frozenset[str]) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and v != v:
        return True
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return True
        try:
            v = float(s)
        except ValueError:
            return True  # a number field holding words: the value is not known
    if name in zero_missing and isinstance(v, (int, float)) and not isinstance(v, bool) and float(v) == 0.0:
        return True
    return False


def _low(attrs: Mapping[str, object]) -> dict[str, object]:
    """A feature's attributes by field name stripped and in lower case (a later field of the same name wins, as it always has)."""
    return {str(k).strip().lower(): v for k, v in attrs.items()}


def _layer_phrase(role: str, undrawn: Collection[str] = ()) -> str:
    if role in undrawn:
        return f"no {ROLE_NOUN.get(role, role)} drawn (the template's {role} layer is empty; none_present = 1 for {role} in site_statements says there are none)"
    return f"no {role} layer ({plural(ROLE_NOUN.get(role, role))}; an empty layer says there are none)"


def plural(noun: str) -> str:
    """The plural of an English noun phrase's last word: ``water body`` -> ``water bodies``, ``septic system`` -> ``septic systems``."""
    if not noun:
        return noun
    low = noun.lower()
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def _evaluate(item: SubmissionItem, layers: Mapping[str, FeatureLayer], has_dem: bool, contour_count: int, zero_missing: frozenset[str],
              undrawn: Collection[str] = ()) -> tuple[str, ...]:
    p = item.params
    if item.kind == "layers_present":
        return tuple(_layer_phrase(r, undrawn) for r in p.get("roles", []) if r not in layers)
    if item.kind == "features_present":
        out = []
        for r in p.get("roles", []):
            if r not in layers:
                out.append(_layer_phrase(r, undrawn))
            elif len(layers[r]) == 0 and not layers[r].no_geometry:
                out.append(f"no {ROLE_NOUN.get(r, r)} drawn (the {r} layer is empty)")
        return tuple(out)
    if item.kind == "topography":
        return () if has_dem or contour_count > 0 else (str(p.get("missing") or "no site topography"),)
    if item.kind == "device_fields":
        dev = layers.get("devices")
        if dev is None:
            return (_layer_phrase("devices", undrawn),)
        types = {str(t).lower() for t in p.get("device_types", [])}
        by_field: dict[str, list[str]] = {}
        for fid, attrs in zip(dev.ids, dev.attrs):
            low = _low(attrs)  # each device's field names written once for every field asked
            if types and str(low.get("device_type") or "").strip().lower() not in types:
                continue
            for name in p.get("fields", []):
                if _blank(low.get(name.lower()), name, zero_missing):
                    by_field.setdefault(name, []).append(fid)
        for fid in dev.no_geometry:
            by_field.setdefault("geometry", []).append(fid)
        lead = str(p.get("missing") or "missing data")
        return tuple(f"{lead} ({name}) for {', '.join(ids)}" for name, ids in by_field.items())
    raise ValueError(f"{item.id}: unknown submission kind {item.kind!r}")


def footprint_requests(result: CheckResult, layers: Mapping[str, FeatureLayer]) -> tuple[FootprintRequest, ...]:
    """The features drawn as points whose plausible size leaves a finding of ``result`` undetermined.

    A finding counts when its distance interval straddles the limit (``extent_straddles``); each feature it measures
    (subject or other, of any role) that is drawn as a point or a symbol as the check read it (``result.feature_wkt``)
    is asked for, its :func:`~stormwater_plugin.core.extents.feature_extent` saying what it is and what settles it. A
    line is not asked for (a stream's centreline is the map's drawing of it). One request per feature, devices first,
    then by role and id, with the citations of every finding it decides.
    """
    found: dict[tuple[str, str], list[str]] = {}
    counts: dict[tuple[str, str], int] = {}
    for f in result.findings:
        if f.status is not Status.UNDETERMINED or f.extra.get("extent_straddles") is not True:
            continue
        for ref in (f.subject, f.other):
            if ref is None:
                continue
            key = (ref.layer, ref.id)
            cited = found.setdefault(key, [])
            counts[key] = counts.get(key, 0) + 1
            if f.citation.text not in cited:
                cited.append(f.citation.text)
    if not found:
        return ()
    # the attributes of the roles asked for only (a county's parcels are not indexed at every live edit)
    asked = {role for role, _fid in found}
    attrs = {role: dict(zip(lyr.ids, lyr.attrs)) for role, lyr in layers.items() if lyr is not None and role in asked}
    out = []
    for role, fid in sorted(found, key=lambda k: (k[0] != "devices", k[0], k[1])):
        wkt = result.feature_wkt.get(f"{role}:{fid}")
        if wkt is None:
            continue
        geom = shapely.from_wkt(wkt)
        if geom.geom_type in ("LineString", "MultiLineString"):
            continue
        ext = feature_extent(role, geom, attrs.get(role, {}).get(fid, {}))
        if ext.drawn:
            continue
        out.append(FootprintRequest(fid, ext.what, ext.remedy, tuple(found[(role, fid)]), counts[(role, fid)], role))
    return tuple(out)


def check_completeness(
    pack: RulePack,
    layers: Mapping[str, FeatureLayer],
    project_class: str | None,
    *,
    has_dem: bool,
    contour_count: int = 0,
    undrawn: Collection[str] = (),
    result: CheckResult | None = None,
) -> Completeness:
    """What the submission must show for ``project_class`` under ``pack``, and what ``layers`` miss.

    Parameters
    ----------
    pack : RulePack
        The jurisdiction's pack (its ``submission`` items).
    layers : mapping of str to FeatureLayer
        The package's layers by role; a role not in it is absent.
    project_class : str or None
        ``exempt``, ``minor`` or ``major``; None applies every class's items, each naming its classes.
    has_dem : bool
        A DEM is given (topography shown).
    contour_count : int
        Existing-grade contour features in the package (a ``contours`` layer).
    undrawn : collection of str
        Roles absent because the package is a template whose layer of that role is empty and not stated
        none (:func:`~stormwater_plugin.services.site_template.undrawn_roles`): said as "not drawn".
    result : CheckResult, optional
        The check's result: devices whose plausible size leaves a finding undetermined are asked for their
        footprint (:func:`footprint_requests`).
    """
    zero_missing = _zero_is_missing()
    results = []
    for item in pack.submission:
        if project_class is not None and project_class not in item.classes:
            continue
        because = "" if project_class is not None or set(item.classes) >= {"exempt", "minor", "major"} else f" (if the project is {' or '.join(item.classes)})"
        results.append(ItemResult(item, _evaluate(item, layers, has_dem, contour_count, zero_missing, undrawn), because))
    footprints = footprint_requests(result, layers) if result is not None else ()
    return Completeness(pack.jurisdiction, project_class, tuple(results), footprints)


def completeness_lines(c: Completeness) -> Sequence[str]:
    """The printed list: the summary line, then one line per missing item."""
    if c.complete:
        return [c.summary()]
    return ["Completeness: incomplete"] + [f"  - {m}" for m in c.missing]


__all__ = ["CONTOURS_LAYER", "Completeness", "FootprintRequest", "ItemResult", "check_completeness", "footprint_requests", "completeness_lines", "plural"]
