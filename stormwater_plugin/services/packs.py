"""The rule packs as the front ends see them: which jurisdictions exist and loading one.

A re-export of :mod:`stormwater_plugin.core.rulepack` (one pack per
jurisdiction, rules as data), so that the command line, Processing and the
dock depend on the service layer only (``tests/core/test_architecture.py``).
"""

from __future__ import annotations

from ..core.rulepack import JURISDICTIONS, PackError, Rule, RulePack, load_pack, pack_source, source_statement

__all__ = ["JURISDICTIONS", "PackError", "Rule", "RulePack", "load_pack", "pack_source", "source_statement"]
