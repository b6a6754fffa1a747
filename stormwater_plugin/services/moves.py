"""The use case "suggest moves": how far each device that violates a setback must move, each position verified by the engine.

The search (the envelope, the nearest position, the translations) is the
core's pure geometry, :func:`~stormwater_plugin.core.siting.search_moves`;
this module verifies its candidates by re-running the device's setback rules
on the moved device alone, so the engine is called from the service layer
only.
"""

from __future__ import annotations

import dataclasses

from shapely.geometry.base import BaseGeometry

from ..core.derived import current
from ..core.engine import run_check
from ..core.model import CheckResult, FeatureLayer, SiteInputs, Status
from ..core.rulepack import RulePack
from ..core.siting import Verify, search_moves
from ..core.siting.envelope import DEFAULT_CELL_FT


def suggest_moves(inputs: SiteInputs, pack: RulePack, result: CheckResult, *, cell_ft: float = DEFAULT_CELL_FT) -> list[dict[str, object]]:
    """Nearest compliant position for each device with a setback violation in ``result``.

    Parameters
    ----------
    inputs : SiteInputs
        The checked site, in the working CRS.
    pack : RulePack
        The rule pack ``result`` was checked with.
    result : CheckResult
        The check whose ``device_setback`` violations are to be cleared.
    cell_ft : float
        The siting envelope's grid cell, feet.

    Returns
    -------
    list of dict
        One entry per violating device, as :func:`~stormwater_plugin.core.siting.search_moves`
        gives it; a position is proposed only when the device there has no
        violation and no undetermined setback finding.
    """
    return search_moves(inputs, pack, result, verifier(inputs, pack, result.project_class), cell_ft=cell_ft)


def verifier(inputs: SiteInputs, pack: RulePack, project_class: str) -> Verify:
    """A check of a moved device against the pack's setback rules, on ``inputs`` (as the review read them) with the class ``project_class``."""
    setbacks = dataclasses.replace(pack, rules=tuple(r for r in pack.rules if r.kind == "device_setback"))

    def verify(geom: BaseGeometry, attrs: dict[str, object], dev_id: str) -> tuple[bool, list[str]]:
        """Whether the device at ``geom`` passes every setback rule (no violation, no undetermined about it), and the rules it fails."""
        layers = dict(inputs.layers)
        layers["devices"] = FeatureLayer.from_sequences("devices", [geom], [dev_id], [attrs])
        # the review's own inputs but the devices: its stated accuracy, warnings and DEM source decide the moved device as they decide the review
        moved = dataclasses.replace(inputs, layers=layers, class_override=project_class, warnings=list(inputs.warnings))
        # the derived values in use (the review's: every layer but the moved device's cleaned once, kept by content)
        res = run_check(moved, setbacks, derived=current())
        bad = [f.rule_id for f in res.findings if f.subject is not None and f.subject.layer == "devices" and f.status in (Status.VIOLATION, Status.UNDETERMINED)]
        return not bad, bad

    return verify


__all__ = ["suggest_moves", "verifier"]
