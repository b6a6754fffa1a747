"""Golden outputs guard every restructuring: the same inputs give the same findings, report, notification list, letter and layers.

A deliberate change of behaviour regenerates them (``scripts/update_golden.py``) in the same commit, whose message
says what changed and why.
"""

from __future__ import annotations

import pytest

from .outputs import CASES, EXPECTED, Case, canonical_wkt, platform, produce, recorded_platform, same_text

FILES = ("findings.json", "stdout.txt", "report.txt", "notification.csv", "letter.txt", "findings_gpkg.txt")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_outputs_equal_the_golden_outputs(case: Case, tmp_path) -> None:
    why = case.available()
    if why:
        pytest.skip(why)
    got = produce(case, tmp_path)
    exact = platform() == recorded_platform()  # geometry to the digit only where the outputs were recorded (CI's Debian 12)
    problems = []
    for name in FILES:
        expected = (EXPECTED / case.name / name).read_text(encoding="utf-8")
        diff = same_text(expected, got[name], geometry=exact)
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
    moved = ('"g": "POLYGON ((0 0, 10 0, 10 10, 0 0))"', '"g": "POLYGON ((0 0, 20 0, 10 10, 0 0))"')
    assert same_text(*moved) is not None and same_text(*moved, geometry=False) is None
    assert same_text('{"s": "pass"} GEOMETRY POINT (1 2)', '{"s": "violation"} GEOMETRY POINT (1 2)', geometry=False) is not None


def test_one_geometry_has_one_spelling_whatever_the_geos_release() -> None:
    assert canonical_wkt("POLYGON ((1 0, 1 1, 0 0, 1 0))") == canonical_wkt("POLYGON ((0 0, 1 0, 1 1, 0 0))")
    assert canonical_wkt("MULTIPOINT ((1 2), (3 4))") == canonical_wkt("MULTIPOINT (3 4, 1 2)")
    assert "((" not in canonical_wkt("MULTIPOINT ((1 2), (3 4))")
