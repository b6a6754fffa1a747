"""The number reader of the coverage test: digits, decimals, fractions and number words."""

from __future__ import annotations

import pytest

from stormwater_plugin.core.textnumbers import extract_numbers, normalize_text, number_values


def _read(text: str) -> list[tuple[str, float]]:
    return [(t.text, t.value) for t in extract_numbers(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("within twenty (20) feet of the", [("twenty (20)", 20.0)]),
        ("a minimum of one hundred (100) feet", [("one hundred (100)", 100.0)]),
        ("within five hundred feet of the mean", [("five hundred", 500.0)]),
        ("a slope of fifteen percent (15%) or greater", [("fifteen percent (15%)", 15.0)]),
        ("a minimum of seventy-five percent (75%) of", [("seventy-five percent (75%)", 75.0)]),
        ("for more than twenty-four (24) hours", [("twenty-four (24)", 24.0)]),
        ("a ten-year-frequency/twenty-four-hour-duration storm", [("ten", 10.0), ("twenty-four", 24.0)]),
        ("less than 15,000 square feet", [("15,000", 15000.0)]),
        ("a flat rate of 1.5 gallons", [("1.5", 1.5)]),
        ("at a point 4.5 feet above the ground.", [("4.5", 4.5)]),
        ("the first 1/2 inch of precipitation", [("1/2", 0.5)]),
        ("the first one-half inch of precipitation", [("one-half", 0.5)]),
        ("a one-half-acre parcel", [("one-half", 0.5)]),
        ("runoff for the10-year storm", [("10", 10.0)]),
        ("during the period October 15 to April 15.", [("15", 15.0), ("15", 15.0)]),
        ("a two-lot, three-lot or four-lot subdivision", [("two", 2.0), ("three", 3.0), ("four", 4.0)]),
        ("survival for one (1) year is achieved", [("one (1)", 1.0)]),
        ("less than one acre", [("one", 1.0)]),
        ("no more than one single-family residential structure", [("one", 1.0)]),
        ("one inch equals 40 feet", [("one", 1.0), ("40", 40.0)]),
        ("a one-year inspection", [("one", 1.0)]),
    ],
)
def test_numbers_are_read_in_digits_and_words(text, expected):
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "if inadvertently felled into one of these water bodies",
        "One or a series of stormwater management practices",
        "not more than five acres shall be disturbed at any one time",  # five is read, one is not
        "the first growing season",
        "Part IV, Inspection and Maintenance Requirements",
        "often, tone, someone, weight",
    ],
)
def test_one_as_a_pronoun_ordinals_and_roman_numerals_are_not_numbers(text):
    assert number_values(text) <= {5.0}


def test_spans_point_at_the_words_in_the_text():
    text = normalize_text("Infiltration devices shall not be installed up gradient within twenty (20)\n   feet")
    (tok,) = extract_numbers(text)
    assert text[tok.start : tok.end] == "twenty (20)" and tok.value == 20.0


def test_a_bracketed_number_that_differs_from_the_words_is_read_separately():
    assert _read("five (6) acres") == [("five", 5.0), ("6", 6.0)]
