"""Write the golden outputs (tests/golden/expected) from the code as it is: run after a deliberate change of behaviour.

Usage: python scripts/update_golden.py [CASE ...]   (default: every case whose data is here)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import json  # noqa: E402

from tests.golden.outputs import CASES, EXPECTED, platform, produce  # noqa: E402


def main(names: list[str]) -> int:
    for case in CASES:
        if names and case.name not in names:
            continue
        why = case.available()
        if why:
            print(f"{case.name}: skipped ({why})")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            texts = produce(case, Path(tmp))
        folder = EXPECTED / case.name
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            (folder / name).write_text(text, encoding="utf-8")
        print(f"{case.name}: {len(texts)} files in {folder}")
    # where geometry is compared to the digit (elsewhere by type only): record on the reference platform, Debian 12
    (EXPECTED / "platform.json").write_text(json.dumps(platform(), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
