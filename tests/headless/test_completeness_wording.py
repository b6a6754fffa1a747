"""Issue 36 item 6: the completeness list reads as English: correct plurals, and one line per thing missing."""

from __future__ import annotations

import pytest

from stormwater_plugin.services.completeness import check_completeness, plural
from stormwater_plugin.services.packs import JURISDICTIONS, load_pack


@pytest.mark.parametrize(("noun", "want"), [("water body", "water bodies"), ("septic system", "septic systems"), ("soil unit", "soil units"),
                                            ("clearing", "clearings"), ("day", "days"), ("box", "boxes")])
def test_plural(noun, want):
    assert plural(noun) == want


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_a_gap_several_items_require_is_one_line_naming_every_citation(jurisdiction):
    lines = check_completeness(load_pack(jurisdiction), {}, None, has_dem=False).missing
    texts = [line.rsplit(" (", 1)[0] for line in lines]
    assert len(texts) == len(set(texts)), lines  # never the same gap twice
    assert not any("bodys" in line for line in lines)
