"""What a check read from a town's context catalog says in its findings: the notes each source carries.

The file reader (:mod:`stormwater_plugin.headless.context_reader`) fetches the catalog's features around a site;
the words a finding then carries about them are decided here: how the catalog's site parcel was found
(:data:`SITE_NOTES`), a source's own notes (:func:`source_notes`: an informational wetland map, an old layer,
the catalog's note), the tax roll's hints of an on-site septic system or well (:func:`hint_notes`), what each role
read (:func:`read_notes`, :func:`partial_cover_note`, :func:`given_notes`, :func:`dem_notes`), and how findings.json
names the sources (:class:`ContextRead`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Iterable, Mapping, Sequence

from ..core.model import Warning_
from .context_catalog import ContextSource


@dataclass
class ContextRead:
    """What the catalog gave one check.

    ``layer_options`` are ``ROLE=PATH:LAYER`` texts for
    :func:`~stormwater_plugin.headless.reader.read_site`; ``dem`` the DEM path
    when the catalog gave it; ``warnings`` the notes the findings carry;
    ``used`` the sources read by role, with their feature counts.
    """

    layer_options: list[str] = field(default_factory=list)
    dem: Path | None = None
    dem_z_units: str | None = None
    warnings: list[Warning_] = field(default_factory=list)
    used: dict[str, list[tuple[ContextSource, int]]] = field(default_factory=dict)
    site_parcel_id: str | None = None
    area_wkt: str = ""
    reach_ft: float = 0.0

    def describe(self) -> dict[str, object]:
        """The catalog's part of findings.json's ``inputs``."""
        return {
            "reach_ft": self.reach_ft,
            "sources": {role: [{"source": s.describe(), "path": s.path, "features": n} for s, n in items] for role, items in self.used.items()},
        }

    def annotate(self, doc: dict[str, object]) -> None:
        """Name the context sources on each finding of ``doc`` that relates a context feature (in place)."""
        words = {role: [s.describe() for s, _ in items] for role, items in self.used.items()}
        findings = doc.get("findings")
        for f in findings if isinstance(findings, list) else []:
            names: list[str] = []
            for ref in (f.get("subject"), f.get("other")) if isinstance(f, dict) else ():
                for w in words.get(str((ref.get("layer") if isinstance(ref, dict) else None) or ""), []):
                    if w not in names:
                        names.append(w)
            if names:
                f["context_sources"] = names
        inputs = doc.setdefault("inputs", {})
        if isinstance(inputs, dict):
            inputs["context"] = self.describe()


#: How the catalog's site parcel was found (:class:`~stormwater_plugin.core.site_parcel.SiteParcelPick`), in the note findings carry.
SITE_NOTES: dict[str, str] = {
    "most_plan": "the catalog parcel holding the most of the plan's building sites and devices",
    "only": "the only catalog parcel around the plan",
}


def source_notes(src: ContextSource, role: str) -> list[Warning_]:
    """Notes a finding using ``src`` must carry: an informational wetland map, an old layer, the catalog's own note."""
    layer = None if role == "dem" else role
    out: list[Warning_] = []
    if role == "wetlands" and src.status == "informational":
        out.append(
            Warning_(
                "context_wetlands_informational",
                f"wetlands from {src.describe()}: an informational map; its mapped extent is not the regulated extent "
                "(under the amended Freshwater Wetlands Act a wetland above the Act's size threshold is regulated whether mapped or not): "
                "a delineation in the field decides",
                layer,
            )
        )
    age = src.age_note()
    if age:
        out.append(Warning_("context_source_old", f"{role}: {age}", layer))
    if src.note:
        out.append(Warning_("context_source_note", f"{role} ({src.name}): {src.note}", layer))
    return out


def hint_notes(sources: Sequence[ContextSource], props: Sequence[Sequence[Mapping[str, object]]], plan_roles: Collection[str]) -> list[Warning_]:
    """Parcels whose tax roll says private sewer or water: an on-site septic system or well the plan must show.

    ``props``: each source's parcels read within reach (their attributes); ``plan_roles``: the roles the plan gives.
    """
    out: list[Warning_] = []
    for src, rows in zip(sources, props):
        for hint in src.hints:
            keys = sorted({str(p.get("PRINT_KEY") or p.get("SBL") or p.get("id") or "?") for p in rows if hint.matches(p.get(hint.field))})
            if not keys:
                continue
            shown = ", ".join(keys[:12]) + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
            what = "an on-site septic system" if hint.kind == "septic" else "a private well"
            drawn = (
                "the plan's layer must show each one near the site"
                if hint.kind in plan_roles
                else f"the plan has no {hint.kind} layer, so no setback to them is checked: locate them"
            )
            out.append(
                Warning_(
                    f"context_{hint.kind}_hint",
                    f"tax roll ({src.name}, {hint.field} {'/'.join(hint.values)}): {len(keys)} parcel(s) within reach have {what} ({shown}); {drawn}",
                    hint.kind,
                    tuple(keys),
                )
            )
    return out


def given_notes(roles: Iterable[str], given_by: Mapping[str, str]) -> list[Warning_]:
    """A note for each catalog role the check takes elsewhere (``given_by``: role to ``"the site package"``, ``"--layer"``, ``"--dem"``)."""
    return [Warning_("context_role_given", f"{role} taken from {given_by[role]}, not from the context catalog", None if role == "dem" else role)
            for role in roles if role in given_by]


def read_notes(role: str, sources: Sequence[ContextSource], counts: Sequence[int], reach_ft: float) -> list[Warning_]:
    """What each source of ``role`` gave within reach (``counts`` its features read), with its own notes (:func:`source_notes`)."""
    out: list[Warning_] = []
    for s, n in zip(sources, counts):
        out.append(Warning_("context_source", f"{role}: {n} feature(s) within {reach_ft:,.0f} ft of the site from {s.describe()}", role))
        out.extend(source_notes(s, role))
    return out


def partial_cover_note(role: str, reach_ft: float, found: bool) -> Warning_:
    """No source's extent holds the whole search area of ``role`` (``found``: some feature was read all the same)."""
    return Warning_(
        "context_partial_cover",
        f"{role}: no catalog source's extent holds the whole area within {reach_ft:,.0f} ft of the site"
        + ("" if found else ", and none has a feature in it: the role is taken as not supplied"),
        role,
    )


def dem_notes(src: ContextSource, file_name: str) -> list[Warning_]:
    """The catalog's DEM (``file_name`` what was opened: a file, or a VRT over its tiles) and its own notes."""
    z = f"; elevations in {src.z_units} as the catalog declares" if src.z_units else ""
    return [Warning_("context_source", f"DEM from {src.describe()} ({file_name}), read over the window the rules need{z}"), *source_notes(src, "dem")]


__all__ = ["SITE_NOTES", "ContextRead", "dem_notes", "given_notes", "hint_notes", "partial_cover_note", "read_notes", "source_notes"]
