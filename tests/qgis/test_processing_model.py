"""The check inside a Processing model (as built in the graphical modeler), saved, reloaded and chained."""

from __future__ import annotations

import pytest
from synthetic_site import D1_TO_S1_FT


def _model():
    from qgis.core import (
        QgsProcessingModelAlgorithm,
        QgsProcessingModelChildAlgorithm,
        QgsProcessingModelChildParameterSource,
        QgsProcessingModelOutput,
        QgsProcessingModelParameter,
        QgsProcessingParameterRasterLayer,
        QgsProcessingParameterVectorLayer,
    )

    src = QgsProcessingModelChildParameterSource
    model = QgsProcessingModelAlgorithm("Stormwater review model", "tests")
    for name in ("parcels", "septic", "devices"):
        model.addModelParameter(QgsProcessingParameterVectorLayer(name, name), QgsProcessingModelParameter(name))
    model.addModelParameter(QgsProcessingParameterRasterLayer("dem", "dem"), QgsProcessingModelParameter("dem"))

    check = QgsProcessingModelChildAlgorithm("stormwater_review:checksiteplan")
    check.setChildId("check")
    check.setDescription("Check site plan")
    for param, name in (("PARCELS", "parcels"), ("SEPTIC", "septic"), ("DEVICES", "devices"), ("DEM", "dem")):
        check.addParameterSources(param, [src.fromModelParameter(name)])
    for param, value in (("JURISDICTION", 0), ("PROJECT_CLASS", 2), ("Z_UNITS", 2)):  # lgpc, minor, feet
        check.addParameterSources(param, [src.fromStaticValue(value)])
    findings = QgsProcessingModelOutput("findings", "findings")
    findings.setChildId("check")
    findings.setChildOutputName("FINDINGS")
    check.setModelOutputs({"findings": findings})
    model.addChildAlgorithm(check)

    # a core algorithm downstream: keep the violations only
    extract = QgsProcessingModelChildAlgorithm("native:extractbyattribute")
    extract.setChildId("violations")
    extract.addParameterSources("INPUT", [src.fromChildOutput("check", "FINDINGS")])
    extract.addParameterSources("FIELD", [src.fromStaticValue("status")])
    extract.addParameterSources("OPERATOR", [src.fromStaticValue(0)])
    extract.addParameterSources("VALUE", [src.fromStaticValue("violation")])
    out = QgsProcessingModelOutput("violations", "violations")
    out.setChildId("violations")
    out.setChildOutputName("OUTPUT")
    extract.setModelOutputs({"violations": out})
    model.addChildAlgorithm(extract)
    return model


def test_check_runs_inside_a_saved_and_reloaded_model_and_feeds_a_core_algorithm(provider, site, tmp_path):
    import processing
    from qgis.core import QgsApplication, QgsProcessingModelAlgorithm

    if QgsApplication.processingRegistry().algorithmById("native:extractbyattribute") is None:
        from qgis.analysis import QgsNativeAlgorithms

        QgsApplication.processingRegistry().addProvider(QgsNativeAlgorithms())
    layers, dem = site
    path = tmp_path / "review.model3"
    assert _model().toFile(str(path))
    model = QgsProcessingModelAlgorithm()
    assert model.fromFile(str(path))  # what the modeler saves is what it reads back
    assert model.childAlgorithm("check").algorithmId() == "stormwater_review:checksiteplan"
    ok, issues = model.validate()  # what the modeler checks before it runs a model
    assert ok, issues

    # The model's own names for its outputs: QGIS 3.22 prefixes the child id ("check:findings"), 3.40 does not ("findings").
    dest = {d.name().split(":")[-1]: d.name() for d in model.destinationParameterDefinitions()}
    assert set(dest) == {"findings", "violations"}, dest
    params = {"parcels": layers["parcels"], "septic": layers["septic"], "devices": layers["devices"], "dem": dem,
              dest["findings"]: "memory:", dest["violations"]: "memory:"}
    res = processing.run(model, params)
    every = list(res[dest["findings"]].getFeatures())
    rows = list(res[dest["violations"]].getFeatures())
    assert [r["rule_id"] for r in rows] == ["lgpc.minor.septic-upgradient-20"]
    assert rows[0]["measured_ft"] == pytest.approx(D1_TO_S1_FT, rel=5e-4)
    assert rows[0]["citation"] == "6 NYCRR 646-4.14(a)(3)"
    assert len(every) > len(rows)  # the full table keeps passes and advisories
