"""The ``tokenpilot`` command line. Each feature module registers its own commands on ``app``."""

from __future__ import annotations

import typer

from tokenpilot import __version__
from tokenpilot.output import FORMAT_OPTION, Format, emit

app = typer.Typer(
    name="tokenpilot",
    help="A token-aware control plane for LLM inference: cost model, fleet simulator, gateway.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tokenpilot {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """tokenpilot: where should this request run, what would happen if, what does it cost."""


@app.command()
def demo(fmt: Format = FORMAT_OPTION) -> None:
    """A mixed simulated GPU fleet behind the gateway: round-robin vs tokenpilot's router."""
    from tokenpilot.demo import render, run_demo

    emit(run_demo(), fmt, render)


# Each command module registers its commands on `app` when imported.
from tokenpilot import (  # noqa: E402,F401
    cli_cost,  # cost, calibrate
    cli_gateway,  # serve, sim-backend, bench
    cli_llama,  # llama-fleet
    cli_scenario,  # scenario
    cli_sim,  # simulate, compare
)


def main() -> None:
    app()


if __name__ == "__main__":
    # Under `python -m`, this file runs as __main__, a second copy of the module; the command
    # modules register on tokenpilot.cli's app, so run that one.
    from tokenpilot.cli import main as _main

    _main()
