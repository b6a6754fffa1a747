"""Check that the Python packages the core needs are importable, without installing anything."""

from __future__ import annotations

import sys

#: How a user gets shapely 2 into QGIS's Python, per platform. Shown, never run.
INSTALL_HINTS: dict[str, str] = {
    "win32": "Windows: close QGIS, open the \"OSGeo4W Shell\" from the Start menu and run:\n    python -m pip install \"shapely>=2\"",
    "darwin": "macOS: in Terminal run:\n    /Applications/QGIS.app/Contents/MacOS/bin/python3 -m pip install --user \"shapely>=2\"",
    "linux": "Linux: install your distribution's package (Debian/Ubuntu: sudo apt install python3-shapely) if it is version 2 or later, else run:\n    python3 -m pip install --user \"shapely>=2\"",
}


def shapely_problem() -> str | None:
    """Why the core cannot run, or ``None`` when shapely 2 (or later) is importable.

    Returns
    -------
    str or None
        A message naming the package, the version found and how to install it
        on this platform.
    """
    try:
        import shapely
    except Exception as exc:  # ImportError, or a broken binary wheel
        found = f"it could not be imported ({exc})"
    else:
        version = getattr(shapely, "__version__", "0")
        try:
            major = int(version.split(".")[0])
        except ValueError:
            major = 0
        if major >= 2:
            return None
        found = f"version {version} is installed"
    platform = "win32" if sys.platform.startswith("win") else "darwin" if sys.platform == "darwin" else "linux"
    return (
        "Stormwater Site-Plan Review needs the Python package shapely, version 2 or later, "
        f"in QGIS's Python; {found}.\n\n{INSTALL_HINTS[platform]}\n\nThen restart QGIS."
    )
