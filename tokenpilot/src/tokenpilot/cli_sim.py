"""``tokenpilot simulate`` and ``tokenpilot compare``: the fleet simulator on the command line."""

from __future__ import annotations

from pathlib import Path

import typer

from tokenpilot.cluster import (
    DEFAULT_FLEET,
    DEFAULT_LOAD,
    DEFAULT_WORKLOAD,
    WORKLOADS,
    FleetError,
    FleetSpec,
    compute_metrics,
    fleet_capacity,
    load_fleet,
    simulate,
)
from tokenpilot.cluster.fleets import resolve_workload
from tokenpilot.hardware import GiB
from tokenpilot.output import FORMAT_OPTION, Format, emit, fail, log, progress_bar
from tokenpilot.policy.router import Router, RouterError
from tokenpilot.policy.routers import make_router
from tokenpilot.report import check_report_dir, compare_table, metrics_json, simulate_text
from tokenpilot.workload import (
    Request,
    WorkloadError,
    expected_count,
    load_workload,
    mean_rate,
    scale_to_rate,
)

DEFAULT_ROUTERS = "round-robin,least-requests,earliest-completion"

FLEET_OPTION = typer.Option(DEFAULT_FLEET, "--fleet", help="Fleet YAML file or built-in name.")
WORKLOAD_OPTION = typer.Option(
    DEFAULT_WORKLOAD, "--workload", "-w",
    help=f"Workload spec or built-in name ({', '.join(WORKLOADS)}).")
LOAD_OPTION = typer.Option(
    None, "--load", help="Scale arrivals to this fraction of the fleet's estimated capacity "
    f"(default {DEFAULT_LOAD} for built-in workloads, else the workload's own rate).")
SLO_TTFT = typer.Option(1.0, "--slo-ttft", help="TTFT SLO in seconds (for goodput).")
SLO_TPOT = typer.Option(0.1, "--slo-tpot", help="TPOT SLO in seconds (for goodput).")
PROGRESS = typer.Option(False, "--progress", help="Show a progress bar even off a terminal.")
CALIBRATION = typer.Option(None, "--calibration", help="A profile from `tokenpilot calibrate "
                           "--fit` for every instance (default: each GPU family's).")


# Memory a run takes per request, measured with tracemalloc on 100k Poisson requests through the
# mixed fleet (tokenpilot/benchmarks/mem_per_request.py): the workload ~210 B, the run's peak
# ~1,180 B (RSS grows ~1,370 B per request), a finished run kept for the table or the report
# ~310 B. Rounded up, so the bound errs on the side of refusing a run that would swap.
BYTES_PER_REQUEST = 1500
BYTES_PER_KEPT_RUN = 400
MEMORY_SHARE = 0.8  # of the memory available when the run starts
MAX_MEMORY = typer.Option(None, "--max-memory", help="Refuse a run whose estimated memory "
                          "exceeds this many GiB (default: 80% of the available memory).")


def available_memory() -> int | None:
    """Bytes of memory available to a new run (Linux's MemAvailable), None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_memory(workload: str, runs: int, max_gib: float | None) -> None:
    """Refuse, before building it, a workload whose run would not fit in memory."""
    if max_gib is not None and not max_gib > 0:
        raise fail(f"--max-memory must be positive, got {max_gib}")
    try:
        count = expected_count(resolve_workload(workload))
    except WorkloadError as exc:
        raise fail(str(exc)) from None
    if count is None:
        return
    need = count * (BYTES_PER_REQUEST + (runs - 1) * BYTES_PER_KEPT_RUN)
    if max_gib is not None:
        bound, why = max_gib * GiB, "--max-memory"
    else:
        avail = available_memory()
        if avail is None:
            return
        bound, why = avail * MEMORY_SHARE, (f"{MEMORY_SHARE:.0%} of the {avail / GiB:.1f} GiB "
                                            "available; --max-memory sets it")
    if need > bound:
        fits = int(bound // (need / count))
        raise fail(f"workload {workload!r} makes ~{count:,} requests; simulating them "
                   f"{'under ' + str(runs) + ' routers ' if runs > 1 else ''}needs about "
                   f"{need / GiB:.1f} GiB (~{need / count:,.0f} bytes per request), above the "
                   f"bound of {bound / GiB:.1f} GiB ({why}); lower n= or duration= to at most "
                   f"~{fits:,} requests")


def _check_slos(slo_ttft: float, slo_tpot: float) -> None:
    for name, value in (("--slo-ttft", slo_ttft), ("--slo-tpot", slo_tpot)):
        if not 0 < value < float("inf"):
            raise fail(f"{name} must be a positive number of seconds, got {value:g}; no "
                       "request can meet an SLO of zero")


def _prepare(fleet_spec: str, workload: str, load: float | None, max_memory: float | None,
             runs: int = 1, calibration: Path | None = None,
             ) -> tuple[FleetSpec, list[Request], dict]:
    try:
        fleet = load_fleet(fleet_spec)
    except FleetError as exc:
        raise fail(str(exc)) from None
    if calibration is not None:
        from tokenpilot.calibrate.profile import ProfileError, with_profile

        try:
            fleet, warnings = with_profile(fleet, calibration)
        except ProfileError as exc:
            raise fail(str(exc)) from None
        for w in warnings:
            log(f"warning: {w}")
    check_memory(workload, runs, max_memory)
    name = workload.strip().partition("@")[0]
    if load is None and name in WORKLOADS:
        load = DEFAULT_LOAD
    if load is not None and not load > 0:
        raise fail(f"--load must be positive, got {load}")
    try:
        requests = load_workload(resolve_workload(workload))
        if len(requests) < 2:
            raise WorkloadError(f"workload {workload!r} has {len(requests)} request(s); "
                                "a run needs at least two")
        capacity = fleet_capacity(fleet, requests)
        if load is not None:
            requests = scale_to_rate(requests, load * capacity)
        rate = mean_rate(requests)
    except (WorkloadError, FleetError) as exc:
        raise fail(str(exc)) from None
    context = {"fleet": fleet.to_dict(), "fleet_desc": fleet.describe(), "workload": workload,
               "capacity_rps": capacity, "rate_rps": rate, "load": rate / capacity}
    return fleet, requests, context


def _router(spec: str) -> Router:
    try:
        return make_router(spec)
    except RouterError as exc:
        raise fail(str(exc)) from None


def simulate_cmd(
    fleet: str = FLEET_OPTION, workload: str = WORKLOAD_OPTION,
    router: str = typer.Option("earliest-completion", "--router", "-r",
                               help="Router: NAME, NAME:key=value,... or a composition file."),
    slo_ttft: float = SLO_TTFT, slo_tpot: float = SLO_TPOT, load: float | None = LOAD_OPTION,
    calibration: Path | None = CALIBRATION, max_memory: float | None = MAX_MEMORY,
    progress: bool = PROGRESS, fmt: Format = FORMAT_OPTION,
) -> None:
    """Run a workload through a simulated fleet under one router; print its metrics."""
    _check_slos(slo_ttft, slo_tpot)
    chosen = _router(router)  # its errors before the workload is made
    fleet_spec, requests, context = _prepare(fleet, workload, load, max_memory,
                                             calibration=calibration)
    with progress_bar(f"simulating {chosen.name}", progress) as cb:
        sim = simulate(fleet_spec, requests, chosen, progress=cb)
    metrics = compute_metrics(sim, slo_ttft, slo_tpot)
    emit(metrics_json(metrics, **context), fmt, simulate_text)


def compare_cmd(
    routers: str = typer.Option(DEFAULT_ROUTERS, "--routers",
                                help="Comma-separated router specs to run on the same workload."),
    fleet: str = FLEET_OPTION, workload: str = WORKLOAD_OPTION,
    slo_ttft: float = SLO_TTFT, slo_tpot: float = SLO_TPOT, load: float | None = LOAD_OPTION,
    report: Path | None = typer.Option(None, "--report",
                                       help="Write an HTML report with plots into this folder."),
    calibration: Path | None = CALIBRATION, max_memory: float | None = MAX_MEMORY,
    progress: bool = PROGRESS, fmt: Format = FORMAT_OPTION,
) -> None:
    """Run the same workload under each router and compare them in one table."""
    specs = [s.strip() for s in routers.split(",") if s.strip()]
    if not specs:
        raise fail("--routers needs at least one router name")
    chosen = [_router(s) for s in specs]  # all errors before any long run
    _check_slos(slo_ttft, slo_tpot)
    if report is not None and (why := check_report_dir(report)):
        raise fail(why)
    fleet_spec, requests, context = _prepare(fleet, workload, load, max_memory, len(specs),
                                             calibration)
    log(f"{fleet_spec.describe()}; {len(requests)} requests at {context['rate_rps']:.2f} req/s "
        f"(load {context['load']:.2f} of ~{context['capacity_rps']:.1f} req/s)")
    sims, metrics = [], []
    for spec, r in zip(specs, chosen, strict=True):
        with progress_bar(f"simulating {spec}", progress) as cb:
            sim = simulate(fleet_spec, requests, r, progress=cb)
        sim.router = spec
        sims.append(sim)
        metrics.append(compute_metrics(sim, slo_ttft, slo_tpot))
        log(f"{spec}: done in {sim.wall_s:.1f}s")
    doc = {**context, "runs": [m.to_dict() for m in metrics]}
    if report is not None:
        try:
            index = _write(report, sims, metrics, context)
        except OSError as exc:
            raise fail(f"cannot write report to {report}: {exc.strerror or exc}") from None
        log(f"report written to {index}")
        doc["report"] = str(index)
    emit(doc, fmt, lambda d: f"{context['fleet_desc']}, {len(requests)} requests at "
         f"{context['rate_rps']:.2f} req/s (load {context['load']:.2f})\n"
         + compare_table(metrics))


def _write(report: Path, sims, metrics, context: dict) -> Path:
    from tokenpilot.report import write_report

    ctx = {"fleet": context["fleet_desc"], "workload": context["workload"],
           "rate": f"{context['rate_rps']:.2f} req/s (load {context['load']:.2f} of "
                   f"~{context['capacity_rps']:.1f} req/s)"}
    return write_report(report, sims, metrics, context=ctx)
