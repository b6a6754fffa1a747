"""Which text each pack encodes, carried through findings.json, the report and the letter (issue 34 item 11)."""

from __future__ import annotations

import pytest
from shapely.geometry import box

from stormwater_plugin.core.rulepack import JURISDICTIONS, load_pack, pack_source, source_statement
from stormwater_plugin.core.serialize import result_to_dict
from stormwater_plugin.services.letter import LetterHeader, compose_letter
from tests.sitebuilder import layer, run


def _doc(jurisdiction):
    site = {"disturbance": layer("disturbance", [box(0, 0, 50, 50)], ["D1"])}
    return run(jurisdiction, site, project_class="minor" if jurisdiction != "mamakating" else "major")


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_findings_json_names_the_text_its_date_public_source_and_date_read(jurisdiction):
    doc = result_to_dict(_doc(jurisdiction))
    src = doc["rule_pack"]["source"]
    assert src["file"].endswith(".txt") and src["title"] and src["text_date"] and src["public_source"] and src["read"] == "2026-11-30"
    assert src == pack_source(load_pack(jurisdiction))


def test_the_lgpc_source_says_the_text_is_as_supplied_with_100_ft_and_the_reviewer_confirms_the_text_in_force():
    text = source_statement(pack_source(load_pack("lgpc")))
    for words in ("as supplied", "100 ft", "Albany Times Union (1 March 2021)", "effective 1 April 2021", "35 ft", "stream buffer",
                  "confirm which text is in force", "no rule is encoded from it"):
        assert words in text, words


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_the_letter_names_the_text_encoded(jurisdiction):
    doc = result_to_dict(_doc(jurisdiction))
    letter = compose_letter(doc, LetterHeader(title=load_pack(jurisdiction).title))
    assert any(n.startswith("Text encoded:") and load_pack(jurisdiction).source_file in n for n in letter.notes)


def test_the_report_header_names_the_text_encoded():
    from stormwater_plugin.report.model import build_report_model

    result = _doc("lgpc")
    site = {"disturbance": layer("disturbance", [box(0, 0, 50, 50)], ["D1"])}
    model = build_report_model(result, site, 1.0, doc=result_to_dict(result), report_date="2026-12-06")
    text = model["header"]["text_encoded"]
    assert "as supplied" in text and "100 ft" in text and not text.startswith("Text encoded")
