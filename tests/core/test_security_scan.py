"""The security scan's baseline (scripts/security_scan.py): a reviewed finding passes wherever its line moves; others fail."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("security_scan", ROOT / "scripts" / "security_scan.py")
assert _spec and _spec.loader
security_scan = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(security_scan)


def _finding(line: int, secret: str = "abc") -> dict[str, object]:
    return {"type": "GitHub Token", "filename": "tests/x.py", "hashed_secret": secret, "is_verified": False, "line_number": line}


def test_a_justified_finding_passes_after_its_line_moves():
    baseline = {"tests/x.py": [{**_finding(44), "is_secret": False, "justification": "a test name, not a token"}]}
    assert security_scan.new_secrets({"tests/x.py": [_finding(51)]}, baseline) == []


def test_an_unjustified_or_unknown_finding_fails():
    unjustified = {"tests/x.py": [{**_finding(44), "is_secret": False}]}
    assert security_scan.new_secrets({"tests/x.py": [_finding(44)]}, unjustified) == ["tests/x.py:44: GitHub Token"]
    accepted = {"tests/x.py": [{**_finding(44), "is_secret": False, "justification": "why"}]}
    assert security_scan.new_secrets({"tests/x.py": [_finding(44, "other")]}, accepted) == ["tests/x.py:44: GitHub Token"]


def test_every_accepted_finding_is_justified():
    secrets = json.loads((ROOT / ".secrets.baseline").read_text(encoding="utf-8"))["results"]
    assert all(r.get("is_secret") is False and r.get("justification") for rs in secrets.values() for r in rs)
    bandit = json.loads((ROOT / "bandit-baseline.json").read_text(encoding="utf-8"))["results"]
    assert bandit and all(str(r.get("justification", "")).strip() for r in bandit)
