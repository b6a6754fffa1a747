"""The pieces every ``stormwater-check`` command is declared with (click), as rasterio's ``rio`` shares its options.

Each option several commands take (``--jurisdiction``, ``--dem``, ``--dem-z-units``, ``--class``, ``--site-parcel``,
``--layer``, ``--accuracy`` with ``--dem-vertical-accuracy-ft``, ``--out``, ``--quiet``, ``--version``) is declared once here; a command passes only its own help text.
:func:`run` invokes a command and keeps the command line's promises: a usage error is one line
``stormwater-check COMMAND: error: …`` and exit 2, ``--help`` and ``--version`` exit 0, and a
:class:`~stormwater_plugin.core.errors.StormwaterError` a command lets through is one line naming the command.

The QGIS plugin never imports this module (gui and processing never import ``headless``).
"""

from __future__ import annotations

import contextlib
import types
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar

import click
from click.core import ParameterSource

from ..__about__ import __version__
from ..core.errors import StormwaterError
from ..core.rulepack import JURISDICTIONS
from ..core.units import USER_Z_UNITS
from .errors import fail

F = TypeVar("F", bound=Callable[..., Any])

#: ``-h`` as well as ``--help``, on every command.
CONTEXT = {"help_option_names": ["-h", "--help"]}

PROJECT_CLASSES = ("exempt", "minor", "major")


class Choice(click.Choice):
    """click's choice, refusing a value in the words the command line has always used (``invalid choice: …``)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value in self.choices:
            return value
        if ctx is not None and param is not None and param.name and ctx.get_parameter_source(param.name) is ParameterSource.DEFAULT:
            return value  # a default is not one of the choices (register add's "" for none), as argparse never checked it
        shown = ", ".join(repr(c) for c in self.choices)
        self.fail(f"invalid choice: {value!r} (choose from {shown})", param, ctx)


class Command(click.Command):
    """A command whose long options may be shortened to any unambiguous prefix (``--juris lgpc``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", CONTEXT)
        super().__init__(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        with _named(ctx):
            return super().parse_args(ctx, expand_prefixes(self, args))

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except StormwaterError as exc:  # the project's own errors: one line naming this command
            fail(ctx.command_path, str(exc) or type(exc).__name__)


class Group(click.Group):
    """A group of commands (``stormwater-check register``); a missing or unknown command is a usage error, exit 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", CONTEXT)
        kwargs.setdefault("no_args_is_help", False)
        super().__init__(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        with _named(ctx):
            return super().parse_args(ctx, args)


@contextlib.contextmanager
def _named(ctx: click.Context) -> Iterator[None]:
    """A usage error raised while ``ctx``'s command reads its arguments names that command (click leaves some unnamed)."""
    try:
        yield
    except click.UsageError as exc:
        if exc.ctx is None:
            exc.ctx = ctx
        raise


def expand_prefixes(command: click.Command, args: list[str]) -> list[str]:
    """``args`` with each long option given by a unique prefix of one of ``command``'s options written out."""
    names = sorted({o for p in command.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts) if o.startswith("--")})
    out: list[str] = []
    for k, arg in enumerate(args):
        if arg == "--":
            return out + args[k:]
        head, sep, tail = arg.partition("=")
        if head.startswith("--") and head not in names:
            found = [n for n in names if n.startswith(head)]
            if len(found) == 1:
                arg = found[0] + sep + tail
        out.append(arg)
    return out


def run(command: click.Command, prog: str, argv: Sequence[str], obj: object = None) -> int:
    """Parse ``argv`` for ``command`` (named ``prog`` in messages) and run it; its exit status.

    Interrupts, ``SystemExit`` (:func:`~stormwater_plugin.headless.errors.fail`) and unexpected errors pass through
    to the caller's :func:`~stormwater_plugin.headless.errors.run_guarded`.
    """
    try:
        with command.make_context(prog, list(argv), obj=obj) as ctx:
            return int(command.invoke(ctx) or 0)
    except click.exceptions.Exit as exc:  # --help, --version
        return int(exc.exit_code)
    except click.ClickException as exc:  # a usage error: one line naming the command, as argparse's
        ctx_of = getattr(exc, "ctx", None)
        where = ctx_of.command_path if ctx_of is not None else prog
        message = exc.format_message().strip().splitlines()[0] if exc.format_message().strip() else "bad usage"
        fail(where, message.removesuffix(" Choose from:"))


def namespace(values: Mapping[str, Any]) -> types.SimpleNamespace:
    """A command's parsed values as attributes (``args.jurisdiction``), each repeated option as a list."""
    return types.SimpleNamespace(**{k: list(v) if isinstance(v, tuple) else v for k, v in values.items()})


# --------------------------------------------------------------------------- the shared options


def jurisdiction_option(required: bool = True, default: str | None = None) -> Callable[[F], F]:
    """``--jurisdiction`` (one of the bundled packs)."""
    return click.option("--jurisdiction", type=Choice(JURISDICTIONS), required=required, default=default,
                        help=f"the rule pack: {', '.join(JURISDICTIONS)}")


def dem_option(help: str) -> Callable[[F], F]:
    """``--dem DEM``: a raster GDAL reads."""
    return click.option("--dem", type=Path, metavar="DEM", help=help)


def dem_z_units_option(help: str, default: str | None = None, choices: Sequence[str] = USER_Z_UNITS) -> Callable[[F], F]:
    """``--dem-z-units``: the DEM's elevation unit."""
    return click.option("--dem-z-units", type=Choice(tuple(choices)), default=default, help=help)


def project_class_option(help: str, default: str | None = None) -> Callable[[F], F]:
    """``--class``: the project class (``args.project_class``)."""
    return click.option("--class", "project_class", type=Choice(PROJECT_CLASSES), default=default, help=help)


#: The option naming each stated accuracy (``AccuracyError.part``), for the one-line refusal.
ACCURACY_OPTIONS = {"horizontal": "--accuracy", "dem_vertical": "--dem-vertical-accuracy-ft"}


def accuracy_options() -> Callable[[F], F]:
    """``--accuracy ROLE=FT`` (repeatable, ``args.accuracy``) and ``--dem-vertical-accuracy-ft FT``: the stated accuracy.

    As :class:`~stormwater_plugin.services.site_source.ReviewOptions` takes it (``accuracy``, ``dem_vertical_accuracy_ft``).
    """

    def declare(f: F) -> F:
        f = click.option("--dem-vertical-accuracy-ft", type=float, metavar="FT", help="the DEM's vertical accuracy in feet at 95%")(f)
        return click.option("--accuracy", multiple=True, metavar="ROLE=FT",
                            help="horizontal accuracy of a role's features in feet at 95% (repeatable; a feature's accuracy_ft field wins)")(f)

    return declare


def site_parcel_option(help: str = "id of the site parcel (default: is_site, else the only parcel)") -> Callable[[F], F]:
    """``--site-parcel ID``."""
    return click.option("--site-parcel", metavar="ID", help=help)


def layer_option(help: str = "take a role from any OGR source (repeatable)") -> Callable[[F], F]:
    """``--layer ROLE=PATH[:LAYER]``, repeatable (``args.layer``, a list)."""
    return click.option("--layer", multiple=True, metavar="ROLE=PATH[:LAYER]", help=help)


def out_option(help: str, metavar: str | None = None, path: bool = True) -> Callable[[F], F]:
    """``--out``, required: the output folder or file (a ``Path``; the text as given with ``path=False``)."""
    return click.option("--out", type=Path if path else str, required=True, metavar=metavar or ("PATH" if path else "TEXT"), help=help)


def quiet_option(help: str) -> Callable[[F], F]:
    """``--quiet``."""
    return click.option("--quiet", is_flag=True, help=help)


def version_option() -> Callable[[F], F]:
    """``--version``: ``stormwater-check X.Y.Z``."""
    return click.version_option(__version__, "--version", message="stormwater-check %(version)s")
