"""Entry point of the ``asymptotics`` command.

Commands are discovered: every module in :mod:`asymptotics.cli.commands` exposes
``register(app)``; command modules import the theory and the simulator inside the command, so
``--help`` and usage errors cost no more than typer itself.

Every error a user can cause ends as **one line on stderr** and exit status 2: the library's
own errors (:class:`~asymptotics.errors.AsymptoticsError`: bad parameters, non-convergence,
memory pre-flight) and command-line usage errors (unknown option or command, missing option,
a value of the wrong type). Usage errors are recognised through the installed typer: typer ≥ 0.29
vendors click as ``typer._click`` and no longer installs click, so the click exception classes
are taken from ``typer.BadParameter``'s class hierarchy, never imported from ``click``.
"""

from __future__ import annotations

import gc
import importlib
import inspect
import pkgutil
import re
import sys

import typer

from .._version import __version__
from ..errors import AsymptoticsError, shorten

__all__ = ["app", "main", "usage_error_line", "click_exception_class"]

app = typer.Typer(
    name="asymptotics",
    help="Exact high-dimensional theory of feature learning after one gradient step, and a simulator to check it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool):
    if value:
        typer.echo(f"asymptotics {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version."),
):
    """asymptotics: theory curves, simulations and their comparison."""


def _register_all() -> None:
    from . import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{commands.__name__}.{info.name}")
        mod.register(app)


_register_all()


# ---- usage errors through the installed typer ---------------------------------------------------
def _base(name: str) -> type:
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == name:
            return cls
    raise RuntimeError(f"typer.BadParameter has no base class {name}")  # pragma: no cover


def click_exception_class() -> type:
    """The ``ClickException`` class of the click that typer uses (``typer._click`` in typer ≥ 0.29,
    ``click`` before), found without importing click."""
    return _base("ClickException")


def _path(ctx) -> str:
    return getattr(ctx, "command_path", None) or "asymptotics"


def _options(ctx) -> list[str]:
    cmd = getattr(ctx, "command", None)
    names: list[str] = []
    for p in getattr(cmd, "params", []):
        if getattr(p, "param_type_name", "") == "option":
            names += [o for o in list(p.opts) + list(p.secondary_opts) if o.startswith("--")]
    return names + ["--help"]


def _commands(ctx) -> list[str]:
    cmd = getattr(ctx, "command", None)
    try:
        return list(cmd.list_commands(ctx))
    except Exception:
        return []


def _param_name(param) -> str:
    opts = [o for o in getattr(param, "opts", []) if o.startswith("--")]
    if opts:
        return opts[0]
    return str(getattr(param, "human_readable_name", None) or getattr(param, "name", "argument")).upper()


def _one_line(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= 600 else text[:599] + "…"


def _value_in(argv: list[str], names: list[str]) -> str | None:
    """The value given to one of the options ``names`` on the command line ``argv`` (the last)."""
    found = None
    for i, tok in enumerate(argv):
        for n in names:
            if tok == n and i + 1 < len(argv):
                found = argv[i + 1]
            elif tok.startswith(n + "="):
                found = tok[len(n) + 1:]
    return found


def _kind_of_value(message: str) -> str:
    low = message.lower()
    if "integer" in low:
        return "an integer"
    if "float" in low or "number" in low:
        return "a number"
    return ""


def usage_error_line(exc, argv: list[str] | None = None) -> str:
    """The one-line message of a click/typer usage error: what was wrong (the option or command,
    the value, found in ``argv`` when the error does not carry it) and what is valid."""
    ctx = getattr(exc, "ctx", None)
    where = _path(ctx)
    kind = type(exc).__name__
    message = getattr(exc, "message", None) or str(exc)
    if kind == "NoSuchOption":
        opt = exc.option_name
        guess = sorted(getattr(exc, "possibilities", None) or [])
        hint = f"; did you mean {' or '.join(guess)}?" if guess else ""
        return _one_line(f"no such option {opt} for '{where}'{hint} (valid options: {', '.join(_options(ctx))})")
    if kind == "MissingParameter":
        param = getattr(exc, "param", None)
        name = _param_name(param) if param is not None else "a required value"
        help_text = getattr(param, "help", None)
        return _one_line(f"missing {name} for '{where}'" + (f": {name} is {help_text}" if help_text else ""))
    if kind == "BadParameter" or kind.endswith("BadParameter"):
        param = getattr(exc, "param", None)
        name = getattr(exc, "param_hint", None) or (_param_name(param) if param is not None else "a value")
        if isinstance(name, (list, tuple)):
            name = " / ".join(name)
        names = [o for o in getattr(param, "opts", []) if o.startswith("-")]
        value = _value_in(argv or [], names) if names else None
        valid = _kind_of_value(message)
        if value is not None and valid:
            return _one_line(f"invalid {name}={shorten(value)} for '{where}': {name} must be {valid}")
        if value is not None:
            return _one_line(f"invalid {name}={shorten(value)} for '{where}': {message}")
        return _one_line(f"invalid value for {name} of '{where}': {message}")
    if kind == "BadOptionUsage":
        opt = getattr(exc, "option_name", "")
        if "requires" in message:
            return _one_line(f"option {opt} needs a value (see --help)")
        return _one_line(f"{message} (option {opt}; see --help)")
    m = re.match(r"No such command '(.*)'", message)
    if m:
        return _one_line(f"no such command {m.group(1)!r} for '{where}' (valid commands: {', '.join(_commands(ctx))})")
    m = re.match(r"Got unexpected extra argument(?:s|\(s\))? \((.*)\)", message)
    if m:
        return _one_line(f"unexpected argument(s) {m.group(1)!r} for '{where}' (options are written --name value; "
                         f"see '{where} --help')")
    return _one_line(f"{message} ('{where}'; see '{where} --help')")


# ---- help rendering -------------------------------------------------------------------------------
_RST = [
    (re.compile(r":(?:func|class|mod|meth|attr|data|obj|ref):`~?([^`]+)`"), r"\1"),
    (re.compile(r"``([^`]+)``"), r"\1"),
]


def plain_help(text: str | None) -> str | None:
    """Help text without reStructuredText markup (``name`` → name, :func:`f` → f).

    >>> plain_help("the ``ck_gram_outlier`` of :func:`~asymptotics.theory.spike`")
    'the ck_gram_outlier of asymptotics.theory.spike'
    """
    if not text:
        return text
    for pattern, repl in _RST:
        text = pattern.sub(repl, text)
    paragraphs = []
    for para in inspect.cleandoc(text).split("\n\n"):
        lines = para.split("\n")
        indented = any(line.startswith((" ", "\t")) for line in lines[1:])
        paragraphs.append(para if indented else " ".join(line.strip() for line in lines))
    return "\n\n".join(paragraphs).replace("::\n", ":\n")


def _tidy(cmd, seen: set) -> None:
    """Plain help texts, and no type label on flags (typer ≥ 0.29 shows ``<bool>`` on each)."""
    if id(cmd) in seen:
        return
    seen.add(id(cmd))
    cmd.help = plain_help(cmd.help)
    if getattr(cmd, "short_help", None):
        cmd.short_help = plain_help(cmd.short_help)
    params = list(getattr(cmd, "params", []))
    try:
        helper = cmd.get_help_option(cmd.context_class(cmd))
    except Exception:  # pragma: no cover - older click
        helper = None
    if helper is not None:
        params.append(helper)
    for p in params:
        if getattr(p, "help", None):
            p.help = plain_help(p.help)
        if getattr(p, "is_flag", False) and not getattr(p, "count", False):
            p.metavar = ""
        elif getattr(p, "param_type_name", "") == "option" and p.metavar is None and p.name:
            p.metavar = p.name.upper()
    for sub in getattr(cmd, "commands", {}).values():
        _tidy(sub, seen)


_COMMAND = None


def command():
    """The click command of :data:`app`, built once, with tidied help."""
    global _COMMAND
    if _COMMAND is None:
        _COMMAND = typer.main.get_command(app)
        _tidy(_COMMAND, set())
    return _COMMAND


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every error a user can cause is one line on stderr and exit status 2."""
    # A command is a short process that imports numba (and perhaps sympy) and builds result rows:
    # ~10^6 long-lived objects and no cyclic garbage worth collecting early. CPython's default
    # thresholds (700, 10, 10) walk them again and again (≈ 0.1–0.35 s of a 2–3 s command); larger
    # thresholds defer the collector, they never turn it off.
    gc.set_threshold(50_000, 20, 100)
    click_error = click_exception_class()
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        rv = command().main(args=argv, prog_name="asymptotics", standalone_mode=False)
    except AsymptoticsError as exc:
        typer.echo(f"error: {_one_line(exc)}", err=True)
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        typer.echo("aborted", err=True)
        return 130
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130
    except click_error as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # `asymptotics` alone: the help
            typer.echo(exc.format_message(), err=True)
            return 2
        if type(exc).__name__ in ("Exit",):  # pragma: no cover
            return 0
        typer.echo(f"error: {usage_error_line(exc, args)}", err=True)
        return 2
    # with standalone_mode=False click returns the code of a typer.Exit instead of raising it
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
