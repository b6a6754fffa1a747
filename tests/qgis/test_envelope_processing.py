"""``stormwater_review:sitingenvelope`` through ``processing.run`` on the synthetic EPSG:2260 site.

The DEM rises 0.1 ft per ft eastward, so under LGPC (minor) a dry well may not go within 20 ft of septic S1
(the square 100..110) on its east side or level with it (within the pack's 0.5 ft gradient tolerance, i.e. up to
5 ft west of it); further west the device is downgradient and allowed.
"""

from __future__ import annotations

import pytest
from qgis.core import QgsApplication, QgsGeometry, QgsPointXY
from synthetic_site import US_FT


def _params(layers, dem, **extra):
    p = {"PARCELS": layers["parcels"], "SEPTIC": layers["septic"], "DEVICES": layers["devices"], "DEM": dem,
         "JURISDICTION": 0, "PROJECT_CLASS": 2, "Z_UNITS": 2, "DEVICE_TYPE": 0, "HIGH_TRAFFIC": False,
         "ENVELOPE": "memory:", "EXCLUDED": "memory:", "NEEDS_PROFESSIONAL_DESIGN": "memory:"}  # lgpc, minor, feet, dry well
    p.update(extra)
    return p


def _inside(layer, x, y):
    pt = QgsGeometry.fromPointXY(QgsPointXY(x, y))
    return any(f.geometry().contains(pt) for f in layer.getFeatures())


def test_envelope_on_the_synthetic_site(provider, site):
    import processing

    assert QgsApplication.processingRegistry().algorithmById("stormwater_review:sitingenvelope") is not None
    layers, dem = site
    out = processing.run("stormwater_review:sitingenvelope", _params(layers, dem))
    env_layer = out["ENVELOPE"]
    assert env_layer.crs().authid() == "EPSG:2260"
    envs = list(env_layer.getFeatures())
    assert len(envs) == 1
    env = envs[0]
    assert env["device_type"] == "dry_well" and env["project_class"] == "minor" and env["site_parcel"] == "1.-1-1"
    assert "lgpc.minor.septic-upgradient-20" in env["rules"]
    parcel_sqft = (300 * US_FT) ** 2
    # the zone: a 20 ft band east of and level with the 10 ft septic square (~1,330 sq ft) and the ~5 ft "level" band west of it
    cut = parcel_sqft - out["AREA_SQFT"]
    assert 1500 < cut < 1800  # plus the one-cell conservative staircase of the gradient boundary
    assert env["area_sqft"] == pytest.approx(out["AREA_SQFT"], abs=0.1)
    # downgradient (west) of S1 by more than the tolerance: allowed; upgradient (east) within 20 ft: excluded; beyond: allowed
    assert _inside(env_layer, 88.0, 105.0)
    assert not _inside(env_layer, 97.0, 105.0)  # 0.3 ft below S1's nearest ground: level within the tolerance
    assert not _inside(env_layer, 125.0, 105.0)
    assert not _inside(env_layer, 105.0, 118.0)  # level with S1 (north of it): the rule applies
    assert _inside(env_layer, 131.0, 105.0)
    excluded = {f["rule_id"]: f for f in out["EXCLUDED"].getFeatures()}
    z = excluded["lgpc.minor.septic-upgradient-20"]
    assert z["citation"] == "6 NYCRR 646-4.14(a)(3)" and z["required_ft"] == 20
    assert z["target_layer"] == "septic" and z["target_id"] == "S1"
    assert z["area_sqft"] == pytest.approx(cut, rel=0.02)
    assert _inside(out["EXCLUDED"], 125.0, 105.0)
    # a 10% ground is under the device-slope threshold: nothing needs professional design
    assert all(f["status"] != "advisory" for f in out["NEEDS_PROFESSIONAL_DESIGN"].getFeatures())


def test_envelope_without_dem_excludes_the_gradient_rule_everywhere(provider, site):
    import processing

    layers, _ = site
    out = processing.run("stormwater_review:sitingenvelope", _params(layers, None))
    # no DEM: the upgradient test is unknown, so the gradient rule excludes the whole parcel (never allowed by default)
    assert out["AREA_SQFT"] == pytest.approx(0.0, abs=1.0)
    kinds = {f["kind"] for f in out["EXCLUDED"].getFeatures()}
    assert "gradient_unknown" in kinds
