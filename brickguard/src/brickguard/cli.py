"""The ``brickguard`` command line. Each feature module registers its own commands on ``app``."""

from __future__ import annotations

import typer

from brickguard import __version__

app = typer.Typer(
    name="brickguard",
    help="A gate for AI-drafted embedded C: finds what compiles but breaks boards.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"brickguard {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """brickguard: interrupt races, hallucinated SDK APIs, DMA and MISRA checks for firmware C."""


def main() -> None:
    app()


# Command modules register themselves on ``app``; imported last because they import ``app``.
from brickguard import cli_check, cli_sdk  # noqa: E402, F401

if __name__ == "__main__":
    # Under ``python -m`` this file runs as __main__, a second copy of the module: the commands
    # registered themselves on brickguard.cli's ``app``, so run that one.
    from brickguard.cli import main as _main

    _main()
