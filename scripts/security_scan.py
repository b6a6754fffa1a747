#!/usr/bin/env python3
"""The two scans plugins.qgis.org runs on every upload, with the findings the project reviewed and accepted.

1. Bandit over the package, configured in ``pyproject.toml`` (``[tool.bandit]``), against
   ``bandit-baseline.json``: every accepted finding is listed there with its justification;
   anything else fails.
2. detect-secrets over the files git tracks, against ``.secrets.baseline``: a finding is
   accepted when the baseline lists its file, type and hashed secret with ``"is_secret": false``
   and a ``justification`` (line numbers are not compared, so edits around it do not fail the
   scan). The two baselines are not scanned: they quote what they accept.

Usage::

    python scripts/security_scan.py            # exit 0: no finding beyond the baselines

Exit status 1 names each new finding; 2 when a scanner is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BANDIT_BASELINE = ROOT / "bandit-baseline.json"
SECRETS_BASELINE = ROOT / ".secrets.baseline"


def run_bandit() -> int:
    """Bandit's exit status: 0 when every finding is in the baseline."""
    cmd = [sys.executable, "-m", "bandit", "-q", "-c", "pyproject.toml", "-r", "stormwater_plugin", "-b", str(BANDIT_BASELINE.name)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr)
        print(f"bandit: findings not in {BANDIT_BASELINE.name} (fix them, or add each with its justification)")
    return proc.returncode


def _key(result: dict[str, object]) -> tuple[str, str, str]:
    return (str(result["filename"]), str(result["type"]), str(result["hashed_secret"]))


def new_secrets(found: dict[str, list[dict[str, object]]], baseline: dict[str, list[dict[str, object]]]) -> list[str]:
    """Findings of a ``detect-secrets scan`` that the baseline does not accept, as ``file:line: type`` strings.

    Parameters
    ----------
    found, baseline : dict
        The ``results`` of a scan and of the baseline (file name to its findings).
    """
    accepted = {
        _key(r) for results in baseline.values() for r in results if r.get("is_secret") is False and str(r.get("justification", "")).strip()
    }
    return [f"{r['filename']}:{r['line_number']}: {r['type']}" for results in found.values() for r in results if _key(r) not in accepted]


def run_detect_secrets() -> int:
    """0 when every finding of detect-secrets is accepted by the baseline."""
    cmd = [sys.executable, "-m", "detect_secrets", "scan", "--exclude-files", r"^(bandit-baseline\.json|\.secrets\.baseline)$"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr)
        return proc.returncode
    found = json.loads(proc.stdout)["results"]
    baseline = json.loads(SECRETS_BASELINE.read_text(encoding="utf-8"))["results"]
    new = new_secrets(found, baseline)
    for line in new:
        print(f"detect-secrets: {line}")
    if new:
        print(f"detect-secrets: findings not in {SECRETS_BASELINE.name} (remove the secret, or add the finding with \"is_secret\": false and a justification)")
    return 1 if new else 0


def main() -> int:
    missing = [m for m in ("bandit", "detect_secrets") if importlib.util.find_spec(m) is None]
    if missing:
        print(f"security_scan: {', '.join(missing)} not installed (pip install -r requirements-dev.txt)")
        return 2
    status = run_bandit()
    status = run_detect_secrets() or status
    print("security scan: bandit and detect-secrets clean (beyond the reviewed baselines)" if status == 0 else "security scan: FAILED")
    return status


if __name__ == "__main__":
    sys.exit(main())
