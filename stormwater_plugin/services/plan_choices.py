"""What a front end's plan of a read keeps of what it was given: the role contract's layers, the site parcel's id, the project class.

The plugin plans a read on the main thread (``qgis_bridge.snapshot.plan_snapshot``); these are its decisions that need no QGIS.
"""

from __future__ import annotations

from ..core.model import PROJECT_CLASSES, Warning_
from ..core.roles import ROLES


def contract_roles_only(sources: dict[str, object], warnings: list[Warning_]) -> None:
    """Take out of ``sources`` every role that is not part of the contract, each with an ``unknown_role`` warning."""
    for r in list(sources):
        if r not in ROLES:
            warnings.append(Warning_("unknown_role", f"layer role '{r}' is not part of the contract and was ignored", r))
            del sources[r]


def stated_site(site_parcel_id: object) -> str | None:
    """The site parcel's id as given, trimmed; ``None`` when none was given."""
    return str(site_parcel_id).strip() if site_parcel_id not in (None, "") else None


def stated_class(class_override: str | None) -> str | None:
    """The project class chosen, when it is one of :data:`~stormwater_plugin.core.model.PROJECT_CLASSES`; else ``None`` (the engine classifies)."""
    return class_override if class_override in PROJECT_CLASSES else None


__all__ = ["contract_roles_only", "stated_class", "stated_site"]
