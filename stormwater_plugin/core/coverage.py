"""The coverage table: every rule of every pack, with how it is checked.

``python -m stormwater_plugin.core.coverage > docs/coverage.md`` regenerates
the table; a test fails when the file and the packs disagree.
"""

from __future__ import annotations

from .rulepack import JURISDICTIONS, RulePack, load_pack

HOW: dict[str, str] = {
    "reviewer": "reviewer",
    "neighbour_notification": "automatic (list)",
    "plot_plan_inventory": "automatic (list)",
}


def _rows(pack: RulePack) -> list[tuple[str, str, str, str, str, str]]:
    rows = []
    for label, c in (("exempt", pack.exempt), ("minor", pack.minor), ("major", pack.major)):
        if c is not None:
            rows.append((f"{pack.jurisdiction}.classification.{label}", c.citation.text, "classification", "automatic", "all", f"Project class: {label}"))
    if pack.subdivision is not None:
        rows.append((f"{pack.jurisdiction}.classification.subdivision", pack.subdivision.citation.text, "classification", "automatic", "all", "Project class: minor subdivision of 2 to 4 lots"))
    for r in pack.rules:
        classes = ", ".join(r.applies.get("classes", [])) or "all"
        rows.append((r.id, r.citation.text, r.kind, HOW.get(r.kind, "automatic"), classes, r.title))
    return rows


def coverage_markdown() -> str:
    """The whole table as Markdown, one section per jurisdiction."""
    out = [
        "# Rule coverage",
        "",
        "Generated from the rule packs by `python -m stormwater_plugin.core.coverage`; do not edit by hand.",
        "*automatic*: decided from the plan's geometry, attributes and DEM; *reviewer*: stated by the text",
        "but not decidable from geometry, listed in every run under \"For the reviewer\".",
        "",
    ]
    for j in JURISDICTIONS:
        pack = load_pack(j)
        out += [f"## `{j}`: {pack.title} (pack {pack.pack_version})", "", "| rule | citation | kind | checked | classes | what |", "|---|---|---|---|---|---|"]
        for rid, cite, kind, how, classes, title in _rows(pack):
            out.append(f"| `{rid}` | {cite} | {kind} | {how} | {classes} | {title} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover
    print(coverage_markdown())
