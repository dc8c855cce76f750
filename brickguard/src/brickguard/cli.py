"""The ``brickguard`` command line: ``app`` registers each feature module's command functions."""

from __future__ import annotations

import typer

from brickguard import __version__, cli_check, cli_demos, cli_init, cli_sdk, cli_soak

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


app.command()(cli_check.check)
app.command()(cli_check.explain)
app.command("rules")(cli_check.list_rules)
app.command()(cli_check.demo)
app.command()(cli_init.init)
app.command("sdk-index")(cli_sdk.sdk_index)
app.command("eval-mutations")(cli_sdk.eval_mutations)
app.command()(cli_soak.soak)
app.add_typer(cli_demos.app, name="demos")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
