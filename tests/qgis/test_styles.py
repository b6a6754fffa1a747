"""The layer styles (gui/styles.py): each built on a memory layer, its rules matched against features.

The findings styles draw a finding by its status while the reviewer has not
decided it, and grey once accepted or waived (issue 6); the shipped QML files
must say the same as the code that writes them.
"""

from __future__ import annotations

import pytest
from qgis.core import QgsExpressionContext, QgsExpressionContextUtils, QgsFeature, QgsRuleBasedRenderer, QgsVectorLayer

from stormwater_plugin.gui.styles import DECIDED_COLOUR, STYLE_GEOMETRY, apply_style, build_style, write_qml_files
from stormwater_plugin.services.presentation import STATUS_COLOURS

FIELDS = ("status:string", "decision:string", "label:string", "id:string", "listed:boolean", "slope_pct:double")


def _layer(name: str) -> QgsVectorLayer:
    kind = STYLE_GEOMETRY[name]
    layer = QgsVectorLayer(f"{kind}?" + "&".join(f"field={f}" for f in FIELDS), name, "memory")
    assert layer.isValid()
    return layer


def _feature(layer: QgsVectorLayer, **values) -> QgsFeature:
    f = QgsFeature(layer.fields())
    for k, v in values.items():
        f[k] = v
    return f


def _matching(layer: QgsVectorLayer, feature: QgsFeature) -> list[str]:
    """Labels of the renderer's rules that draw ``feature``."""
    renderer = layer.renderer()
    assert isinstance(renderer, QgsRuleBasedRenderer), type(renderer)
    ctx = QgsExpressionContext()
    ctx.appendScopes(QgsExpressionContextUtils.globalProjectLayerScopes(layer))
    ctx.setFeature(feature)
    out = []
    for rule in renderer.rootRule().children():
        if rule.filter() is None or rule.filter().evaluate(ctx):
            out.append(rule.label())
    return out


def _colour_of(layer: QgsVectorLayer, label: str) -> str:
    rule = next(r for r in layer.renderer().rootRule().children() if r.label() == label)
    return rule.symbol().color().name()


@pytest.mark.parametrize("name", sorted(STYLE_GEOMETRY))
def test_every_style_builds_a_renderer_on_a_memory_layer(name):
    layer = _layer(name)
    build_style(layer, name)
    renderer = layer.renderer()
    assert renderer is not None
    assert renderer.legendSymbolItems(), name  # at least one symbol to draw with


@pytest.mark.parametrize("name", ["findings_points", "findings_lines", "findings_areas"])
def test_findings_style_draws_each_undecided_status_in_its_colour_and_decided_findings_grey(name):
    layer = _layer(name)
    build_style(layer, name)
    labels = [r.label() for r in layer.renderer().rootRule().children()]
    assert labels == ["Violation", "Undetermined", "Advisory", "Pass", "Accepted or waived by the reviewer"]
    for status in ("violation", "undetermined", "advisory", "pass"):
        assert _matching(layer, _feature(layer, status=status)) == [status.capitalize()]
        assert _matching(layer, _feature(layer, status=status, decision="")) == [status.capitalize()]
        assert _matching(layer, _feature(layer, status=status, decision="waived")) == ["Accepted or waived by the reviewer"]
        assert _matching(layer, _feature(layer, status=status, decision="accepted")) == ["Accepted or waived by the reviewer"]
    if name != "findings_areas":  # the advisory area is an outline; the other symbols carry the status colour
        for status in ("violation", "undetermined", "advisory", "pass"):
            assert _colour_of(layer, status.capitalize()) == STATUS_COLOURS[status]
    assert _colour_of(layer, "Accepted or waived by the reviewer") == DECIDED_COLOUR


@pytest.mark.parametrize("name", ["passes_points", "passes_lines", "passes_areas"])
def test_passes_style_has_the_pass_rule_and_the_decided_rule(name):
    layer = _layer(name)
    build_style(layer, name)
    assert _matching(layer, _feature(layer, status="pass")) == ["Pass"]
    assert _matching(layer, _feature(layer, status="pass", decision="accepted")) == ["Accepted or waived by the reviewer"]


def test_slope_rays_are_banded_at_the_packs_15_percent_building_site_slope_threshold_and_the_labelled_ray_is_the_steepest():
    """The classes come from the packs' building_site_slope rules (15 %, at or over); the 8 % band no text sets is gone (issue 23)."""
    layer = _layer("slope_rays")
    build_style(layer, "slope_rays")
    assert _matching(layer, _feature(layer, slope_pct=7.9)) == ["Ray: under 15%"]
    assert _matching(layer, _feature(layer, slope_pct=14.9)) == ["Ray: under 15%"]
    assert _matching(layer, _feature(layer, slope_pct=15.0)) == ["Ray: 15% or more"]
    assert _matching(layer, _feature(layer, slope_pct=15.0, label="steepest: 15.0% toward 80°")) == ["Steepest ray: 15% or more"]


def test_slope_classes_follow_each_threshold_and_comparison_of_the_packs():
    from types import SimpleNamespace

    from stormwater_plugin.services.presentation import slope_classes

    rule = lambda t, c: SimpleNamespace(kind="building_site_slope", params={"threshold_pct": t, "compare": c})  # noqa: E731
    pack = SimpleNamespace(rules=[rule(15, "gte"), rule(8, "gt")])
    assert [(t, e) for _, t, e in slope_classes([pack])] == [
        ("8% or less", '"slope_pct" <= 8'), ("over 8% to under 15%", '"slope_pct" > 8 AND "slope_pct" < 15'), ("15% or more", '"slope_pct" >= 15')]


def test_notify_parcels_outlines_the_listed_parcels():
    layer = _layer("notify_parcels")
    build_style(layer, "notify_parcels")
    assert _matching(layer, _feature(layer, listed=True)) == ["To notify"]
    assert _matching(layer, _feature(layer, listed=False)) == ["Within radius, not required"]


@pytest.mark.parametrize("name", ["findings_points", "findings_lines", "findings_areas", "passes_points", "passes_lines", "passes_areas"])
def test_the_shipped_qml_has_the_same_rules_as_the_code(name):
    built, shipped = _layer(name), _layer(name)
    build_style(built, name)
    apply_style(shipped, name)  # loads resources/styles/<name>.qml
    rules = [(r.label(), r.filterExpression()) for r in built.renderer().rootRule().children()]
    assert [(r.label(), r.filterExpression()) for r in shipped.renderer().rootRule().children()] == rules


def test_write_qml_files_writes_one_loadable_file_per_style(tmp_path):
    paths = write_qml_files(tmp_path)
    assert sorted(p.stem for p in paths) == sorted(STYLE_GEOMETRY)
    for p in paths:
        layer = _layer(p.stem)
        _msg, ok = layer.loadNamedStyle(str(p))
        assert ok, p
        assert layer.renderer() is not None
