"""The optional compiled sweep and certification of the slope map (numba): the numpy path's numbers, never needed.

The compiled sweep does the numpy sweep's float32 operations in the same
order (no fused multiply-add, NaN propagated as ``numpy.maximum`` does), and
the compiled certification the numpy certification's float32 and float64
operations (only correctly rounded ones: no sin, cos or hypot, whose numpy
and C-library versions differ in the last bits), so the maps, the certified
mask and the certification's values are compared for exact equality, not
within a tolerance. Tests that
need numba are skipped where it cannot be imported; the others check that
the map works without it and that nothing but an explicit request imports it.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from stormwater_plugin.core.terrain import (
    ground_to_pixel_geographic,
    ground_to_pixel_projected,
    ring_kernel_numba,
    ring_slope_map,
    ring_stencil,
)
from stormwater_plugin.core.terrain.checks import steep_edge
from stormwater_plugin.core.terrain.ring_stencil import build_stencil, sweep_plan
from stormwater_plugin.core.terrain.slope_map import _sweep, _Work

ROOT = Path(__file__).resolve().parents[2]


def _numba_reason() -> str:
    if ring_kernel_numba.disabled():
        return f"{ring_kernel_numba.DISABLE_ENV}=1"
    return "numba cannot be imported here (optional: pip install .[fast])"


needs_numba = pytest.mark.skipif(ring_kernel_numba.kernel() is None, reason=_numba_reason())


def _dem(seed: int, n_r: int, n_c: int, noise_m: float, holes: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:n_r, 0:n_c].astype(np.float64)
    z = 250.0 + 0.07 * x - 0.03 * y + 6.0 * np.sin(x / 17.0) * np.cos(y / 23.0) + rng.normal(0.0, noise_m, (n_r, n_c))
    z[rng.integers(0, n_r, holes), rng.integers(0, n_c, holes)] = np.nan
    return z.astype(np.float32)


CASES = [
    # (seed, shape, noise m, nodata pixels, geotransform, unit ft, threshold %)
    (1, (150, 170), 0.1, 0, (0.0, 1.0, 0.0, 0.0, 0.0, -1.0), 1 / 0.3048, 15.0),
    (2, (140, 160), 0.3, 2, (0.0, 1.0, 0.0, 0.0, 0.0, -1.0), 1 / 0.3048, steep_edge(15.0, "gte")),  # where the maps certify 15 %
    (3, (120, 130), 0.05, 0, (0.0, 1.3, 0.4, 0.0, 0.3, -0.9), 1 / 0.3048, 10.0),  # rotated, non-square pixels
    (4, (120, 130), 0.2, 1, (0.0, 3.0, 0.0, 0.0, 0.0, -3.0), 1.0, None),  # feet, no certification
]


@needs_numba
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c[0]}")
def test_compiled_and_numpy_sweeps_give_identical_maps_on_random_dems(case):
    seed, shape, noise, holes, gt, unit_ft, thr = case
    z = _dem(seed, *shape, noise, holes)
    jac = ground_to_pixel_projected(gt, unit_ft)
    kw = {"z_to_ft": 1 / 0.3048, "threshold_pct": thr}
    s_np: dict = {}
    s_nb: dict = {}
    a = ring_slope_map(z, jac, 100.0, stats=s_np, **kw)
    b = ring_slope_map(z, jac, 100.0, stats=s_nb, compiled=True, **kw)
    assert np.isfinite(a).sum() > 0.1 * a.size
    assert np.array_equal(a, b, equal_nan=True)
    assert s_np == s_nb


@needs_numba
def test_compiled_sweep_identical_on_a_dem_in_degrees_with_row_range_and_small_blocks():
    z = _dem(5, 160, 140, 0.1, 1)
    gt = (-73.5, 1 / 10800, 0.0, 42.4, 0.0, -1 / 10800)  # 1/3 arc-second
    jac = ground_to_pixel_geographic(gt, z.shape[0], 6378137.0, 298.257223563)
    kw = {"z_to_ft": 1 / 0.3048, "threshold_pct": 15.0, "row_range": (30, 131), "block_rows": 9}
    a = ring_slope_map(z, jac, 100.0, **kw)
    b = ring_slope_map(z, jac, 100.0, compiled=True, workers=2, **kw)
    assert np.array_equal(a, b, equal_nan=True)


@needs_numba
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_sweep_equals_numpy_sweep_bit_for_bit_on_raw_arrays_with_nan_anywhere(seed):
    """The sweep itself, before any nodata masking: NaN in any input spoils exactly the cells it spoils in numpy."""
    rng = np.random.default_rng(seed)
    width = 97
    st = build_stencil(np.array([[1.1, 0.2], [-0.1, -0.9]]), 12.0, width)
    plan = sweep_plan(st)
    size = width * 80
    arrays = []
    for _ in range(4):
        a = rng.normal(0.0, 50.0, size).astype(np.float32)
        a[rng.random(size) < 0.0005] = np.nan
        arrays.append(a)
    setup = SimpleNamespace(flat=arrays[0], dv=arrays[1], dh=arrays[2], dt=arrays[3])
    p0, n = width * 25, width * 30
    ref = _sweep(setup, p0, n, plan, _Work(n, 2 * width)).copy()  # type: ignore[arg-type]
    got = ring_kernel_numba.sweep(ring_kernel_numba.kernel(), *arrays, p0, n, ring_kernel_numba.PlanArrays(plan), np.empty(n, np.float32))
    assert np.isnan(ref).any() and np.isfinite(ref).any()
    assert np.array_equal(ref.view(np.uint32)[np.isfinite(ref)], got.view(np.uint32)[np.isfinite(ref)])
    assert np.array_equal(np.isnan(ref), np.isnan(got))


def _band_cells(z: np.ndarray, jac: np.ndarray, thr_pct: float, grab: list) -> None:
    """Run the numpy map and keep the arguments of every certification call (the cells of the band)."""
    from stormwater_plugin.core.terrain import slope_map

    orig = slope_map.certify

    def keep(*args):  # type: ignore[no-untyped-def]
        grab.append(args)
        return orig(*args)

    slope_map.certify = keep
    try:
        ring_slope_map(z, jac, 100.0, z_to_ft=1 / 0.3048, threshold_pct=thr_pct, workers=1)
    finally:
        slope_map.certify = orig


@needs_numba
@pytest.mark.parametrize("rounds", [40, 6, 2])
@pytest.mark.parametrize("seed", [11, 12])
def test_compiled_certification_equals_numpys_value_and_verdict_bit_for_bit(seed, rounds, monkeypatch):
    """Thousands of band cells of a noisy DEM (0.3 m), sheared pixels, thresholds at the map's median slope.

    Few bisection rounds (6, 2) leave many cells undecided (called steep, conservative): the verdicts still agree.
    """
    monkeypatch.setattr(ring_stencil, "CERT_ROUNDS", rounds)
    z = _dem(seed, 230, 250, 0.3, 0)
    jac = ground_to_pixel_projected((0.0, 1.1, 0.15, 0.0, 0.1, -0.95), 1 / 0.3048)
    thr = float(np.nanmedian(ring_slope_map(z, jac, 100.0, z_to_ft=1 / 0.3048)))
    calls: list = []
    _band_cells(z, jac, thr, calls)
    cert = ring_kernel_numba.certifier()
    n = steep_n = undecided = 0
    for st, flat, base, zc, lb, t, lip, twist in calls:
        v_np, s_np = ring_stencil.certify(st, flat, base, zc, lb, t, lip, twist)
        tiles = np.full(len(base), float(np.nanmax(np.abs(twist))))  # a bound of every square's |twist|
        v_nb, s_nb = cert.certify(cert.StencilArrays(st), flat, base, zc, lb, t, lip, twist, tiles)
        assert np.array_equal(v_np.view(np.uint64), v_nb.view(np.uint64))
        assert np.array_equal(s_np, s_nb)
        n += len(base)
        steep_n += int(s_np.sum())
        undecided += int((s_np & (v_np < t)).sum())
    assert n > 1500 and 0 < steep_n < n
    if rounds == 2:
        assert undecided > 0  # the conservative branch was exercised


@needs_numba
def test_compiled_map_certified_mask_equals_numpys_on_a_large_noisy_dem():
    """The whole map at 15 % on 0.3 m noise (thousands of certified cells, some conservative): identical, bit for bit."""
    z = _dem(13, 260, 300, 0.3, 3)
    jac = ground_to_pixel_projected((0.0, 1.0, 0.0, 0.0, 0.0, -1.0), 1 / 0.3048)
    z *= np.float32(15.0 / np.nanmedian(ring_slope_map(z, jac, 100.0, z_to_ft=1 / 0.3048)))  # half the cells steeper than 15 %
    s_np: dict = {}
    s_nb: dict = {}
    edge = steep_edge(15.0, "gte")  # the maps certify "15% or more" at its rounding edge, 14.95%
    a = ring_slope_map(z, jac, 100.0, z_to_ft=1 / 0.3048, threshold_pct=edge, stats=s_np)
    b = ring_slope_map(z, jac, 100.0, z_to_ft=1 / 0.3048, threshold_pct=edge, stats=s_nb, compiled=True, workers=2)
    assert s_np == s_nb and s_np["certified"] > 1000
    assert np.array_equal(a, b, equal_nan=True)
    assert np.array_equal(a >= edge, b >= edge)


def test_no_numba_env_gives_the_numpy_sweep(monkeypatch):
    monkeypatch.setenv(ring_kernel_numba.DISABLE_ENV, "1")
    assert ring_kernel_numba.kernel() is None
    assert ring_kernel_numba.describe().startswith("numpy")
    z = _dem(6, 80, 90, 0.1, 0)
    jac = ground_to_pixel_projected((0.0, 1.0, 0.0, 0.0, 0.0, -1.0), 1 / 0.3048)
    assert np.array_equal(ring_slope_map(z, jac, 50.0, compiled=True), ring_slope_map(z, jac, 50.0), equal_nan=True)


def _child(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=300)
    return out.stdout.strip()


MAP = (
    "import numpy as np; from stormwater_plugin.core.terrain import ground_to_pixel_projected, ring_slope_map;"
    "z = np.add.outer(np.arange(60.0), np.arange(70.0)).astype(np.float32) * 0.1;"
    "j = ground_to_pixel_projected((0.0, 1.0, 0.0, 0.0, 0.0, -1.0), 1.0);"
)


def test_the_map_by_default_never_imports_numba():
    """What the plugin calls (no ``compiled``): numba is not imported, installed or not."""
    code = MAP + ("m = ring_slope_map(z, j, 10.0, threshold_pct=15.0); import sys;"
                  "print('numba' in sys.modules, 'stormwater_plugin.core.terrain.ring_certify_numba' in sys.modules)")
    assert _child(code) == "False False"


def test_where_numba_is_absent_a_compiled_request_runs_the_numpy_sweep():
    code = (
        "import sys; sys.modules['numba'] = None;"  # import numba now raises ImportError, as where it is not installed
        + MAP
        + "from stormwater_plugin.core.terrain import ring_kernel_numba as k;"
        "a = ring_slope_map(z, j, 10.0, threshold_pct=15.0, compiled=True); b = ring_slope_map(z, j, 10.0, threshold_pct=15.0);"
        "print(k.kernel() is None, k.certifier() is None, np.array_equal(a, b, equal_nan=True), round(float(np.nanmax(a)), 2))"
    )
    assert _child(code) == f"True True True {round(100 * math.hypot(0.1, 0.1), 2)}"


def test_the_plugin_front_ends_never_ask_for_the_compiled_sweep():
    """Only the command line opts in: the Processing algorithm and the dock call the map without ``compiled``."""
    pkg = ROOT / "stormwater_plugin"
    users = sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*.py") if "compiled=" in p.read_text(encoding="utf-8") or "ring_kernel_numba" in p.read_text(encoding="utf-8"))
    # the service passes the front end's choice through (default off); only the command line makes it
    assert users == ["core/terrain/ring_certify_numba.py", "core/terrain/ring_kernel_numba.py", "core/terrain/slope_map.py", "headless/slope_map_cli.py",
                     "services/slope_map.py"]
    # the compiled certification (which imports numba at its top) is loaded by ring_kernel_numba.certifier only
    importers = sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*.py") if "import ring_certify_numba" in p.read_text(encoding="utf-8"))
    assert importers == ["core/terrain/ring_kernel_numba.py"]


@needs_numba
def test_slope_map_cli_with_the_compiled_sweep_writes_the_numpy_sweeps_file(tmp_path, monkeypatch, capsys):
    """The command line's choice (``COMPILED_MIN_CELLS`` lowered so that a small DEM takes it) changes no value."""
    rasterio = pytest.importorskip("rasterio")
    from rasterio.transform import from_origin

    from stormwater_plugin.headless import slope_map_cli

    dem = tmp_path / "dem.tif"
    z = _dem(7, 130, 140, 0.1, 1)
    with rasterio.open(dem, "w", driver="GTiff", width=140, height=130, count=1, dtype="float32", crs="EPSG:32618",
                       transform=from_origin(600000, 4800000, 1, 1), nodata=-9999) as dst:
        dst.write(np.nan_to_num(z, nan=-9999.0), 1)
    maps = []
    for name, env in (("numpy", "1"), ("compiled", "0")):
        monkeypatch.setenv(ring_kernel_numba.DISABLE_ENV, env)
        monkeypatch.setattr(slope_map_cli, "COMPILED_MIN_CELLS", 0)
        out = tmp_path / f"{name}.tif"
        assert slope_map_cli.main([str(dem), "--out", str(out), "--dem-z-units", "m"]) == 0
        assert f"sweep: {'numpy' if name == 'numpy' else 'compiled'}" in capsys.readouterr().err
        with rasterio.open(out) as src:
            maps.append(src.read(1))
    assert (maps[0] != -9999).sum() > 1000
    assert np.array_equal(maps[0], maps[1])
