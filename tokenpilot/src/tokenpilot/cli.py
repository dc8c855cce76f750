"""The ``tokenpilot`` command line: ``app`` registers each feature module's command functions."""

from __future__ import annotations

import typer

from tokenpilot import (
    __version__,
    cli_audit,
    cli_catalog,
    cli_cost,
    cli_epp,
    cli_gateway,
    cli_llama,
    cli_plan,
    cli_scenario,
    cli_sim,
    cli_tradeoff,
)
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
    from tokenpilot.output import log

    emit(run_demo(progress=log), fmt, render)


app.command()(cli_cost.cost)
app.command()(cli_cost.calibrate)
app.command()(cli_audit.audit)
app.command()(cli_gateway.serve)
app.command("sim-backend")(cli_gateway.sim_backend)
app.command()(cli_gateway.bench)
app.command()(cli_epp.epp)
app.command("llama-fleet")(cli_llama.llama_fleet)
app.command()(cli_scenario.scenario)
app.command("simulate")(cli_sim.simulate_cmd)
app.command("compare")(cli_sim.compare_cmd)
app.command("plan")(cli_plan.plan_cmd)
app.command()(cli_catalog.gpus)
app.command()(cli_catalog.models)
app.command()(cli_tradeoff.tradeoff)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
