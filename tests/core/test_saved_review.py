"""A review kept with the project comes back whole (issue 16): findings, geometry, zones, classification."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.saved_review import load_review, save_review
from stormwater_plugin.core.serialize import result_to_dict
from tests.sitebuilder import device, layer, plane_dem, run, septic_square


def _result():
    g, a = device(25.0, 0.0)
    layers = {"septic": layer("septic", [septic_square()], ["S1"]), "devices": layer("devices", [g], ["D1"], [a])}
    return run("lgpc", layers, plane_dem(-200, -200, 400, 2.0, gx=0.05, gy=0.0))


def test_a_saved_review_restores_the_same_findings_document_and_geometry():
    result = _result()
    saved = json.loads(json.dumps(save_review(result, result_to_dict(result, crs_name="grid"))))
    back = load_review(saved)
    assert result_to_dict(back, crs_name="grid")["findings"] == result_to_dict(result, crs_name="grid")["findings"]
    for a, b in zip(result.findings, back.findings):
        assert (a.geometry is None) == (b.geometry is None)
        if a.geometry is not None:
            assert a.geometry.equals_exact(b.geometry, 1e-3)
    assert len(back.zones) == len([z for z in result.zones if z.geometry is not None and not z.geometry.is_empty])
    assert back.project_class == result.project_class and back.counts() == result.counts()
    assert [r.rule_id for r in back.classification_reasons] == [r.rule_id for r in result.classification_reasons]


def test_a_saved_review_of_another_version_is_refused():
    saved = save_review(_result(), result_to_dict(_result()))
    saved["saved_version"] = 0
    try:
        load_review(saved)
    except ValueError as exc:
        assert "version" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("an old saved review must not be restored")


def test_the_dock_keeps_the_reviews_own_document_decisions_included_and_leaves_it_unchanged():
    """issue 23: the stored review is the Review's document (decided once, by the review), not a second serialisation."""
    from stormwater_plugin.core.overrides import make_override
    from stormwater_plugin.services.review import review_of
    from stormwater_plugin.services.saved_review import save_review as save

    result = _result()
    key = next(f["key"] for f in review_of(result).doc["findings"] if f["status"] == "violation")
    review = review_of(result, crs_name="grid", overrides=[make_override(key, "waived", "variance", "J. Smith")])
    before = json.dumps(review.doc, sort_keys=True)
    saved = json.loads(json.dumps(save(review, extra={"working_crs_wkt": "X"})))
    assert json.dumps(review.doc, sort_keys=True) == before and "geometry_wkt" not in review.doc["findings"][0]
    row = next(f for f in saved["findings"] if f["key"] == key)
    assert row["effective_status"] == "waived" and row["override"]["reason"] == "variance"
    assert saved["override_counts"] == review.doc["override_counts"] and saved["working_crs_wkt"] == "X"
    back = load_review(saved)
    assert review_of(back, crs_name="grid", overrides=review.overrides).doc["findings"] == [
        {k: v for k, v in f.items() if k not in ("geometry_wkt", "source_version")} for f in saved["findings"]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)), min_size=1, max_size=6))
def test_the_wkt_kept_for_a_geometry_object_is_that_objects_wkt(points):
    """The saved form's WKT is kept per geometry object (the dock keeps the review after each live edit's moves): asked
    again, or for another object of the same coordinates, or after the store starts again, it is shapely's WKT of it."""
    import shapely
    from shapely.geometry import LineString, MultiPoint, Point

    from stormwater_plugin.core import saved_review

    made = [Point(points[0]), MultiPoint(points), LineString(points) if len(points) > 1 else Point(points[-1])]
    for g in made:
        want = shapely.to_wkt(g, rounding_precision=4, trim=True)
        assert saved_review._wkt(g) == want
        assert saved_review._wkt(g) == want  # kept
        assert saved_review._wkt(shapely.from_wkb(shapely.to_wkb(g))) == want  # another object
    saved_review._WKT.clear()
    assert saved_review._wkt(made[0]) == shapely.to_wkt(made[0], rounding_precision=4, trim=True)
    assert saved_review._wkt(None) is None and saved_review._wkt(Point()) is None
