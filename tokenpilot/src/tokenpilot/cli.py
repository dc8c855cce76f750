"""The ``tokenpilot`` command line. Each feature module registers its own commands on ``app``."""

from __future__ import annotations

import typer

from tokenpilot import __version__

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
def demo() -> None:
    """Run tokenpilot's main job on built-in defaults (what `make demo` runs)."""
    typer.echo(f"tokenpilot {__version__}: no demo yet; the commands so far:")
    typer.echo(typer.main.get_command(app).get_help(typer.Context(typer.main.get_command(app))))


from tokenpilot import cli_cost  # noqa: E402,F401  (registers cost, calibrate)


def main() -> None:
    app()


if __name__ == "__main__":
    # Under `python -m`, this file runs as __main__, a second copy of the module; the command
    # modules register on tokenpilot.cli's app, so run that one.
    from tokenpilot.cli import main as _main

    _main()
