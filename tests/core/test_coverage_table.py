"""docs/coverage.md lists every rule of every text: every number of the three regulations has a row.

A row is a classification threshold, a rule of a pack (checked or ``reviewer``) or an
``out_of_scope`` entry of a pack. A number of a text is *covered* when it lies inside an
occurrence of a row's excerpt and is one of that row's own numbers (its operative words or
law parameters, see :mod:`stormwater_plugin.core.coverage`). Numbers that are not rules
(section numbers, years, addresses, labels) sit in ``data/regulation_numbers_not_rules.toml``
with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

from stormwater_plugin.core.coverage import Row, coverage_markdown, pack_rows, row_numbers
from stormwater_plugin.core.rulepack import JURISDICTIONS, load_pack
from stormwater_plugin.core.textnumbers import NumberToken, extract_numbers, normalize_text

DOC = Path(__file__).resolve().parents[2] / "docs" / "coverage.md"
EXCLUSIONS = Path(__file__).resolve().parent / "data" / "regulation_numbers_not_rules.toml"
TEXTS = ("lgpc-6nycrr-646-4.txt", "town-of-lake-george-ch148.txt", "town-of-mamakating-ch160.txt")


def _all_rows() -> list[Row]:
    return [row for j in JURISDICTIONS for row in pack_rows(load_pack(j))]


def _occurrences(text: str, needle: str) -> list[int]:
    out, at = [], text.find(needle)
    while at >= 0:
        out.append(at)
        at = text.find(needle, at + 1)
    return out


def _excluded_spans(name: str, text: str) -> tuple[list[tuple[int, int, str]], list[str]]:
    """Spans of the exclusion list in one text, and the entries that match nothing there."""
    data = tomllib.loads(EXCLUSIONS.read_text(encoding="utf-8"))
    spans: list[tuple[int, int, str]] = []
    stale: list[str] = []
    for p in data.get("pattern", []):
        if p["files"] and name not in p["files"]:
            continue
        found = [(m.start(), m.end(), p["why"]) for m in re.finditer(p["regex"], text) if m.end() > m.start()]
        spans += found
        if not found and p["files"]:
            stale.append(f"pattern {p['regex']!r}")
    for c in data.get("context", []):
        if c["file"] != name:
            continue
        needle = normalize_text(c["text"])
        at = _occurrences(text, needle)
        if not at:
            stale.append(f"context {c['text']!r}")
        spans += [(a, a + len(needle), c["why"]) for a in at]
    return spans, stale


def _covered_spans(name: str, text: str, rows: list[Row]) -> list[tuple[int, int, float, str]]:
    """(start, end, value, row id) of every own number of every row, placed in the text."""
    out = []
    for row in rows:
        if row.source_file != name:
            continue
        tokens, _ = row_numbers(row)
        for i, quote in enumerate(row.quoted):
            q = normalize_text(quote)
            for at in _occurrences(text, q):
                out += [(at + t.start, at + t.end, t.value, row.id) for j, t in tokens if j == i]
    return out


def _uncovered(name: str, text: str, rows: list[Row]) -> tuple[list[NumberToken], list[str]]:
    spans, stale = _excluded_spans(name, text)
    covered = _covered_spans(name, text, rows)
    missing = []
    for tok in extract_numbers(text):
        if any(s <= tok.start and tok.end <= e for s, e, _ in spans):
            continue
        if any(s <= tok.start and tok.end <= e and abs(v - tok.value) < 1e-9 for s, e, v, _ in covered):
            continue
        missing.append(tok)
    return missing, stale


@pytest.mark.parametrize("name", TEXTS)
def test_every_number_of_the_regulation_text_has_a_row_or_is_listed_as_not_a_rule(name, regulations):
    text = normalize_text((regulations / name).read_text(encoding="utf-8"))
    missing, stale = _uncovered(name, text, _all_rows())
    report = [f"{t.text!r} (= {t.value:g}) at ...{text[max(0, t.start - 60):t.end + 40]}..." for t in missing]
    assert not report, f"{len(report)} numbers of {name} have no row in the coverage table:\n" + "\n".join(report)
    assert not stale, f"exclusions that match nothing in {name}: {stale}"


def test_a_number_of_the_text_without_a_row_is_reported(regulations):
    """The check bites: drop the 20 ft septic rule and its twenty (20) feet is uncovered."""
    name = "lgpc-6nycrr-646-4.txt"
    text = normalize_text((regulations / name).read_text(encoding="utf-8"))
    rows = [r for r in _all_rows() if not r.id.endswith("septic-upgradient-20")]
    missing, _ = _uncovered(name, text, rows)
    assert [t.text for t in missing] == ["twenty (20)"]


def test_a_number_inside_an_excerpt_but_not_the_rules_own_is_not_covered_by_it(regulations):
    """646-4.14(a)(7) quotes "slope > 15%" and "60 minuets per inch": the slope rule owns 15, not 60."""
    name = "lgpc-6nycrr-646-4.txt"
    text = normalize_text((regulations / name).read_text(encoding="utf-8"))
    covered = {(v, rid) for _, _, v, rid in _covered_spans(name, text, _all_rows())}
    assert (15.0, "lgpc.minor.device-slope-15") in covered
    assert (60.0, "lgpc.minor.device-slope-15") not in covered
    assert (60.0, "lgpc.reviewer.designer-percolation-fill") in covered


def test_coverage_table_lists_every_rule_of_every_pack():
    text = DOC.read_text(encoding="utf-8")
    for j in JURISDICTIONS:
        for row in pack_rows(load_pack(j)):
            assert f"`{row.id}`" in text, row.id


def test_coverage_table_is_up_to_date_with_the_packs():
    assert DOC.read_text(encoding="utf-8").strip() == coverage_markdown().strip(), "run: python -m stormwater_plugin.core.coverage > docs/coverage.md"


def test_every_pack_has_reviewer_rows_except_where_the_text_has_none():
    for j in JURISDICTIONS:
        assert any(r.kind == "reviewer" for r in load_pack(j).rules), j


def test_out_of_scope_entries_give_a_reason_and_their_numbers():
    for j in JURISDICTIONS:
        for row in pack_rows(load_pack(j)):
            if row.kind == "out_of_scope":
                assert row.reason.strip(), row.id
                assert row.operative_words, row.id


def test_row_ids_are_unique_across_rules_and_out_of_scope_entries():
    for j in JURISDICTIONS:
        ids = [row.id for row in pack_rows(load_pack(j))]
        assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
