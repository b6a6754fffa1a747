"""Find the plugin's resources (icons, styles) in a source checkout and in the installed zip.

The plugin zip holds ``stormwater_plugin/resources/``; a source checkout keeps
``resources/`` at the repository root, one level above the package.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def resources_dir() -> Path:
    """The folder holding ``icon.svg`` and ``styles/``.

    Returns
    -------
    pathlib.Path
        ``<plugin>/resources`` when the plugin is installed from the zip,
        else ``<repo>/resources`` in a source checkout.
    """
    for candidate in (_PACKAGE_DIR / "resources", _PACKAGE_DIR.parent / "resources"):
        if (candidate / "icon.svg").is_file() or (candidate / "styles").is_dir():
            return candidate
    return _PACKAGE_DIR / "resources"


def resource_path(*parts: str) -> Path:
    """Path of one resource, e.g. ``resource_path("styles", "findings_lines.qml")``."""
    return resources_dir().joinpath(*parts)


def icon_path() -> str:
    """The plugin icon as a string path (what ``QIcon`` takes)."""
    return str(resource_path("icon.svg"))


def style_path(name: str) -> Path:
    """A shipped QML style by its base name (``"findings_lines"``)."""
    return resource_path("styles", f"{name}.qml")
