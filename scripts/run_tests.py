"""``make test``: the QGIS-free tests in one process, then each QGIS test file in a QGIS process of its own.

Why one process per QGIS file: QGIS runs its own Python tests so (one ctest per file), and a QGIS test process that
lives through every file's tasks, layers and projects carries one file's leftovers into the next. On Debian 13
(QGIS 3.40, PROJ 9.6) a process that had run a dozen files of dock and front-end tests lost its PROJ database: every
transformation created afterwards came back invalid (QGIS passes coordinates through unchanged); on Debian 12 a task
thread of the dock did the same after the file reader (pyproj, rasterio; never loaded by the plugin) had run in the
process. Each time every file passed in a process of its own. The plugin now refuses such a transformation
(``qgis_bridge.crs.checked_transform``, ``thread_can_transform``: the read stops and says so, whatever the session), and
the files keep their own processes so one file's leftovers never decide another's result.

Usage: ``python scripts/run_tests.py [pytest options...]`` (the options are given to every pytest run, e.g. ``-x`` or
``-k live``). Exit status 0 when every run passed (a file whose tests were all deselected counts as passed).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QGIS_TESTS = ROOT / "tests" / "qgis"
#: pytest's exit status when no test was collected (every test of a file deselected by ``-k``).
NO_TESTS_COLLECTED = 5
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


def _run(args: list[str], label: str) -> tuple[int, Counter[str], str]:
    """One pytest process; its exit status, its counts and its last line (its summary)."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "pytest_qgis", *args], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    last = lines[-1] if lines else "(no output)"
    counts: Counter[str] = Counter()
    for n, kind in _COUNT.findall(last):
        counts["errors" if kind.startswith("error") else kind] += int(n)
    if proc.returncode not in (0, NO_TESTS_COLLECTED):
        print(proc.stdout, end="")
    print(f"{label}: {last.strip('= ')}", flush=True)
    return proc.returncode, counts, last


def main(argv: list[str]) -> int:
    started = time.monotonic()
    total: Counter[str] = Counter()
    failed: list[str] = []
    runs = [(["--ignore", str(QGIS_TESTS), *argv], "tests outside tests/qgis")]
    runs += [([str(path.relative_to(ROOT)), *argv], str(path.relative_to(ROOT))) for path in sorted(QGIS_TESTS.glob("test_*.py"))]
    for args, label in runs:
        code, counts, _ = _run(args, label)
        total += counts
        if code not in (0, NO_TESTS_COLLECTED):
            failed.append(label)
            if "-x" in argv or "--exitfirst" in argv:
                break
    summary = ", ".join(f"{total[k]} {k}" for k in ("passed", "failed", "errors", "skipped", "xfailed", "xpassed", "deselected") if total[k])
    print(f"\n{summary} in {time.monotonic() - started:.0f} s, {len(runs)} processes")
    if failed:
        print("failed: " + " ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
