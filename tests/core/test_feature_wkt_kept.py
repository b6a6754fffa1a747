"""The WKT of the features a run's findings name (``core.engine._feature_wkt``), each layer's part and its index of its ids
kept by the layer's content (and the ids named) in the live re-check (#39): a change of each input gives the WKT a run made
afresh gives."""

from __future__ import annotations

import numpy as np
from shapely.geometry import Point, box

from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.engine import _feature_wkt
from stormwater_plugin.core.model import Citation, FeatureLayer, FeatureRef, Finding, Status


def _layer(role: str, geoms: list, ids: list[str]) -> FeatureLayer:
    return FeatureLayer(role, np.asarray(geoms, dtype=object), list(ids), [{} for _ in ids], {})


def _refs(findings: list[Finding]) -> list[FeatureRef]:
    return [r for f in findings for r in (f.subject, f.other) if r is not None]


def _finding(subject: str, other: str | None) -> Finding:
    return Finding("r", "device_setback", Citation("x", "", "", ""), Status.PASS, FeatureRef("devices", subject),
                   FeatureRef("wells", other) if other is not None else None, 10.0, 5.0, "m")


def test_the_wkt_of_the_features_named_follows_a_change_of_each_layer_and_of_the_findings():
    wells = _layer("wells", [Point(100, 0), Point(200, 0)], ["W1", "W2"])
    devices = _layer("devices", [Point(0, 0), box(10, 10, 12, 12)], ["DW-1", "DW-2"])
    cases = [
        ("same", {"devices": devices, "wells": wells}, [_finding("DW-1", "W1")]),
        ("a device moved", {"devices": _layer("devices", [Point(1, 0), box(10, 10, 12, 12)], ["DW-1", "DW-2"]), "wells": wells}, [_finding("DW-1", "W1")]),
        ("the wells' ids swapped", {"devices": devices, "wells": _layer("wells", [Point(100, 0), Point(200, 0)], ["W2", "W1"])}, [_finding("DW-1", "W1")]),
        ("a well removed", {"devices": devices, "wells": _layer("wells", [Point(200, 0)], ["W2"])}, [_finding("DW-2", "W1")]),
        ("an id shared: the last", {"devices": _layer("devices", [Point(0, 0), Point(5, 5)], ["DW-1", "DW-1"]), "wells": wells}, [_finding("DW-1", "W2")]),
        ("another finding", {"devices": devices, "wells": wells}, [_finding("DW-2", None)]),
    ]
    last = Derived()
    for name, layers, findings in cases:  # each check from the one before, as the live re-check runs
        last = Derived(last)
        with using(last):
            live = _feature_wkt(_refs(findings), layers)
        assert live == _feature_wkt(_refs(findings), layers), name  # no derived values in use: made afresh
