"""Never a silent pass, never a false alarm, without elevations: a check missing its DEM (none given, or given and not read)
decides nothing the DEM would decide.

Over every pack and both project classes on the demo: each finding the DEM-backed check gives is also given without
the DEM, and where its status differs it is *undetermined* (never a pass or a violation the elevations would have
changed); a DEM given but not read is never called "not supplied".
"""

from __future__ import annotations

import pytest

from stormwater_plugin.headless.site_source import FileSiteSource
from stormwater_plugin.services import dem_read
from stormwater_plugin.services.packs import load_pack
from stormwater_plugin.services.site_source import ReviewOptions, check_site
from tests.headless.demo_dem import DEMO_DEM, DEMO_SITE


def _findings(source: FileSiteSource, jurisdiction: str, project_class: str) -> dict[str, dict]:
    doc = check_site(source, load_pack(jurisdiction), ReviewOptions(project_class=project_class, moves=False)).review.doc
    return {f["key"]: f for f in doc["findings"]}


@pytest.mark.parametrize("project_class", ["minor", "major"])
@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george", "mamakating"])
@pytest.mark.parametrize("missing", ["no DEM given", "DEM over the read limit"])
def test_a_check_without_elevations_leaves_undetermined_what_they_would_decide(jurisdiction, project_class, missing, monkeypatch):
    if not DEMO_SITE.is_file() or not DEMO_DEM.is_file():
        pytest.skip("resources/demo is not built (scripts/make_demo_site.py)")
    with_dem = _findings(FileSiteSource(DEMO_SITE, dem_path=DEMO_DEM), jurisdiction, project_class)
    if missing == "no DEM given":
        without = _findings(FileSiteSource(DEMO_SITE), jurisdiction, project_class)
    else:
        monkeypatch.setattr(dem_read, "MAX_PIXELS", 1_000)
        without = _findings(FileSiteSource(DEMO_SITE, dem_path=DEMO_DEM), jurisdiction, project_class)
    assert set(with_dem) == set(without), "a finding appears or disappears with the DEM"
    decided = {k: (with_dem[k]["status"], f["status"]) for k, f in without.items() if f["status"] not in (with_dem[k]["status"], "undetermined")}
    assert not decided, f"decided without elevations (with DEM, without): {decided}"
    if jurisdiction == "mamakating":  # its one elevation rule: the demo's traced paths leave the DEM, undetermined either way, in other words
        assert any(with_dem[k]["message"] != f["message"] for k, f in without.items() if "upstream-of-wetland" in k)
    else:
        assert any(with_dem[k]["status"] != f["status"] for k, f in without.items()), "the DEM decides something on the demo"
    if missing != "no DEM given":
        assert not any("no dem was supplied" in f["message"].lower() for f in without.values())
