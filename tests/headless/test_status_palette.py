"""Issue 23: one source for the status colours (services.presentation) — the map, the report's tables and maps, the letter."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from stormwater_plugin.services.presentation import DECIDED_COLOUR, STATUS_AND_DECISION_COLOURS, STATUS_COLOURS

PKG = Path(__file__).resolve().parents[2] / "stormwater_plugin"


def test_the_pdf_report_tables_and_maps_colour_each_status_as_the_qgis_map_does():
    pytest.importorskip("reportlab")
    pytest.importorskip("matplotlib")
    from stormwater_plugin.report import maps, pdf

    assert pdf.STATUS_HEX == maps.STATUS_COLOURS == STATUS_AND_DECISION_COLOURS
    assert pdf.STATUS_HEX["advisory"] == STATUS_COLOURS["advisory"]  # orange, no longer blue in the PDF
    assert pdf.STATUS_HEX["undetermined"] == STATUS_COLOURS["undetermined"]  # purple, no longer orange in the PDF
    assert pdf.STATUS_HEX["accepted"] == pdf.STATUS_HEX["waived"] == DECIDED_COLOUR


def test_the_word_letter_colours_each_status_as_the_qgis_map_does():
    pytest.importorskip("docx")
    from stormwater_plugin.report import letter_docx

    assert {s: f"#{c}".lower() for s, c in letter_docx._STATUS_RGB.items()} == {s: STATUS_COLOURS[s] for s in letter_docx._STATUS_RGB}


def test_no_module_but_presentation_holds_a_status_colour_table():
    """A dict literal keyed by a status with ``#rrggbb`` values is a second palette."""
    stray = []
    for path in PKG.rglob("*.py"):
        if path.name == "presentation.py" and path.parent.name == "services":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                hexes = [v for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value.startswith("#")]
                if keys & {"violation", "undetermined", "advisory"} and hexes:
                    stray.append(f"{path.relative_to(PKG)}:{node.lineno}")
    assert not stray, stray


def test_the_report_map_caption_names_the_colours_the_map_draws():
    from stormwater_plugin.report.model import _site_map_caption
    from stormwater_plugin.services.presentation import STATUS_COLOUR_NAMES

    caption = _site_map_caption()
    for status, name in STATUS_COLOUR_NAMES.items():
        assert f"{name} {status}" in caption
    assert "blue advisory" not in caption and "amber undetermined" not in caption
