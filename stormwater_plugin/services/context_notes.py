"""What a check read from a town's context catalog says in its findings: the notes each source carries.

The file reader (:mod:`stormwater_plugin.headless.context_reader`) fetches the catalog's features around a site;
the words a finding then carries about them are decided here: how the catalog's site parcel was found
(:data:`SITE_NOTES`), a source's own notes (:func:`source_notes`: an informational wetland map, an old layer,
the catalog's note) and the tax roll's hints of an on-site septic system or well (:func:`hint_notes`).
"""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

from ..core.model import Warning_
from .context_catalog import ContextSource

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


__all__ = ["SITE_NOTES", "hint_notes", "source_notes"]
