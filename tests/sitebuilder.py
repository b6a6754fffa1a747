"""Build small synthetic sites for tests, in a feet working CRS unless told otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np
from shapely.geometry import Point, box
from shapely.geometry.base import BaseGeometry

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import CheckResult, FeatureLayer, SiteInputs
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack


def plane_dem(x0: float, y0: float, size: float, cell: float, gx: float, gy: float, z0: float = 400.0) -> ElevationGrid:
    """A tilted plane z = z0 + gx*x + gy*y (feet), on a grid of ``cell`` ft pixels from (x0, y0) upward."""
    n = int(round(size / cell))
    cols = x0 + (np.arange(n) + 0.5) * cell
    rows = y0 + size - (np.arange(n) + 0.5) * cell
    xx, yy = np.meshgrid(cols, rows)
    return ElevationGrid(z0 + gx * xx + gy * yy, (x0, cell, 0.0, y0 + size, 0.0, -cell), z_to_ft=1.0)


def layer(role: str, geoms: list[BaseGeometry], ids: list[str] | None = None, attrs: list[dict[str, Any]] | None = None) -> FeatureLayer:
    return FeatureLayer.from_sequences(role, geoms, ids or [f"{role[:3].upper()}{i + 1}" for i in range(len(geoms))], attrs)


def device(x: float, y: float, **attrs: Any) -> tuple[BaseGeometry, dict[str, Any]]:
    a = {"device_type": "dry_well", "high_traffic": 0}
    a.update(attrs)
    return Point(x, y), a


def run(
    jurisdiction: str,
    layers: dict[str, FeatureLayer],
    dem: ElevationGrid | None = None,
    project_class: str | None = "minor",
    unit_to_ft: float = 1.0,
) -> CheckResult:
    return run_check(SiteInputs(layers=layers, dem=dem, unit_to_ft=unit_to_ft, class_override=project_class), load_pack(jurisdiction))


def septic_square(x: float = 0.0, y: float = 0.0, half: float = 10.0) -> BaseGeometry:
    return box(x - half, y - half, x + half, y + half)


def findings_for(result: CheckResult, rule_id: str) -> list:
    return [f for f in result.findings if f.rule_id == rule_id]


def pairs_for(result: CheckResult, rule_id: str) -> list:
    """Findings of a rule that measure a device against a feature (not 'layer absent' notes)."""
    return [f for f in result.findings if f.rule_id == rule_id and f.other is not None]
