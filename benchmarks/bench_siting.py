"""The siting aid on real-sized sites (issue 15), against the bare cost of importing the libraries.

The floor is ``python -c "import geopandas, rasterio, shapely, pyproj"``,
measured in the same run. Rows (each a fresh process through the command line;
wall time, the median of ``--repeat`` runs round-robin, and the process's peak
resident memory):

- ``check`` with move suggestions on a 40-acre parcel, noisy 1 m DEM (σ 0.3 m),
  LGPC major, three devices breaking a setback: target ≤ 3× the floor and
  < 500 MB;
- ``envelope`` (dry well) on the same site, slope zones included: target ≤ 5 s
  and < 500 MB;
- the fragmentation hunt: the tiny minor LGPC project of issue 15 (one device
  90 ft from a wetland, 400 m parcel, 1 % planar 1 m DEM of 440 × 440 cells
  covering part of it) at ``--origins`` random origins, one ``check`` each:
  target none above 3× the floor (the worst and the median are printed).

Usage::

    python benchmarks/bench_siting.py [--repeat 3] [--origins 100] [--seed 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from make_siting_site import write_noisy_site, write_tiny_site  # noqa: E402

CHECK_TARGET = 3.0
ENVELOPE_TARGET_S = 5.0
MEMORY_TARGET_MB = 500.0


def run(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak resident MB and exit code of one child process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({code}): {err.strip()[:400]}")
    return dt, usage.ru_maxrss / 1024.0, code


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--origins", type=int, default=100)
    p.add_argument("--seed", type=int, default=15)
    a = p.parse_args(argv)
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="bench_siting_"))
    site, dem = write_noisy_site(work / "noisy40", acres=40.0, sigma_m=0.3, seed=0)
    floor_cmd = [py, "-c", "import geopandas, rasterio, shapely, pyproj"]
    check_cmd = [py, "-m", "stormwater_plugin", "check", str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "major", "--quiet", "--out", str(work / "o_check")]
    env_cmd = [py, "-m", "stormwater_plugin", "envelope", str(site), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "major", "--device-type", "dry_well", "--out", str(work / "o_env")]
    commands = {"floor": floor_cmd, "check + moves, 40 acres, noisy": check_cmd, "envelope, same site": env_cmd}
    for cmd in commands.values():  # warm caches
        run(cmd)
    times: dict[str, list[float]] = {k: [] for k in commands}
    peaks: dict[str, float] = {k: 0.0 for k in commands}
    for _ in range(a.repeat):
        for name, cmd in commands.items():
            dt, mb, _code = run(cmd)
            times[name].append(dt)
            peaks[name] = max(peaks[name], mb)
    floor = statistics.median(times["floor"])
    print(f"median of {a.repeat} runs each, {py}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'floor: import geopandas, rasterio, shapely, pyproj':<52} {floor:6.3f} s  peak {peaks['floor']:5.0f} MB")
    name = "check + moves, 40 acres, noisy"
    med = statistics.median(times[name])
    ok = med / floor <= CHECK_TARGET and peaks[name] < MEMORY_TARGET_MB
    print(f"{name:<52} {med:6.3f} s  peak {peaks[name]:5.0f} MB -> {med / floor:.2f} x floor ({'met' if ok else 'MISSED'}: <= {CHECK_TARGET:g}x, < {MEMORY_TARGET_MB:g} MB)")
    name = "envelope, same site"
    med = statistics.median(times[name])
    ok = med <= ENVELOPE_TARGET_S and peaks[name] < MEMORY_TARGET_MB
    print(f"{name:<52} {med:6.3f} s  peak {peaks[name]:5.0f} MB -> {med / floor:.2f} x floor ({'met' if ok else 'MISSED'}: <= {ENVELOPE_TARGET_S:g} s, < {MEMORY_TARGET_MB:g} MB)")

    # The fragmentation hunt: the tiny project at random origins (UTM-sized coordinates).
    import numpy as np

    rng = np.random.default_rng(a.seed)
    ratios: list[tuple[float, float, float, float]] = []
    for k in range(a.origins):
        x0 = float(rng.uniform(200_000.0, 800_000.0))
        y0 = float(rng.uniform(4_000_000.0, 5_000_000.0))
        tiny, tdem = write_tiny_site(work / f"tiny{k}", x0, y0)
        f0, _, _ = run(floor_cmd)
        dt, mb, _ = run([py, "-m", "stormwater_plugin", "check", str(tiny), "--dem", str(tdem), "--jurisdiction", "lgpc", "--class", "minor", "--quiet", "--out", str(work / f"o_tiny{k}")])
        ratios.append((dt / f0, dt, mb, x0 + y0 * 0))
    worst = max(ratios)
    over = sum(1 for r in ratios if r[0] > CHECK_TARGET)
    print(
        f"tiny project at {a.origins} random origins (seed {a.seed}): median {statistics.median(r[0] for r in ratios):.2f} x floor, "
        f"worst {worst[0]:.2f} x ({worst[1]:.2f} s, {worst[2]:.0f} MB); above {CHECK_TARGET:g}x: {over} ({'met' if over == 0 else 'MISSED'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
