"""The one text-sanitising function (core.printable, issue 35 item 5): what every output passes text through."""

from __future__ import annotations

import pytest

from stormwater_plugin.core.printable import printable_changed, printable_text


@pytest.mark.parametrize("raw, one_line, lines", [
    ("Hartwell\x00 Family Trust", "Hartwell Family Trust", "Hartwell Family Trust"),
    ("Smith\x0bJones", "Smith Jones", "Smith\nJones"),  # Word's line break
    ("\x1b[31mEVIL\x1b[0m Corp", "EVIL Corp", "EVIL Corp"),
    ("\x1b]0;pwned\x07Title", "Title", "Title"),
    ("a\tb", "a b", "a\tb"),
    ("x\ud800y\ufffe", "xy", "xy"),
    ("one\r\ntwo\u2028three", "one two three", "one\ntwo\nthree"),
    ("Puits-É1 — Lac", "Puits-É1 — Lac", "Puits-É1 — Lac"),
    ("\x85\x9b\x7f", " ", "\n"),
])
def test_control_characters_are_replaced_or_removed_and_plain_text_is_kept(raw, one_line, lines):
    assert printable_text(raw) == one_line
    assert printable_text(raw, multiline=True) == lines
    assert printable_changed(raw) == (raw != one_line)


def test_none_is_empty_and_other_values_are_their_text():
    assert printable_text(None) == "" and printable_text(12.5) == "12.5" and not printable_changed(None)
