"""docs/coverage.md lists every rule of every pack and matches the packs."""

from __future__ import annotations

from pathlib import Path

from stormwater_plugin.core.coverage import coverage_markdown
from stormwater_plugin.core.rulepack import JURISDICTIONS, load_pack

DOC = Path(__file__).resolve().parents[2] / "docs" / "coverage.md"


def test_coverage_table_lists_every_rule_of_every_pack():
    text = DOC.read_text(encoding="utf-8")
    for j in JURISDICTIONS:
        for rule in load_pack(j).rules:
            assert f"`{rule.id}`" in text, rule.id


def test_coverage_table_is_up_to_date_with_the_packs():
    assert DOC.read_text(encoding="utf-8").strip() == coverage_markdown().strip(), "run: python -m stormwater_plugin.core.coverage > docs/coverage.md"


def test_every_pack_has_reviewer_rows_except_where_the_text_has_none():
    for j in JURISDICTIONS:
        assert any(r.kind == "reviewer" for r in load_pack(j).rules), j
