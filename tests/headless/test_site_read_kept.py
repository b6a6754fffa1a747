"""What the read derives from a source's features, kept with them (services.site_read ``_kept``, issue 39).

A backend's frame may carry a ``memo`` (``qgis_bridge.vectors.QgisFrame``) that its copies holding the same features share:
the live re-check hands the next read an unedited layer's features with the memo of the read before. The read keeps there
the features' ids under the names the check reads, the plan source's box and located layer, the role's layer; each under
the rest of its inputs, so a value is reused only when every input is the same, and a frame the read changes (a stray
feature taken out) lets its memo go. The property: a read through kept values equals the read computing each anew.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import hypothesis.strategies as st
import shapely
import shapely.affinity
from hypothesis import given, settings
from shapely.geometry import Point, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services import site_read
from stormwater_plugin.services.backend import SourceInfo
from stormwater_plugin.services.placement import PlanOffParcel
from stormwater_plugin.services.site_read import _Piece, _role_layer, read_site

from .local_backend import LocalFrame, LocalLayers


class _Layers(LocalLayers):
    """Each role's one source in local feet; ``kept``: the frames of the read before, handed again (their own copies of the
    lists, the memo shared) for the roles named in ``same``, as the live read hands an unedited layer's."""

    whole_dem_unplaced = False

    def __init__(self, layers: dict[str, tuple[list[Any], list[dict[str, Any]]]], kept: dict[str, LocalFrame] | None = None,
                 memo: bool = True) -> None:
        self._layers, self.kept, self.memo = layers, dict(kept or {}), memo
        self.fetched: dict[str, LocalFrame] = {}

    def sources(self) -> dict[str, list[SourceInfo]]:
        return {role: [SourceInfo(role, f"{role}.shp", role, "local", "local feet", len(recs), list(recs[0]) if recs else [], None, True,
                                  handle=(geoms, recs))] for role, (geoms, recs) in self._layers.items()}

    def fetch(self, source: SourceInfo, b: Any = None) -> LocalFrame:
        held = self.kept.get(source.role)
        if held is None:
            geoms, recs = source.handle
            held = LocalFrame(list(geoms), [dict(r) for r in recs], list(source.columns), memo={} if self.memo else None)
        self.fetched[source.role] = held  # as fetched: the read works on its own copy (it may take a stray feature out)
        return dataclasses.replace(held, geoms=list(held.geoms), records=[dict(r) for r in held.records], columns=list(held.columns),
                                   unusable=dict(held.unusable))


def _content(layer: FeatureLayer) -> tuple[Any, ...]:
    wkb = shapely.to_wkb(layer.geoms, hex=False, include_srid=False).tolist() if len(layer) else []
    return (layer.role, list(layer.ids), wkb, [(list(a), [type(v) for v in a.values()], list(a.values())) for a in layer.attrs],
            dict(layer.no_geometry))


def _inputs_content(inputs: Any) -> tuple[Any, ...]:
    return ({r: _content(lay) for r, lay in inputs.layers.items()}, [dataclasses.astuple(w) for w in inputs.warnings])


PARCEL = box(0, 0, 100, 100)


def _site(dx: float = 0.0) -> dict[str, tuple[list[Any], list[dict[str, Any]]]]:
    return {"parcels": ([PARCEL, box(100, 0, 200, 100)], [{"id": "P-1", "PIN": 7}, {"id": "P-2", "PIN": 8.5}]),
            "devices": ([Point(10 + dx, 10), None], [{"id": "DW-1", "DEVICE_TYP": "dry_well"}, {"id": "DW-2", "DEVICE_TYP": "dry_well"}]),
            "wells": ([Point(60, 60)], [{"name": "Well A"}])}


def test_an_unedited_layer_read_again_is_the_same_layer_and_an_edited_ones_is_made_anew():
    first = _Layers(_site())
    before = read_site(first, None, None, None, None, []).inputs
    again = _Layers(_site(dx=5.0), kept={r: first.fetched[r] for r in ("parcels", "wells")})  # the devices edited: fetched anew
    after = read_site(again, None, None, None, None, []).inputs
    assert after.layers["parcels"] is before.layers["parcels"] and after.layers["wells"] is before.layers["wells"]
    # frozen (never changed in place): the check's derived values carry their content keys by identity (core.derived)
    assert all(layer.frozen for layer in after.layers.values())
    assert after.layers["devices"] is not before.layers["devices"]
    fresh = read_site(_Layers(_site(dx=5.0), memo=False), None, None, None, None, []).inputs
    assert _inputs_content(after) == _inputs_content(fresh)
    assert list(after.layers["devices"].geoms) == [Point(15, 10), None]  # a feature without geometry: the check lists it


def _piece(**source: Any) -> _Piece:
    geoms = [Point(1, 1), None, Point(3, 3)]
    recs = [{"id": "A", "DEVICE_TYP": "dry_well", "n": 1}, {"id": "B", "DEVICE_TYP": "x", "n": 2}, {"id": "", "DEVICE_TYP": "y", "n": 3.5}]
    s = SourceInfo(**{"role": "devices", "where": "d.shp", "name": "d", "crs": "local", "crs_name": "local feet", "count": 3,
                      "columns": list(recs[0]), **source})
    return _Piece(s, LocalFrame(geoms, recs, list(recs[0]), memo={}))


def _made(pc: _Piece, role: str = "devices", extra: frozenset[str] = frozenset()) -> tuple[tuple[Any, ...], list[Any]]:
    layer, warnings = _role_layer(_Layers({}), role, [pc], set(extra))
    return _content(layer), [dataclasses.astuple(w) for w in warnings]


def _changed_piece(base: _Piece, what: str) -> _Piece:
    """``base`` sharing its memo, one input of its role's layer changed."""
    pc = _Piece(base.source, dataclasses.replace(base.frame))  # the same features, the memo shared
    if what in ("where", "name", "crs_name", "count", "id_first"):
        pc.source = dataclasses.replace(base.source, **{what: {"where": "e.shp", "name": "e", "crs_name": "other feet", "count": 4,
                                                               "id_first": ("n",)}[what]})
    elif what == "misplaced":
        pc.misplaced = "lies 5 mi from the site"
    elif what == "filtered":
        pc.filtered = True
    elif what == "stray_beyond":
        pc.stray_beyond = True
    elif what == "unplaceable":
        pc.unplaceable = {"lies where its CRS cannot place it"}
    return pc


WHAT = ["where", "name", "crs_name", "count", "id_first", "misplaced", "filtered", "stray_beyond", "unplaceable", "role", "extra", "same"]


@settings(max_examples=len(WHAT) * 3, deadline=None)
@given(st.sampled_from(WHAT))
def test_a_kept_role_layer_is_made_anew_when_any_of_its_inputs_changes(what):
    """Each input of the kept role layer changed alone: the layer equals the one made without the memo; unchanged ("same"), the
    kept object itself."""
    base = _piece()
    kept_layer, _ = _role_layer(_Layers({}), "devices", [base], set())
    pc = _changed_piece(base, what)
    role = "wells" if what == "role" else "devices"
    extra = frozenset({"n"}) if what == "extra" else frozenset()
    got = _made(pc, role, extra)
    bare = _Piece(pc.source, dataclasses.replace(pc.frame, memo=None), misplaced=pc.misplaced, filtered=pc.filtered,
                  stray_beyond=pc.stray_beyond, unplaceable=set(pc.unplaceable))
    assert got == _made(bare, role, extra)
    again, _ = _role_layer(_Layers({}), role, [pc], set(extra))
    assert (again is kept_layer) == (what == "same")


def test_the_ids_under_the_checks_names_are_made_anew_for_another_role_extra_field_id_field_or_position():
    """Each input of the kept names and ids changed alone (the features the same, the memo shared): they equal those made
    without the memo."""
    base = _piece()
    records, columns, ids = site_read._named("devices", 0, base, set())
    assert "device_type" in columns and ids == ["A", "B", "3"]
    variants = [("devices", 0, {}, set(), ["A", "B", "3"]), ("devices", 0, {"id_first": ("n",)}, set(), ["1", "2", "3.5"]),
                ("devices", 1, {"id_prefix": "more"}, set(), ["A", "B", "more:3"]), ("wells", 0, {}, set(), ["A", "B", "3"]),
                ("devices", 0, {}, {"DEVICE_typ"}, ["A", "B", "3"])]
    for role, k, change, extra, want in variants:
        pc = _Piece(dataclasses.replace(base.source, **change), dataclasses.replace(base.frame))
        bare = _Piece(pc.source, dataclasses.replace(base.frame, memo=None))
        assert site_read._named(role, k, pc, extra) == site_read._named(role, k, bare, extra) and site_read._named(role, k, pc, extra)[2] == want
    assert site_read._named("wells", 0, _Piece(base.source, dataclasses.replace(base.frame)), set())[1] != columns  # a well's fields
    assert site_read._named("devices", 0, _Piece(base.source, dataclasses.replace(base.frame)), set())[0] is records  # kept


def test_a_frame_the_read_changes_lets_its_memo_go_and_its_copies_keep_theirs():
    """A stray plan feature is taken out of this read's copy: the values kept of the features as fetched stay for the next
    read's copy, and nothing this read derives of the changed features is kept."""
    pc = _piece()
    shared = pc.frame.memo
    site_read._named("devices", 0, pc, set())
    copy = dataclasses.replace(pc.frame, geoms=list(pc.frame.geoms))
    site_read._changing(copy)
    copy.geoms[0] = None
    assert copy.memo is None and pc.frame.memo is shared and len(shared) == 1
    changed = _Piece(pc.source, copy)
    layer, _ = _role_layer(_Layers({}), "devices", [changed], set())
    assert len(shared) == 1 and next(iter(shared))[0] == "named"  # computed of the changed features, never kept
    assert _content(layer) == _made(_Piece(pc.source, dataclasses.replace(copy, memo=None)))[0]


def _outcome(backend: _Layers, pack: Any, site: str | None = None) -> Any:
    try:
        return _inputs_content(read_site(backend, pack, site, None, None, []).inputs)
    except PlanOffParcel as e:  # a plan moved off its parcel: refused by both reads alike
        return str(e)


_EDIT = st.tuples(st.sampled_from(["devices", "wells", "parcels", "flag"]), st.integers(-3, 3), st.sampled_from([1.0, 3000.0]), st.booleans(),
                  st.sampled_from([None, "P-1", "P-2"]))


def _site_with_a_third_device() -> dict[str, tuple[list[Any], list[dict[str, Any]]]]:
    """:func:`_site` with a third dry well, DW-3, the one the property tests move (far: a stray plan feature)."""
    layers = _site()
    layers["devices"] = (layers["devices"][0] + [Point(50, 50)], layers["devices"][1] + [{"id": "DW-3", "DEVICE_TYP": "dry_well"}])
    return layers


def _last_moved(geoms: list[Any], recs: list[dict[str, Any]], dx: float) -> tuple[list[Any], list[dict[str, Any]]]:
    """A layer's features with the last one moved ``dx`` feet east."""
    return geoms[:-1] + [shapely.affinity.translate(geoms[-1], dx, 0)], recs


@settings(max_examples=60, deadline=None)
@given(st.booleans(), st.lists(_EDIT, min_size=1, max_size=6))
def test_reads_through_kept_values_equal_reads_computing_each_anew(with_pack, edits):
    """A sequence of reads, each editing one layer (a device, well or parcel moved a few feet, or far: a stray plan feature, a
    plan off its parcel; the parcel flagged as the site changed) or none, the unedited layers' frames handed again with their
    memo, the site parcel named or not: every read equals a read of the same layers with no memo at all, with the pack's
    placement decisions or without a pack."""
    pack = load_pack("lake-george") if with_pack else None
    layers = _site_with_a_third_device()
    backend = _Layers(layers)
    _outcome(backend, pack)
    for what, dx, scale, edit, site in edits:
        role = "parcels" if what == "flag" else what
        geoms, recs = layers[role]
        if edit and what == "flag":  # the other parcel flagged as the site (or none: the plan decides)
            flagged = [r.get("is_site") for r in recs]
            recs = [{**r, "is_site": "yes" if not f and (dx > 0) == (k == 1) else None} for k, (r, f) in enumerate(zip(recs, flagged))]
            layers = {**layers, role: (geoms, recs)}
        elif edit:  # the last feature moved (a device far off: a stray)
            layers = {**layers, role: _last_moved(geoms, recs, dx * scale)}
        kept = {r: fr for r, fr in backend.fetched.items() if not (edit and r == role)}
        backend = _Layers(layers, kept=kept)
        assert _outcome(backend, pack, site) == _outcome(_Layers(layers, memo=False), pack, site)


@settings(max_examples=60, deadline=None)
@given(st.booleans(), st.lists(_EDIT, min_size=1, max_size=6))
def test_reads_of_an_edited_layer_made_of_the_same_records_through_their_kept_values_equal_reads_computing_each_anew(with_pack, edits):
    """As the first property, the edited layer's features handed too when only a geometry moved, as the live read makes them
    (``gui.live_read``): the earlier records with the moved geometries and what the earlier memo holds of the records alone
    (``site_read.same_records_memo``: their names and ids, cleaned values, usable ids). Every read equals one with no memo."""
    pack = load_pack("lake-george") if with_pack else None
    layers = _site_with_a_third_device()
    backend = _Layers(layers)
    _outcome(backend, pack)
    for what, dx, scale, edit, site in edits:
        role = "parcels" if what == "flag" else what
        geoms, recs = layers[role]
        kept = {r: fr for r, fr in backend.fetched.items() if not (edit and r == role)}
        if edit and what == "flag":
            recs = [{**r, "is_site": "yes" if (dx > 0) == (k == 1) else None} for k, r in enumerate(recs)]
            layers = {**layers, role: (geoms, recs)}
        elif edit:
            layers = {**layers, role: _last_moved(geoms, recs, dx * scale)}
            earlier = backend.fetched.get(role)  # none: the read before was refused before fetching it (a plan off its parcel)
            if earlier is not None:
                kept[role] = LocalFrame(list(layers[role][0]), earlier.records, earlier.columns, memo=site_read.same_records_memo(earlier))
        backend = _Layers(layers, kept=kept)
        assert _outcome(backend, pack, site) == _outcome(_Layers(layers, memo=False), pack, site)


def test_the_site_parcel_the_parcels_name_is_found_once_for_unedited_parcels_and_again_for_edited_ones(monkeypatch):
    """The parcels' pick (``working_crs.site_parcel_indices``) is kept with the parcels' features: a read of the same parcels asks
    none; parcels whose flag moved are asked again, and the read finds the newly flagged parcel."""
    from stormwater_plugin.services import working_crs

    asked: list[int] = []
    real = working_crs.pick_site_parcel
    monkeypatch.setattr(working_crs, "pick_site_parcel", lambda *a, **k: asked.append(1) or real(*a, **k))
    pack = load_pack("lake-george")
    layers = _site()
    layers["parcels"] = (layers["parcels"][0], [{"id": "P-1", "is_site": "yes"}, {"id": "P-2"}])
    first = _Layers(layers)
    read_site(first, pack, None, None, None, [])
    assert asked
    asked.clear()
    second = _Layers(layers, kept=dict(first.fetched))
    read_site(second, pack, None, None, None, [])
    assert asked == []  # the same parcels: their pick kept
    layers["parcels"] = (layers["parcels"][0], [{"id": "P-1"}, {"id": "P-2", "is_site": "yes"}])
    third = _Layers(layers, kept={r: fr for r, fr in second.fetched.items() if r != "parcels"})
    got = read_site(third, pack, None, None, None, [])
    assert asked and _inputs_content(got.inputs) == _inputs_content(read_site(_Layers(layers, memo=False), pack, None, None, None, []).inputs)
    picks = third.fetched["parcels"].memo[("parcel picks",)]
    assert picks is not first.fetched["parcels"].memo[("parcel picks",)]
    assert picks and all(list(pick.indices) == [1] for _layer, pick in picks.values())  # P-2, flagged now


class _Moved(_Layers):
    """Every source moved into the working CRS: a new frame of its own at each read (the QGIS reader's, a CRS apart)."""

    def to_working(self, source: SourceInfo, features: Any, working: Any) -> tuple[Any, str | None]:
        return dataclasses.replace(features, geoms=list(features.geoms), memo={}), None


def test_picks_are_held_with_the_parcels_in_the_working_crs_and_never_pile_up_with_the_features_as_fetched():
    """A parcel layer moved into the working CRS is a new frame at each read: its picks are found with it and let go with it,
    never added at each read to the memo of the features as fetched (kept from read to read)."""
    pack = load_pack("lake-george")
    layers = _site()
    backend = _Moved(layers)
    read_site(backend, pack, None, None, None, [])
    fetched = backend.fetched["parcels"]
    for _ in range(12):
        backend = _Moved(layers, kept=dict(backend.fetched))
        got = read_site(backend, pack, None, None, None, []).inputs
        assert backend.fetched["parcels"] is fetched
        assert _inputs_content(got) == _inputs_content(read_site(_Layers(layers, memo=False), pack, None, None, None, []).inputs)
    assert ("parcel picks",) not in fetched.memo and len(fetched.memo) <= 2


def test_the_picks_held_with_the_parcels_stay_few():
    """More picks than a read asks for held with the parcels (none in practice): let go at the next read."""
    layers = _site()
    backend = _Layers(layers)
    read_site(backend, load_pack("lake-george"), None, None, None, [])
    held = backend.fetched["parcels"].memo[("parcel picks",)]
    held.update({("x", k): None for k in range(site_read._MAX_PICKS + 1)})
    read_site(_Layers(layers, kept=dict(backend.fetched)), load_pack("lake-george"), None, None, None, [])
    assert len(held) <= site_read._MAX_PICKS


def test_the_memo_of_features_moved_into_the_working_crs_is_kept_for_the_same_two_reads_and_made_anew_otherwise():
    """``moved_memo``: each input, the features as fetched and the features read in the working CRS, changed alone."""
    own, moved = _piece().frame, _piece().frame
    memo = site_read.moved_memo(own, moved)
    assert site_read.moved_memo(dataclasses.replace(own), dataclasses.replace(moved)) is memo  # copies of the same two
    assert site_read.moved_memo(_piece().frame, moved) is not memo  # other features as fetched (an edited layer)
    assert site_read.moved_memo(own, _piece().frame) is not memo  # other features read in the working CRS
    changed = dataclasses.replace(own)
    site_read._changing(changed)  # the read took a feature out: nothing kept
    assert site_read.moved_memo(changed, moved) == {} and site_read.moved_memo(changed, moved) is not site_read.moved_memo(changed, moved)
    full = _piece().frame
    full.memo.update({k: None for k in range(site_read._MAX_KEPT + 1)})
    assert site_read.moved_memo(own, full) == {} and len(full.memo) == site_read._MAX_KEPT + 1  # never more held


class _MovedKept(_Layers):
    """Every source moved into the working CRS as the QGIS reader moves it: its features read again there (kept, as the live read
    keeps that conversion, while the layer is not edited) and matched, the moved frame's memo from ``moved_memo``."""

    def __init__(self, *a: Any, moved: dict[str, LocalFrame] | None = None, **k: Any) -> None:
        super().__init__(*a, **k)
        self.moved = dict(moved or {})

    def to_working(self, source: SourceInfo, features: Any, working: Any) -> tuple[Any, str | None]:
        there = self.moved.get(source.role)
        if there is None:
            there = self.moved[source.role] = LocalFrame(list(source.handle[0]), [{} for _ in source.handle[1]], [], memo={} if self.memo else None)
        return LocalFrame(list(there.geoms), features.records, features.columns, dict(features.unusable), features.restored,
                           site_read.moved_memo(features, there)), None


@settings(max_examples=40, deadline=None)
@given(st.booleans(), st.lists(_EDIT, min_size=1, max_size=6))
def test_reads_of_layers_moved_into_the_working_crs_through_kept_values_equal_reads_computing_each_anew(with_pack, edits):
    """As above, every layer moved into the working CRS (a new frame at each read, its memo kept for the same two reads)."""
    pack = load_pack("lake-george") if with_pack else None
    layers = _site_with_a_third_device()
    backend = _MovedKept(layers)
    _outcome(backend, pack)
    for what, dx, scale, edit, site in edits:
        role = "parcels" if what == "flag" else what
        geoms, recs = layers[role]
        if edit and what == "flag":
            recs = [{**r, "is_site": "yes" if (dx > 0) == (k == 1) else None} for k, r in enumerate(recs)]
            layers = {**layers, role: (geoms, recs)}
        elif edit:
            layers = {**layers, role: _last_moved(geoms, recs, dx * scale)}
        unedited = [r for r in backend.fetched if not (edit and r == role)]
        backend = _MovedKept(layers, kept={r: backend.fetched[r] for r in unedited}, moved={r: backend.moved[r] for r in unedited if r in backend.moved})
        assert _outcome(backend, pack, site) == _outcome(_Layers(layers, memo=False), pack, site)


def test_an_unedited_layer_moved_into_the_working_crs_read_again_is_the_same_layer():
    first = _MovedKept(_site())
    before = read_site(first, None, None, None, None, []).inputs
    again = _MovedKept(_site(dx=5.0), kept={r: first.fetched[r] for r in ("parcels", "wells")},
                       moved={r: first.moved[r] for r in ("parcels", "wells")})
    after = read_site(again, None, None, None, None, []).inputs
    assert after.layers["parcels"] is before.layers["parcels"] and after.layers["wells"] is before.layers["wells"]
    assert after.layers["devices"] is not before.layers["devices"]


def test_a_frame_of_the_same_records_with_moved_geometries_keeps_only_their_names_and_ids_and_reads_as_a_fresh_read():
    """An edited layer's features made from the earlier read (the same records, a device moved: ``gui.live_read``) carry what the
    earlier memo holds of the records alone (``site_read.same_records_memo``); the read through them equals one computing anew."""
    first = _Layers(_site())
    read_site(first, None, None, None, None, [])
    earlier = first.fetched["devices"]
    assert any(k[0] == "named" for k in earlier.memo) and any(k[0] != "named" for k in earlier.memo)
    carried = site_read.same_records_memo(earlier)
    assert carried and all(k[0] in site_read._RECORDS_ONLY for k in carried) and all(carried[k] is earlier.memo[k] for k in carried)
    assert {k[0] for k in carried} == {"named", "clean records"}  # without a pack, no plan layer of usable features is made
    moved = LocalFrame([Point(15, 10), None], earlier.records, earlier.columns, memo=carried)
    after = read_site(_Layers(_site(dx=5.0), kept={"devices": moved, "parcels": first.fetched["parcels"], "wells": first.fetched["wells"]}),
                      None, None, None, None, []).inputs
    fresh = read_site(_Layers(_site(dx=5.0), memo=False), None, None, None, None, []).inputs
    assert _inputs_content(after) == _inputs_content(fresh)
    assert site_read.same_records_memo(LocalFrame([], [], [], memo=None)) == {}
