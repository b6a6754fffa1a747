"""Issue 23: every error a user can cause is a StormwaterError (core/errors.py), keeping its old base; the CLI shows it as one line."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import shapely

from stormwater_plugin.core.accuracy import parse_role_accuracy
from stormwater_plugin.core.checks.device_design import override_prevailing_frost_depth
from stormwater_plugin.core.compare import compare_documents
from stormwater_plugin.core.dem_policy import decide_z_unit
from stormwater_plugin.core.dem_source import InMemoryDemSource
from stormwater_plugin.core.errors import StormwaterError
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.saved_review import load_review
from stormwater_plugin.core.site_parcel import named_site_parcels


def _grid_singular() -> object:
    return ElevationGrid(np.zeros((2, 2)), (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))


def _source_singular() -> object:
    grid = ElevationGrid(np.zeros((2, 2)), (0.0, 1.0, 0.0, 0.0, 0.0, -1.0))
    grid.geotransform = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return InMemoryDemSource(grid)


def _unknown_parcel() -> object:
    parcels = FeatureLayer("parcels", np.array([shapely.box(0, 0, 10, 10)], dtype=object), ["P-1"], [{}])
    return named_site_parcels(parcels, "P-9", {"parcels": parcels}, [])


USER_ERRORS: dict[str, tuple[Callable[[], object], type[Exception], str]] = {
    "unknown elevation unit (--dem-z-units)": (lambda: decide_z_unit("furlongs", None, 1.0), ValueError, "unknown elevation unit 'furlongs'"),
    "bad stated accuracy (--accuracy)": (lambda: parse_role_accuracy(["septik=10"]), ValueError, "septik=10"),
    "not a saved review (a project's saved findings)": (lambda: load_review({"saved_version": -1}), ValueError, "not a saved review"),
    "reviews of two jurisdictions (--previous, compare)": (lambda: compare_documents({"jurisdiction": "lgpc"}, {"jurisdiction": "lake-george"}),
                                                           ValueError, "different jurisdictions"),
    "singular DEM geotransform (grid)": (_grid_singular, ValueError, "singular"),
    "singular DEM geotransform (source)": (_source_singular, ValueError, "singular"),
    "frost depth not positive": (lambda: override_prevailing_frost_depth(load_pack("lgpc"), -2.0), ValueError, "positive number of feet"),
    "unknown --site-parcel": (_unknown_parcel, LookupError, "--site-parcel P-9"),
}


@pytest.mark.parametrize("name", sorted(USER_ERRORS))
def test_an_error_a_user_can_cause_is_a_stormwater_error_keeping_its_old_base(name: str) -> None:
    call, old_base, needle = USER_ERRORS[name]
    with pytest.raises(StormwaterError) as info:
        call()
    assert isinstance(info.value, old_base)  # existing ``except ValueError`` / ``except LookupError`` clauses still hold
    assert needle in str(info.value)


def test_the_cli_prints_one_line_and_exits_2_for_an_unknown_site_parcel(tmp_path, capsys) -> None:
    for module in ("pyproj", "geopandas", "rasterio"):  # the engine matrix runs tests/core with the core's dependencies only
        pytest.importorskip(module, reason=f"{module} is absent: the command line reads files (headless extra)")
    from stormwater_plugin.cli import main
    from tests.headless.sitefiles import write_site

    site = write_site(tmp_path, "EPSG:32618")
    assert main([str(site), "--jurisdiction", "lgpc", "--site-parcel", "999", "--out", str(tmp_path / "o"), "--quiet"]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--site-parcel 999" in lines[0], lines
