"""Optional compiled sweep and certification of the ring slope map (numba), for the command line.

The numpy sweep (:func:`~stormwater_plugin.core.terrain.slope_map._sweep`)
computes each ring sample for a whole block of cells as a shifted slice of
the padded raster: every sample is a pass over memory. This kernel does the
same arithmetic cell chunk by cell chunk (a chunk's running maximum and
minimum stay in the processor's first-level cache) and gives the **same
float32 values**: every sample is computed with the same operations in the
same order, each rounded to float32 (``flat + dv·f``; inside an arc
``(dt·v + dh)·u + (dv·v + flat)``), there is no fused multiply-add (numba
compiles without ``fastmath``, so LLVM contracts nothing), and the running
maximum and minimum propagate NaN as ``numpy.maximum`` / ``numpy.minimum``
do. Maximum and minimum are exact operations, so their order does not
matter: the result is bit-for-bit the numpy sweep's (tested).

The certification (step 3 of the map) is compiled too, in
:mod:`~stormwater_plugin.core.terrain.ring_certify_numba` (loaded by
:func:`certifier`, only here), with the numpy certification's values.

Used only when asked for (``ring_slope_map(..., compiled=True)``, which the
``slope-map`` command line does), when ``import numba`` succeeds and when
the environment variable ``STORMWATER_NO_NUMBA`` is not ``1``. The plugin
never asks, so inside QGIS numba is never imported. Compiled code is cached
on disk (numba's ``cache=True``: ``__pycache__`` beside this file, else
numba's user cache directory, or ``NUMBA_CACHE_DIR`` when set).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from .ring_stencil import SweepPlan

#: Environment variable: ``1`` disables the compiled sweep (the numpy path runs).
DISABLE_ENV: str = "STORMWATER_NO_NUMBA"

#: Cells per chunk of the compiled sweep (its running maximum and minimum: 2 × 4 KB here).
CHUNK_CELLS: int = 1024

_LOCK = threading.Lock()
_KERNEL: list[Any] = []  # [] not tried; [None] unavailable; [function] compiled
_CERT: list[Any] = []  # the same for the compiled certification (a module)


def disabled() -> bool:
    """True when ``STORMWATER_NO_NUMBA=1`` is set."""
    return os.environ.get(DISABLE_ENV, "").strip() == "1"


def _build() -> Callable[..., None] | None:
    try:
        import numba
    except Exception:  # absent, or broken against this numpy: the numpy path runs
        return None

    @numba.njit(nogil=True, cache=True)
    def sweep(
        flat: np.ndarray,
        dv: np.ndarray,
        dh: np.ndarray,
        dt: np.ndarray,
        p0: int,
        n: int,
        cs_off: np.ndarray,
        cs_f: np.ndarray,
        rs_off: np.ndarray,
        rs_f: np.ndarray,
        ms_off: np.ndarray,
        ms_v: np.ndarray,
        ms_u: np.ndarray,
        chunk: int,
        out: np.ndarray,
    ) -> None:  # pragma: no cover - compiled; its equality with the numpy sweep is tested
        hi = np.empty(chunk, dtype=np.float32)
        lo = np.empty(chunk, dtype=np.float32)
        tw = np.empty(chunk, dtype=np.float32)
        for q0 in range(0, n, chunk):
            m = min(chunk, n - q0)
            b = p0 + q0
            for i in range(m):
                hi[i] = flat[b + i]
                lo[i] = flat[b + i]
            for k in range(cs_off.shape[0]):  # breakpoints on a column line: P + f·Dv
                f = cs_f[k]
                s = b + cs_off[k]
                zz = flat[s : s + m]
                dd = dv[s : s + m]
                for i in range(m):
                    x = dd[i] * f + zz[i]
                    h = hi[i]
                    hi[i] = x if (x > h or x != x) else h
                    lw = lo[i]
                    lo[i] = x if (x < lw or x != x) else lw
            for k in range(rs_off.shape[0]):  # breakpoints on a row line: P + f·Dh
                f = rs_f[k]
                s = b + rs_off[k]
                zz = flat[s : s + m]
                dd = dh[s : s + m]
                for i in range(m):
                    x = dd[i] * f + zz[i]
                    h = hi[i]
                    hi[i] = x if (x > h or x != x) else h
                    lw = lo[i]
                    lo[i] = x if (x < lw or x != x) else lw
            for k in range(ms_off.shape[0]):  # inside an arc: (Dt·v + Dh)·u + (Dv·v + P)
                v = ms_v[k]
                u = ms_u[k]
                s = b + ms_off[k]
                zz = flat[s : s + m]
                d1 = dv[s : s + m]
                d2 = dh[s : s + m]
                d3 = dt[s : s + m]
                for i in range(m):  # a separate loop: few enough arrays for LLVM to vectorise both
                    tw[i] = d3[i] * v + d2[i]
                for i in range(m):
                    x = tw[i] * u + (d1[i] * v + zz[i])
                    h = hi[i]
                    hi[i] = x if (x > h or x != x) else h
                    lw = lo[i]
                    lo[i] = x if (x < lw or x != x) else lw
            for i in range(m):
                z = flat[b + i]
                a = hi[i] - z
                c = z - lo[i]
                out[q0 + i] = a if (a > c or a != a) else c

    return sweep  # type: ignore[no-any-return]


def kernel() -> Callable[..., None] | None:
    """The compiled sweep, or ``None`` (numba absent or unusable, or disabled by :data:`DISABLE_ENV`)."""
    if disabled():
        return None
    with _LOCK:
        if not _KERNEL:
            _KERNEL.append(_build())
        return _KERNEL[0]  # type: ignore[no-any-return]


def certifier() -> Any:
    """The compiled certification (module ``ring_certify_numba``, its ``certify`` and ``StencilArrays``), or ``None``.

    ``None`` wherever :func:`kernel` is ``None`` (numba absent or disabled): only the compiled path imports it.
    """
    if kernel() is None:
        return None
    with _LOCK:
        if not _CERT:
            try:
                # lazy: that module imports numba at its top, so it is loaded only here, once numba is known to import
                from . import ring_certify_numba
            except Exception:  # numba present but unusable for it: the numpy certification runs
                _CERT.append(None)
            else:
                _CERT.append(ring_certify_numba)
        return _CERT[0]


def describe() -> str:
    """Which sweep runs, for the command line's messages."""
    if disabled():
        return f"numpy ({DISABLE_ENV}=1)"
    if kernel() is None:
        return "numpy (numba not available)"
    import numba

    return f"compiled (numba {numba.__version__})"


def available() -> bool:
    """True when the compiled sweep can run here (numba importable and not disabled)."""
    return kernel() is not None


class PlanArrays:
    """A :class:`SweepPlan` as one flat offset (relative to the cell) and fractions per sample, for the compiled sweep."""

    def __init__(self, plan: SweepPlan) -> None:
        i64, f32 = np.int64, np.float32
        self.cs_off = np.array([o + c for o, _, m in plan.col_groups for c in m], dtype=i64)
        self.cs_f = np.array([f for _, f, m in plan.col_groups for _ in m], dtype=f32)
        self.rs_off = np.array([o for o, _ in plan.row_bps], dtype=i64)
        self.rs_f = np.array([f for _, f in plan.row_bps], dtype=f32)
        self.ms_off = np.array([o + c for o, _, m in plan.mid_groups for c, _ in m], dtype=i64)
        self.ms_v = np.array([v for _, v, m in plan.mid_groups for _ in m], dtype=f32)
        self.ms_u = np.array([u for _, _, m in plan.mid_groups for _, u in m], dtype=f32)


def sweep(
    fn: Callable[..., None], flat: np.ndarray, dv: np.ndarray, dh: np.ndarray, dt: np.ndarray, p0: int, n: int, pa: PlanArrays, out: np.ndarray
) -> np.ndarray:
    """Largest ``|difference|`` (float32, the unit of ``flat``) between cells ``p0 … p0 + n`` and their ring's samples.

    ``out`` (float32, at least ``n`` long) receives the result; its first ``n`` entries are returned.
    """
    res = out[:n]
    fn(flat, dv, dh, dt, int(p0), int(n), pa.cs_off, pa.cs_f, pa.rs_off, pa.rs_f, pa.ms_off, pa.ms_v, pa.ms_u, CHUNK_CELLS, res)
    return res
