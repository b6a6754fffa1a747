"""Rules are data: packs validate against the schema and quote the regulations verbatim."""

from __future__ import annotations

import copy
import json
import re

import pytest

from stormwater_plugin.core.coverage import LAW_PARAMS, pack_rows, row_numbers
from stormwater_plugin.core.rulepack import JURISDICTIONS, PACK_DIR, PackError, load_pack, pack_from_dict


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_pack_validates_and_names_its_source(jurisdiction):
    pack = load_pack(jurisdiction)
    assert pack.jurisdiction == jurisdiction
    assert pack.pack_version and pack.source_file and pack.source_version


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_every_excerpt_appears_verbatim_in_the_regulation_text(jurisdiction, regulations):
    pack = load_pack(jurisdiction)
    cites = [r.citation for r in pack.rules] + [c.citation for c in (pack.exempt, pack.minor, pack.major) if c is not None]
    texts = {}
    for c in cites:
        if c.source_file not in texts:
            texts[c.source_file] = _norm((regulations / c.source_file).read_text(encoding="utf-8"))
        assert _norm(c.excerpt) in texts[c.source_file], f"{c.text}: excerpt not found in {c.source_file}"
        if c.allowance if hasattr(c, "allowance") else False:  # pragma: no cover
            pass
    for r in pack.rules:
        allowance = r.params.get("allowance")
        if allowance:
            assert _norm(allowance["excerpt"]) in texts[r.citation.source_file]


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_every_out_of_scope_excerpt_appears_verbatim_in_the_regulation_text(jurisdiction, regulations):
    pack = load_pack(jurisdiction)
    for row in pack_rows(pack):
        if row.kind == "out_of_scope":
            text = _norm((regulations / row.source_file).read_text(encoding="utf-8"))
            assert _norm(row.quoted[0]) in text, f"{row.id}: excerpt not found in {row.source_file}"


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_every_excerpt_holds_its_rules_own_numbers_or_operative_words(jurisdiction):
    """A rule quotes the words that hold its numbers: its ``operative_words`` and every law parameter.

    Law parameters per kind are :data:`LAW_PARAMS` (``required_ft`` of a setback, ``above_sqft`` of a
    threshold, which may be written in acres...); the excerpt must write each value, in digits or words.
    """
    problems = {row.id: row_numbers(row)[1] for row in pack_rows(load_pack(jurisdiction))}
    assert {k: v for k, v in problems.items() if v} == {}


def test_an_excerpt_without_the_rules_number_is_reported():
    data = json.loads((PACK_DIR / "lgpc.json").read_text(encoding="utf-8"))
    data["rules"][0]["params"]["required_ft"] = 25  # the excerpt says "twenty (20) feet"
    data["rules"][1]["params"]["operative_words"] = ["within 150 feet"]
    rows = {r.id: r for r in pack_rows(pack_from_dict(data))}
    assert row_numbers(rows[data["rules"][0]["id"]])[1] == ["required_ft=25"]
    assert row_numbers(rows[data["rules"][1]["id"]])[1] == ["operative words 'within 150 feet'"]


def test_acres_in_the_text_match_square_feet_in_the_pack():
    rows = {r.id: r for r in pack_rows(load_pack("lgpc"))}
    tokens, missing = row_numbers(rows["lgpc.major.over-5-acres-spdes"])
    assert missing == [] and [t.text for _, t in tokens] == ["five (5)"]


def test_every_kind_of_the_schema_declares_its_law_parameters():
    schema = json.loads((PACK_DIR / "schema.json").read_text(encoding="utf-8"))
    kinds = schema["$defs"]["rule"]["properties"]["kind"]["enum"]
    assert sorted(set(kinds) - set(LAW_PARAMS)) == []


def test_no_rule_kind_hard_codes_a_distance():
    """The numbers live in the packs: no check module compares against a literal setback."""
    from pathlib import Path

    import stormwater_plugin.core.checks as checks_pkg

    for path in Path(checks_pkg.__file__).parent.glob("*.py"):
        src = path.read_text(encoding="utf-8")
        for literal in ("20.0", "35.0", "50.0", "100.0", "500.0", "15000", "15_000", " 35)", " 100)", " 500)"):
            assert literal not in src, f"{path.name} holds the literal {literal}"


def test_a_pack_with_an_unknown_kind_is_refused():
    data = json.loads((PACK_DIR / "lgpc.json").read_text(encoding="utf-8"))
    bad = copy.deepcopy(data)
    bad["rules"][0]["kind"] = "exec_python"
    with pytest.raises(PackError, match="not one of"):
        pack_from_dict(bad)


def test_a_pack_with_a_negative_distance_is_refused():
    data = json.loads((PACK_DIR / "lgpc.json").read_text(encoding="utf-8"))
    data["rules"][0]["params"]["required_ft"] = -20
    with pytest.raises(PackError, match="positive"):
        pack_from_dict(data)


def test_unknown_jurisdiction_is_refused_with_the_choices():
    with pytest.raises(PackError, match="lgpc, lake-george, mamakating"):
        load_pack("saratoga")


def test_a_pack_is_read_once_per_file_version(tmp_path, monkeypatch):
    """load_pack keeps the pack it read (issue 24 item 5: the dock asks for it several times per review) until its file changes."""
    import os

    from stormwater_plugin.core import rulepack

    for name in ("lgpc.json", "schema.json"):
        (tmp_path / name).write_text((PACK_DIR / name).read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(rulepack, "PACK_DIR", tmp_path)
    first = load_pack("lgpc")
    assert load_pack("lgpc") is first
    data = json.loads((tmp_path / "lgpc.json").read_text(encoding="utf-8"))
    data["title"] = "Edited title"
    (tmp_path / "lgpc.json").write_text(json.dumps(data), encoding="utf-8")
    st = (tmp_path / "lgpc.json").stat()
    os.utime(tmp_path / "lgpc.json", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a later version even on a coarse clock
    second = load_pack("lgpc")
    assert second is not first and second.title == "Edited title"
