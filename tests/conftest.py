"""Shared fixtures: where the real public data lives, and QGIS-friendly environment."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REALDATA = ROOT.parent / "shared" / "realdata"
REGULATIONS = ROOT.parent / "shared" / "regulations"

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture
def realdata() -> Path:
    """The folder of real public layers; tests using it skip when it is absent."""
    if not REALDATA.is_dir():
        pytest.skip(f"real data folder {REALDATA} is absent (it ships beside the repo as ../shared/realdata)")
    return REALDATA


@pytest.fixture
def regulations() -> Path:
    if not REGULATIONS.is_dir():
        pytest.skip(f"regulation texts {REGULATIONS} are absent (they ship beside the repo as ../shared/regulations)")
    return REGULATIONS


@pytest.fixture
def drawn_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read every drawing as the feature's edge: no plausible extents (``packs/device_plausibility.json``, ``extents``).

    For tests about a rule's distance between drawn edges (its boundary, its gradient reading), which place devices,
    wells and streams as points and lines for brevity. What points and lines plausibly stand for is tested on its own
    (tests/core/test_extents*.py).
    """
    from stormwater_plugin.core import extents

    monkeypatch.setattr(extents, "extent_table", lambda: extents.ExtentTable({}, (), "none"))
