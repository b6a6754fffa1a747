"""Golden outputs guard every restructuring: the same inputs give the same findings, report, notification list, letter and layers.

A deliberate change of behaviour regenerates them (``scripts/update_golden.py``) in the same commit, whose message
says what changed and why.
"""

from __future__ import annotations

import pytest

from .outputs import CASES, EXPECTED, Case, produce, same_text

FILES = ("findings.json", "stdout.txt", "report.txt", "notification.csv", "letter.txt", "findings_gpkg.txt")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_outputs_equal_the_golden_outputs(case: Case, tmp_path) -> None:
    why = case.available()
    if why:
        pytest.skip(why)
    got = produce(case, tmp_path)
    problems = []
    for name in FILES:
        expected = (EXPECTED / case.name / name).read_text(encoding="utf-8")
        diff = same_text(expected, got[name])
        if diff:
            problems.append(f"{case.name}/{name}: {diff}")
    assert not problems, "outputs differ from tests/golden/expected (run scripts/update_golden.py for a deliberate change):\n" + "\n".join(
        problems
    )


def test_numbers_are_compared_within_their_last_printed_digit() -> None:
    assert same_text("d = 22.0 ft", "d = 22.0 ft") is None
    assert same_text("d = 22.04 ft", "d = 22.05 ft") is None
    assert same_text("d = 22.0 ft", "d = 22.2 ft") is not None
    assert same_text('"m": 19.123456789012', '"m": 19.123456789013') is None
    assert same_text('"m": 19.1234', '"m": 19.2234') is not None
    assert same_text("violation 22.0", "pass 22.0") is not None
    assert same_text("a\nb", "a") is not None
