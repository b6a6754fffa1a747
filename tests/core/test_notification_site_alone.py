"""Neighbour notification when the parcels layer holds the site alone (issue 36): no neighbour is known, never "notify 0 owners"."""

from __future__ import annotations

import pytest
from shapely.geometry import box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, run

SITE = {"is_site": 1, "owner": "o", "mailing_address": "a"}
NEIGHBOUR = {"owner": "n", "mailing_address": "b"}


def _notification(parcels):
    r = run("lgpc", {"parcels": parcels}, project_class="minor")
    return [f for f in r.findings if f.rule_id == "lgpc.notification"]


@pytest.mark.parametrize("site_lots", [1, 2])
def test_a_parcels_layer_of_the_site_alone_leaves_the_notice_list_undetermined(site_lots):
    lots = [box(100 * k, 0, 100 * (k + 1), 100) for k in range(site_lots)]
    (f,) = _notification(layer("parcels", lots, [f"S{k}" for k in range(site_lots)], [SITE] * site_lots))
    assert f.status is Status.UNDETERMINED and "only the site parcel" in f.message


def test_one_neighbour_parcel_beside_the_site_is_listed_as_before():
    parcels = layer("parcels", [box(0, 0, 100, 100), box(100, 0, 200, 100)], ["S", "N"], [SITE, NEIGHBOUR])
    (f,) = [f for f in _notification(parcels) if f.status is Status.ADVISORY]
    assert "Notify 1 owner(s)" in f.message
