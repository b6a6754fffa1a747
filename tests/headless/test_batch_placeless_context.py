"""A context feature the read could not place is in every site's check of a batch, as in a single-site check (never silent).

A well with no geometry, or one the reader set aside as lying far off its
drawing (``no_geometry``), makes each rule reading the wells undetermined for
it in a single-site check; a batch that cut the town into partitions used to
drop it from every site, so the screening said nothing of it.
"""

from __future__ import annotations

import json

from shapely.geometry import Point, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services.batch_plan import plan_batch
from stormwater_plugin.services.batch_run import check_sites, site_inputs
from stormwater_plugin.services.site_source import ReviewOptions
from tests.sitebuilder import layer


def _town() -> dict[str, FeatureLayer]:
    lots = [box(0, 0, 200, 200), box(2000, 0, 2200, 200)]
    return {
        "parcels": layer("parcels", lots, ["A", "B"], [{"is_site": 1}, {"is_site": 1}]),
        "devices": layer("devices", [Point(100, 100), Point(2100, 100)], ["DA", "DB"], [{"device_type": "dry_well", "high_traffic": 0}] * 2),
        # W1 is placed near A; W2 has no geometry; W3 was set aside by the read (a stray far off its drawing)
        "wells": FeatureLayer.from_sequences("wells", [Point(150, 260), None], ["W1", "W2"], [{}, {}],
                                             no_geometry={"W3": "lies 90 miles from the site: check its CRS"}),
    }


def test_every_site_of_a_batch_holds_the_wells_without_a_place():
    pack = load_pack("lgpc")
    plan = plan_batch(_town(), None, pack, 1.0, options=ReviewOptions(project_class="minor", moves=False))
    for part in plan.partitions:
        for site in part.sites:
            wells = site_inputs(part, site, None).layers["wells"]
            assert "W2" in wells.ids and wells.no_geometry == {"W3": "lies 90 miles from the site: check its CRS"}
    outcomes = [o for part in plan.partitions for o in check_sites(part)]
    assert {o.site_id for o in outcomes} == {"A", "B"} and not any(o.error for o in outcomes)
    for o in outcomes:
        about = {(f["subject"] or {}).get("id"): f["status"] for f in json.loads(o.document)["findings"] if (f["subject"] or {}).get("layer") == "wells"}
        assert about.get("W2") == "undetermined" and about.get("W3") == "undetermined", o.site_id


def test_the_batch_states_the_options_accuracy_on_every_site_as_the_single_site_check_does():
    from stormwater_plugin.services.site_source import ReadSite, SiteRead, check_site

    pack = load_pack("lgpc")
    options = ReviewOptions(accuracy=("wells=5",), project_class="minor", moves=False)
    plan = plan_batch(_town(), None, pack, 1.0, options=options)
    for part in plan.partitions:
        assert part.pack is pack and part.options == options
        for site, outcome in zip(part.sites, check_sites(part)):
            doc = json.loads(outcome.document)
            assert doc["accuracy"]["roles"] == {"wells": 5.0}
            alone = check_site(ReadSite(SiteRead(site_inputs(part, site, None), "")), pack, options).review.doc
            assert json.loads(json.dumps(alone["findings"])) == doc["findings"]
