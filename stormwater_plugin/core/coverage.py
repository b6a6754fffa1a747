"""The coverage table: every rule of every text, with how it is checked.

``python -m stormwater_plugin.core.coverage > docs/coverage.md`` regenerates
the table; a test fails when the file and the packs disagree, and another when
a number of a regulation text has no row (``tests/core/test_coverage_table.py``).

A *row* is one of:

- a classification threshold of the pack (``classification``);
- a rule of the pack (``rules``): checked by the engine, or of kind ``reviewer``
  (stated by the text, listed in every run under "For the reviewer");
- an ``out_of_scope`` entry of the pack: a rule of the text that a site-plan
  check does not decide, with the reason (procedure, enforcement, the
  municipality's own program).

Each row holds the words of the text that carry its numbers (its *operative
words*): ``params.operative_words`` when the pack lists them, otherwise derived
from the rule's numeric parameters (:data:`LAW_PARAMS`: every law number of the
kind must appear in the excerpt, in digits or in words; square feet may be
written in acres), and for a reviewer row without a list, every number its
excerpt quotes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from .kinds import KINDS
from .rulepack import JURISDICTIONS, RulePack, load_pack
from .textnumbers import NumberToken, extract_numbers, normalize_text

__all__ = ["LAW_PARAMS", "Row", "coverage_markdown", "pack_rows", "row_numbers"]

SQFT_PER_ACRE = 43_560.0

#: How the table says each kind is checked (the kind registry; a kind not listed is "automatic").
HOW: dict[str, str] = {k: s.how for k, s in KINDS.items() if s.how != "automatic"}

#: The parameters of each rule kind that are numbers of the law, with their unit (the kind registry, core/kinds.py).
#: Any other numeric parameter is an implementation choice (tolerances, ray counts,
#: display) or a number another rule quotes, and is not looked for in the excerpt.
#: Units: ``sqft`` matches the text in square feet or in acres; ``dict`` means every
#: value of a mapping (drain days by device type); anything else matches as written.
#: A dotted name reads a nested mapping (the allowance of a setback). The subdivision's
#: ``min_lots``..``max_lots`` also own the lot counts between them ("three-lot").
LAW_PARAMS: dict[str, dict[str, str]] = {k: dict(s.law) for k, s in KINDS.items()}


@dataclass(frozen=True)
class Row:
    """One row of the coverage table.

    Attributes
    ----------
    id, citation, kind, how, classes, title : str
        As shown in the table; ``how`` is ``automatic``, ``reviewer`` or ``out of scope``.
    source_file : str
        The regulation text the excerpt quotes.
    quoted : tuple of str
        The excerpt, then any excerpt nested in the parameters (an allowance).
    operative_words : tuple of str
        Words the pack lists as holding the rule's numbers (may be empty).
    law_values : tuple of (str, float, str)
        ``(param, value, unit)`` of the derived law numbers.
    reason : str
        Why an out-of-scope row is not checked (empty otherwise).
    """

    id: str
    citation: str
    kind: str
    how: str
    classes: str
    title: str
    source_file: str
    quoted: tuple[str, ...]
    operative_words: tuple[str, ...] = ()
    law_values: tuple[tuple[str, float, str], ...] = ()
    reason: str = ""


def _nested_excerpts(params: Any) -> Iterator[str]:
    if isinstance(params, Mapping):
        for key, value in params.items():
            if key == "excerpt" and isinstance(value, str):
                yield value
            else:
                yield from _nested_excerpts(value)
    elif isinstance(params, list):
        for item in params:
            yield from _nested_excerpts(item)


def _law_values(kind: str, params: Mapping[str, Any]) -> tuple[tuple[str, float, str], ...]:
    out: list[tuple[str, float, str]] = []
    for name, unit in LAW_PARAMS.get(kind, {}).items():
        value: Any = params
        for part in name.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        if unit == "dict" and isinstance(value, Mapping):
            out += [(f"{name}.{k}", float(v), "days") for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append((name, float(value), unit))
    lo, hi = params.get("min_lots"), params.get("max_lots")
    if kind == "subdivision" and isinstance(lo, int) and isinstance(hi, int):
        out += [(f"lots_{n}", float(n), "lots") for n in range(lo + 1, hi)]
    return tuple(out)


def _words(params: Mapping[str, Any]) -> tuple[str, ...]:
    words = params.get("operative_words", ())
    return tuple(str(w) for w in words) if isinstance(words, list) else ()


def pack_rows(pack: RulePack) -> list[Row]:
    """Every row of one pack: classification, rules, then out-of-scope entries."""
    rows: list[Row] = []
    raw_cls = pack.raw.get("classification", {}) if isinstance(pack.raw, Mapping) else {}
    for label, c in (("exempt", pack.exempt), ("minor", pack.minor), ("major", pack.major)):
        if c is not None:
            raw = raw_cls.get(label) or {}
            rows.append(
                Row(
                    f"{pack.jurisdiction}.classification.{label}", c.citation.text, "classification", "automatic", "all",
                    f"Project class: {label}", c.citation.source_file, (c.citation.excerpt,),
                    _words(raw), _law_values("classification", raw),
                )
            )
    if pack.subdivision is not None:
        raw = raw_cls.get("subdivision") or {}
        rows.append(
            Row(
                f"{pack.jurisdiction}.classification.subdivision", pack.subdivision.citation.text, "classification", "automatic", "all",
                "Project class: minor subdivision of 2 to 4 lots", pack.subdivision.citation.source_file, (pack.subdivision.citation.excerpt,),
                _words(raw), _law_values("subdivision", raw),
            )
        )
    for r in pack.rules:
        classes = ", ".join(r.applies.get("classes", [])) or "all"
        rows.append(
            Row(
                r.id, r.citation.text, r.kind, HOW.get(r.kind, "automatic"), classes, r.title, r.citation.source_file,
                (r.citation.excerpt, *_nested_excerpts(r.params)), _words(r.params), _law_values(r.kind, r.params),
            )
        )
    for o in pack.raw.get("out_of_scope", []) if isinstance(pack.raw, Mapping) else []:
        rows.append(
            Row(
                o["id"], o["citation"], "out_of_scope", "out of scope", "-", o["title"], o.get("source_file", pack.source_file),
                (o["excerpt"],), tuple(o.get("operative_words", ())), (), o["reason"],
            )
        )
    return rows


def _value_matches(value: float, unit: str, token: NumberToken) -> bool:
    if abs(token.value - value) < 1e-9:
        return True
    return unit == "sqft" and abs(token.value * SQFT_PER_ACRE - value) < 1e-6


def row_numbers(row: Row) -> tuple[list[tuple[int, NumberToken]], list[str]]:
    """The numbers of the row's own words, and what its quoted text is missing.

    Returns
    -------
    tokens : list of (int, NumberToken)
        ``(i, token)``: a number of ``normalize_text(row.quoted[i])`` that is the
        row's own: inside one of its operative words, matching a law parameter,
        or, for a reviewer row that lists no words, any number it quotes.
    missing : list of str
        Operative words absent from every quoted text, and law parameters whose
        value none of them writes (``required_ft=20``). Empty when all are there.
    """
    quotes = [normalize_text(q) for q in row.quoted]
    tokens = [(i, t) for i, q in enumerate(quotes) for t in extract_numbers(q)]
    own: dict[tuple[int, int, int], tuple[int, NumberToken]] = {}
    missing: list[str] = []
    for w in row.operative_words:
        wn = normalize_text(w).lower()
        found = False
        for i, q in enumerate(quotes):
            at = q.lower().find(wn)
            while at >= 0:
                found = True
                for j, t in tokens:
                    if j == i and at <= t.start < at + len(wn):
                        own[(i, t.start, t.end)] = (i, t)
                at = q.lower().find(wn, at + 1)
        if not found:
            missing.append(f"operative words {w!r}")
    for name, value, unit in row.law_values:
        hits = [(i, t) for i, t in tokens if _value_matches(value, unit, t)]
        if not hits:
            missing.append(f"{name}={value:g}")
        for i, t in hits:
            own[(i, t.start, t.end)] = (i, t)
    if row.kind == "reviewer" and not row.operative_words:
        for i, t in tokens:
            own[(i, t.start, t.end)] = (i, t)
    return sorted(own.values(), key=lambda it: (it[0], it[1].start)), missing


def _numbers_cell(row: Row) -> str:
    """The operative words, then the text of any other own number (law parameters, reviewer quotes)."""
    shown: list[str] = list(row.operative_words)
    tokens, _ = row_numbers(row)
    for _, t in tokens:
        if not any(t.text.lower() in w.lower() for w in shown):
            shown.append(t.text)
    return "; ".join(shown) if shown else "-"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _device_subject_table(jurisdiction: str, pack: RulePack) -> list[str]:
    """Which device rules apply to which device types (the pack's ``device_subjects``), as Markdown lines."""
    rules = [r for r in pack.rules if isinstance(r.params.get("device_subject"), Mapping)]
    if not rules:
        return []
    types = list(rules[0].params["device_subject"]["types"])
    out = ["", f"### `{jurisdiction}`: which device rules apply to which device types", "",
           "*applies*: the rule reads the device; *open*: the words leave it open, and a shortfall is undetermined, naming the reading.", "",
           "| rule | the text's subject | " + " | ".join(t.replace("_", " ") for t in types) + " | reading |",
           "|---|---|" + "---|" * len(types) + "---|"]
    for r in rules:
        row = r.params["device_subject"]
        out.append(f"| `{r.id}` | {_md(row['subject'])} | " + " | ".join(row["types"].get(t, "applies") for t in types) + f" | {_md(row['reading'])} |")
    return out


def coverage_markdown() -> str:
    """The whole table as Markdown, one section per jurisdiction."""
    out = [
        "# Rule coverage",
        "",
        "Generated from the rule packs by `python -m stormwater_plugin.core.coverage`; do not edit by hand.",
        "*automatic*: decided from the plan's geometry, attributes and DEM; *reviewer*: stated by the text",
        "but not decidable from geometry, listed in every run under \"For the reviewer\"; *out of scope*: a rule",
        "of the text that a site-plan check does not decide (procedure, enforcement, the municipality's own",
        "program), with the reason. *numbers*: the text's words that hold the row's numbers.",
        "Every number of the three texts has a row here or sits, with the reason, in the commented list of",
        "numbers that are not rules (`tests/core/data/regulation_numbers_not_rules.toml`); a test enforces it.",
        "",
    ]
    for j in JURISDICTIONS:
        pack = load_pack(j)
        rows = pack_rows(pack)
        out += [f"## `{j}`: {pack.title} (pack {pack.pack_version})", "", "| rule | citation | kind | checked | classes | numbers | what |", "|---|---|---|---|---|---|---|"]
        for row in rows:
            if row.kind != "out_of_scope":
                out.append(f"| `{row.id}` | {row.citation} | {row.kind} | {row.how} | {row.classes} | {_md(_numbers_cell(row))} | {_md(row.title)} |")
        out += _device_subject_table(j, pack)
        scoped = [row for row in rows if row.kind == "out_of_scope"]
        if scoped:
            out += ["", f"### `{j}`: out of scope", "", "| entry | citation | numbers | what | why not checked |", "|---|---|---|---|---|"]
            for row in scoped:
                out.append(f"| `{row.id}` | {row.citation} | {_md(_numbers_cell(row))} | {_md(row.title)} | {_md(row.reason)} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover
    print(coverage_markdown())
