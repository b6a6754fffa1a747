"""Numbers written in a regulation's text: digits, decimals, fractions and number words.

The coverage test reads every number of the three texts with :func:`extract_numbers`
and asks that each one has a row in the coverage table (a checked rule, a reviewer
row or an out-of-scope entry) or sits in the commented exclusion list. The same
reader checks that a rule's excerpt holds the rule's own numbers.

What counts as a number
-----------------------
- **Digits**: ``15,000``, ``1.5``, ``4.5``, ``100`` (also glued to a word, as the LGPC
  text's ``the10-year``); thousands separators are read, a trailing full stop is not a
  decimal point.
- **Fractions**: ``1/2`` is 0.5.
- **Number words**: ``two`` to ``ninety-nine``, with ``hundred`` and ``thousand``
  (``five hundred``, ``twenty-four``, ``seventy-five``), and the halves ``one-half``
  (0.5) and ``one-half-acre``. A word followed by its digits in brackets, as the
  texts write ``twenty (20)`` or ``fifteen percent (15%)``, is **one** number.
- **"one"** is a number only where it measures something: before a unit of length,
  area, time or count (``one acre``, ``one inch``, ``one (1) year``, ``one-year``), after a
  comparison (``no more than one``, ``at least one``, ``up to one``), in a compound
  (``one hundred``, ``twenty-one``, ``one-half``). Elsewhere ("one of these
  water bodies", "one or a series", "any one time") it is a pronoun or article and is
  not read.
- **Not numbers**: ordinals (``first``, ``second``), Roman numerals (``Part IV``),
  "single", "half" on its own, and letters of subsections. Section numbers, years,
  dates and other digits that are not rules *are* read, and the coverage test's
  exclusion list says why each one is not a rule.

Values are plain floats: the unit is read by the caller from the surrounding words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NumberToken", "extract_numbers", "normalize_text", "number_values"]

_UNITS: dict[str, int] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS: dict[str, int] = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
#: Nouns after which a bare "one" measures something (singular forms; plurals follow).
ONE_UNITS: tuple[str, ...] = (
    "acre",
    "inch",
    "foot",
    "feet",
    "year",
    "day",
    "hour",
    "week",
    "month",
    "minute",
    "percent",
    "square",
    "lot",
    "gallon",
    "mile",
)

_UNIT_ALT = "|".join(sorted(_UNITS, key=len, reverse=True))
_TENS_ALT = "|".join(sorted(_TENS, key=len, reverse=True))
_SMALL = rf"(?:(?:{_TENS_ALT})(?:[- ](?:{_UNIT_ALT}))?|(?:{_UNIT_ALT}))"
_WORD_NUMBER = re.compile(
    rf"\b(?P<w>{_SMALL}(?:[- ]hundred(?:[- ](?:and[- ])?{_SMALL})?)?(?:[- ]thousand)?)(?P<half>-half)?\b",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"(?<![\d.,/])(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<f>\d+))?(?:/(?P<d>\d+))?(?![\d])")
_BRACKETED = re.compile(r"\s*(?:percent\s*)?\(\s*(?P<n>\d+(?:\.\d+)?)\s*%?\s*\)")
_BEFORE_ONE = re.compile(r"(?:\bthan|\bleast|\bminimum of|\bmaximum of|\bup to)\s+$", re.IGNORECASE)
_AFTER_ONE = re.compile(rf"(?:[- ](?:{'|'.join(ONE_UNITS)})s?\b|\s*\(\s*1\s*\)|[- ]half\b)", re.IGNORECASE)


@dataclass(frozen=True)
class NumberToken:
    """One number read from a text.

    Attributes
    ----------
    value : float
        The number (unitless; ``1/2`` and ``one-half`` are 0.5).
    start, end : int
        Character span in the text passed to :func:`extract_numbers`.
    text : str
        The words as written (``twenty (20)``, ``15,000``).
    """

    value: float
    start: int
    end: int
    text: str


def normalize_text(text: str) -> str:
    """Collapse every run of white space to one space (the form excerpts are matched in)."""
    return re.sub(r"\s+", " ", text).strip()


def _word_value(words: str) -> int:
    total = 0
    current = 0
    for w in re.split(r"[- ]", words.lower()):
        if not w or w == "and":
            continue
        if w in _UNITS:
            current += _UNITS[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w == "thousand":
            total += max(current, 1) * 1000
            current = 0
    return total + current


def _word_tokens(text: str) -> list[NumberToken]:
    out: list[NumberToken] = []
    for m in _WORD_NUMBER.finditer(text):
        words = m.group("w")
        value: float = float(_word_value(words))
        end = m.end()
        if m.group("half"):
            # "one-half" is 0.5; "two-half" does not occur in the texts but would read 2 x 0.5.
            value = value * 0.5
        elif words.lower() == "one" and not _AFTER_ONE.match(text, end) and not _BEFORE_ONE.search(text[max(0, m.start() - 16) : m.start()]):
            continue  # a pronoun or article: "one of these", "one or a series"
        br = _BRACKETED.match(text, end)
        if br is not None and float(br.group("n")) == value:
            end = br.end()
        out.append(NumberToken(value, m.start(), end, text[m.start() : end]))
    return out


def extract_numbers(text: str) -> list[NumberToken]:
    """Every number in ``text``, in order of position.

    Parameters
    ----------
    text : str
        Any text; spans refer to it as given (normalise first with
        :func:`normalize_text` to match excerpts).

    Returns
    -------
    list of NumberToken
        Digits, fractions and number words; a word with its bracketed digits is one token.
    """
    words = _word_tokens(text)
    taken = [(t.start, t.end) for t in words]
    tokens = list(words)
    for m in _DIGITS.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue  # the "(20)" of "twenty (20)"
        whole = float(m.group("n").replace(",", ""))
        if m.group("f") is not None:
            whole = float(f"{m.group('n').replace(',', '')}.{m.group('f')}")
        if m.group("d") is not None:
            den = float(m.group("d"))
            if den == 0:
                continue
            whole = whole / den
        tokens.append(NumberToken(whole, m.start(), m.end(), m.group(0)))
    return sorted(tokens, key=lambda t: (t.start, t.end))


def number_values(text: str) -> set[float]:
    """The set of values of :func:`extract_numbers` (for "does this excerpt hold 35?")."""
    return {t.value for t in extract_numbers(text)}
