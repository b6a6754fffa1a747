"""The libraries a command needs beyond the engine's own, and the one line that says how to install a missing one.

Each module a command imports only when it runs is listed once in :data:`OPTIONAL` with the distribution that
provides it, the ``pyproject.toml`` extra that installs it (``None`` for a core dependency such as the report's
libraries, which ``pip install`` always brings) and the Debian package (the plugin's venv sees Debian's
packages). :func:`require` imports the module or raises :class:`MissingLibrary`, a
:class:`~stormwater_plugin.core.errors.StormwaterError`, so every front end shows it as one line and the
command line exits 2.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import NamedTuple

from ..core.errors import StormwaterError


class Library(NamedTuple):
    """Where an optional module comes from."""

    distribution: str
    #: The ``[project.optional-dependencies]`` extra that installs it; ``None``: a core dependency.
    extra: str | None
    #: The Debian package, or ``""`` where Debian has none the project uses.
    debian: str


#: Module -> its library. tests/headless/test_optional_extras.py holds this table and pyproject.toml to each other.
OPTIONAL: dict[str, Library] = {
    "docx": Library("python-docx", "letter", "python3-docx"),
    "scipy": Library("scipy", "contours", "python3-scipy"),
    "distributed": Library("distributed", "batch", ""),
    "dask": Library("dask", "batch", ""),
    "osgeo": Library("GDAL", "tiles", "python3-gdal"),
    "numba": Library("numba", "fast", "python3-numba"),
    "reportlab": Library("reportlab", None, "python3-reportlab"),
    "jinja2": Library("jinja2", None, "python3-jinja2"),
    "matplotlib": Library("matplotlib", None, "python3-matplotlib"),
    "click": Library("click", None, "python3-click"),
}

#: The name the project is installed under (``pip install "stormwater-review[letter]"``).
DISTRIBUTION = "stormwater-review"


class MissingLibrary(StormwaterError, ImportError):
    """A library a command needs is not installed; the message names what to install."""


def missing_message(module: str, needed_for: str) -> str:
    """One line: what needs the module and how to install it.

    Parameters
    ----------
    module : str
        The top-level module that could not be imported (``docx``); a module not in :data:`OPTIONAL` is named as is.
    needed_for : str
        What needs it, as the sentence's subject (``"the letter"``).
    """
    lib = OPTIONAL.get(module.split(".")[0], Library(module, None, ""))
    pip = f'pip install "{DISTRIBUTION}[{lib.extra}]"' if lib.extra else f"pip install {lib.distribution}"
    debian = f" (Debian: apt-get install {lib.debian})" if lib.debian else ""
    return f"{needed_for} needs {lib.distribution}: {pip}{debian}"


def require(module: str, needed_for: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingLibrary` with :func:`missing_message`.

    Only a missing library is turned into the message: a library that is installed but fails while it loads
    raises its own error (a bug or a broken installation, not an extra to install).
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = (exc.name or module).split(".")[0]
        if missing != module.split(".")[0] and missing not in OPTIONAL:
            raise
        raise MissingLibrary(missing_message(module, needed_for)) from None
