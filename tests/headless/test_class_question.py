"""An open class asks one question and groups the findings that depend on it (issue 33, item 2).

A 14,000 sq ft plan with an infiltration trench drawn as a point outside the disturbance (no plausible bound:
it must be drawn): the class is minor or major. The summary leads with the question; findings binding only
one class are grouped under "If the project is major" (or minor), with no prefix on their messages.
"""

from __future__ import annotations

from shapely.geometry import Point, box

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.headless.writer import finding_groups, summary_text
from tests.sitebuilder import layer, plane_dem


def _open_class_result():
    layers = {
        "disturbance": layer("disturbance", [box(0, 0, 140, 100)], ["D1"]),
        "septic": layer("septic", [box(-60, 0, -40, 20)], ["S1"]),
        "devices": layer("devices", [Point(200, 50)], ["IT1"], [{"device_type": "infiltration_trench", "high_traffic": 0}]),
    }
    return run_check(SiteInputs(layers=layers, dem=plane_dem(-300, -300, 700, 4.0, gx=0.05, gy=0.0), unit_to_ft=1.0), load_pack("lgpc"))


def test_an_open_class_leads_the_summary_with_one_question_646_4_12_a_1():
    result = _open_class_result()
    assert result.classification.classes == ("minor", "major")
    q = result.classification.question
    assert q.startswith("Is the project minor or major?") and "draw device IT1 as a polygon" in q and "--class" in q
    lines = summary_text(result).splitlines()
    assert lines[1] == f"QUESTION: {q}"


def test_class_dependent_findings_are_grouped_by_class_without_a_prefix_646_4_12_a_1():
    result = _open_class_result()
    groups = finding_groups(result.findings)
    assert groups[0][0] == ""
    titles = [t for t, _ in groups[1:]]
    assert titles and all(t.startswith("If the project is ") for t in titles)
    for _t, fs in groups[1:]:
        assert all(f.extra["binds_if_class"] and not f.message.startswith("If the project") for f in fs)
    assert not any(f.extra.get("binds_if_class") for f in groups[0][1])
    text = summary_text(result, limit=500)
    assert "IF THE PROJECT IS MAJOR (these rules bind only under that class):" in text


def test_the_report_has_one_section_per_class_and_the_question_in_its_classification():
    from stormwater_plugin.core.serialize import result_to_dict
    from stormwater_plugin.report.model import _class_groups, _rule_groups, review_document

    result = _open_class_result()
    doc = result_to_dict(result)
    assert doc["class_question"] == result.classification.question and doc["possible_classes"] == ["minor", "major"]
    findings = review_document(doc).findings
    groups = _class_groups(findings)
    assert [g["title"] for g in groups] == ["If the project is minor", "If the project is major"]  # least regulated first
    plain = _rule_groups([f for f in findings if not f.details.get("binds_if_class")])
    assert sum(len(g["findings"]) for g in plain) + sum(len(r["findings"]) for g in groups for r in g["rule_groups"]) == len(doc["findings"])
