"""Issue 23: ``stormwater-check check`` reads its arguments and files, calls one use case, writes.

The command's review is :func:`stormwater_plugin.services.site_source.check_site`
over the file adapter (``FileSiteSource``), called once; what it returns is what
findings.json holds.
"""

from __future__ import annotations

import json

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.headless.site_source import FileSiteSource
from stormwater_plugin.services import site_source
from stormwater_plugin.services.packs import load_pack
from stormwater_plugin.services.site_source import ReviewOptions, check_site
from tests.headless.demo_dem import DEMO_DEM, DEMO_SITE


def test_the_check_command_is_one_call_of_the_use_case_over_the_file_source(tmp_path, monkeypatch):
    calls = []
    real = site_source.check_site

    def watched(source, pack, options=None):
        calls.append((source, options))
        return real(source, pack, options)

    monkeypatch.setattr(site_source, "check_site", watched)
    out = tmp_path / "out"
    code = main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lgpc", "--accuracy", "septic=10", "--out", str(out), "--quiet"])
    assert code in (0, 1) and len(calls) == 1
    source, options = calls[0]
    assert isinstance(source, FileSiteSource) and source.package == DEMO_SITE
    assert options.completeness and list(options.accuracy) == ["septic=10"]
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    assert "completeness" in doc


def test_the_use_case_gives_the_command_s_document(tmp_path):
    out = tmp_path / "out"
    main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--class", "major", "--out", str(out), "--quiet"])
    pack = load_pack("lake-george")
    done = check_site(FileSiteSource(DEMO_SITE, dem_path=DEMO_DEM, dem_notes=True), pack, ReviewOptions(project_class="major", completeness=True))
    by_cli = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    by_use_case = json.loads(json.dumps(done.review.doc))
    assert by_use_case == by_cli


def test_the_class_is_the_use_case_s_option_stated_over_any_source_and_kept_beside_the_computed_one():
    """``--class`` is ``ReviewOptions.project_class``: the source reads layers only, the use case states the class on them."""
    pack = load_pack("lgpc")
    computed = check_site(FileSiteSource(DEMO_SITE, dem_path=DEMO_DEM), pack, ReviewOptions(moves=False)).review.doc
    stated = check_site(FileSiteSource(DEMO_SITE, dem_path=DEMO_DEM), pack, ReviewOptions(project_class="major", moves=False)).review.doc
    assert computed["class_source"] != "override" and computed["project_class"] == "minor"
    assert (stated["project_class"], stated["class_source"]) == ("major", "override")
    assert stated["computed_class"] == computed["project_class"]


def test_a_class_that_is_not_a_project_class_is_refused_before_any_reading():
    with pytest.raises(site_source.ProjectClassError, match="exempt, minor, major"):
        ReviewOptions(project_class="medium")
