"""How far each rule looks, in feet: the one answer for DEM windows, batch halos and the siting envelope.

Each rule kind names the parameters that are horizontal distances it measures
out to (:data:`REACH_PARAMS`); a kind not listed reaches as far as its
largest ``*_ft`` parameter that is not a vertical one, so a new kind is never
given too small a window. A kind that traces a path (its ``trace``
parameter in the registry, the flow trace's ``max_length_ft``) reaches that length along a D8
path: up to ``sqrt(2) * (max_length_ft + 2 cells)`` as the crow flies; with no
declared length it may reach anywhere (the batch gives its targets from the
whole town), but the DEM it reads at first is finite
(:func:`rule_dem_reach_ft`): the trace reads further windows as it proceeds.
"""

from __future__ import annotations

import math
from typing import Iterable, Iterator

from ..core.checks.flowpath import FIRST_REACH_FT
from ..core.kinds import KINDS
from ..core.rulepack import Rule, RulePack

#: Horizontal-distance parameters of each kind, feet (the rule's reach is the largest): from the kind registry.
REACH_PARAMS: dict[str, tuple[str, ...]] = {k: s.reach for k, s in KINDS.items() if s.reach is not None}
#: ``*_ft`` parameters that are depths or heights, never horizontal reach (for kinds not in :data:`REACH_PARAMS`).
VERTICAL_PARAMS: frozenset[str] = frozenset({"min_ft", "frost_depth_ft", "min_depth_ft", "gradient_tolerance_ft"})
#: Kinds whose zones make up the siting envelope (its DEM window and its reach).
ENVELOPE_KINDS: tuple[str, ...] = tuple(k for k, s in KINDS.items() if s.envelope)


def _numbers(value: object, key: str = "") -> Iterator[tuple[str, float]]:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield key, float(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, str(k))
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _numbers(v, key)


def _trace_length(rule: Rule) -> str | None:
    """The parameter holding the length of the path ``rule`` traces (the registry's ``trace``), or ``None``: not a trace."""
    spec = KINDS.get(rule.kind)
    return spec.trace if spec is not None else None


#: :func:`rule_reach_ft` of each rule object read (packs are loaded once; a snapshot asks for every role's reach).
_REACHES: dict[tuple[int, float], tuple[Rule, float]] = {}


def rule_reach_ft(rule: Rule, cell_ft: float = 0.0) -> float:
    """The horizontal distance ``rule`` looks out to from the features it relates, feet.

    Parameters
    ----------
    rule : Rule
        One rule of a pack.
    cell_ft : float, default 0
        The DEM's pixel size, feet (only a trace depends on it).
    """
    key = (id(rule), float(cell_ft))
    got = _REACHES.get(key)
    if got is not None and got[0] is rule:  # the same object (a rule is frozen): the same reach
        return got[1]
    if len(_REACHES) > 4096:
        _REACHES.clear()
    reach = _reach_ft(rule, cell_ft)
    _REACHES[key] = (rule, reach)
    return reach


def _reach_ft(rule: Rule, cell_ft: float) -> float:
    p = dict(rule.params)
    trace = _trace_length(rule)
    if trace is not None:
        length = p.get(trace)
        if isinstance(length, (int, float)) and not isinstance(length, bool):
            return math.sqrt(2.0) * (float(length) + 2.0 * max(cell_ft, 0.0))
        return math.inf  # no declared length: it may run anywhere on the DEM, so never a window that could stop it
    keys = REACH_PARAMS.get(rule.kind)
    reach = 0.0
    for key, value in _numbers(p):
        wanted = key in keys if keys is not None else key.endswith("_ft") and key not in VERTICAL_PARAMS
        if wanted and math.isfinite(value):
            reach = max(reach, abs(value))
    return reach


def rule_dem_reach_ft(rule: Rule, cell_ft: float = 0.0) -> float:
    """How far around its features ``rule`` reads the DEM in the fixed window read once, feet (always finite).

    :func:`rule_reach_ft`, except for a flow trace of no declared length:
    its first window reaches
    :data:`~stormwater_plugin.core.checks.flowpath.FIRST_REACH_FT` (plus two
    cells) around the activity, and the trace reads bigger windows from the
    DEM source as it proceeds, so the reader never reads the whole raster.
    """
    reach = rule_reach_ft(rule, cell_ft)
    if _trace_length(rule) is not None and not math.isfinite(reach):
        return FIRST_REACH_FT + 2.0 * max(cell_ft, 0.0)
    return reach


def rule_grows_dem_window(rule: Rule) -> bool:
    """Whether ``rule`` reads DEM windows beyond its fixed one as it proceeds (a flow trace of no declared length)."""
    return _trace_length(rule) is not None and not math.isfinite(rule_reach_ft(rule))


def pack_dem_reach_ft(pack: RulePack, cell_ft: float = 0.0) -> float:
    """The largest :func:`rule_dem_reach_ft` of the pack's rules, feet: the batch's DEM halo (finite)."""
    return max((rule_dem_reach_ft(r, cell_ft) for r in pack.rules), default=0.0)


def pack_reach_ft(pack: RulePack, cell_ft: float = 0.0, kinds: Iterable[str] | None = None) -> float:
    """The largest :func:`rule_reach_ft` of the pack's rules (of ``kinds`` only, when given), feet.

    500.0 for the Lake George packs (the notification radius and the 500 ft
    clearing cover); 100.0 for their envelope kinds; about 2,830 ft for
    Mamakating (the 2,000 ft flow trace).
    """
    wanted = None if kinds is None else set(kinds)
    return max((rule_reach_ft(r, cell_ft) for r in pack.rules if wanted is None or r.kind in wanted), default=0.0)


def envelope_reach_ft(pack: RulePack) -> float:
    """How far the siting envelope's rules reach from the site parcel, feet (100 for LGPC)."""
    return pack_reach_ft(pack, kinds=ENVELOPE_KINDS)
