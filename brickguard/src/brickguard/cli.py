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


@app.command()
def demo() -> None:
    """Run brickguard's main job on the built-in example (what `make demo` runs)."""
    typer.echo(f"brickguard {__version__}: no demo yet; the commands so far:")
    typer.echo(typer.main.get_command(app).get_help(typer.Context(typer.main.get_command(app))))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
