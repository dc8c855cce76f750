"""``tokenpilot plan``: the cheapest fleet that meets an SLO, verified by simulation; with
``--check FLEET.yaml``, the headroom of a given fleet (``tokenpilot.plan``)."""

from __future__ import annotations

from pathlib import Path

import typer
import yaml

from tokenpilot.cli_sim import MAX_MEMORY, check_memory
from tokenpilot.cluster import FleetError, load_fleet
from tokenpilot.cluster import pd as pd_sim
from tokenpilot.cluster.fleets import resolve_workload
from tokenpilot.costmodel import DoesNotFitError
from tokenpilot.models import UnknownModelError, get_model
from tokenpilot.output import FORMAT_OPTION, Format, emit, fail, log
from tokenpilot.plan import (
    EXECUTORS,
    Headroom,
    Kind,
    Plan,
    PlanError,
    Sweep,
    SweepError,
    headroom,
    make_plan,
    parse_gpus,
    parse_slo,
    parse_tps,
)
from tokenpilot.plan.slo import load_prices, price_of
from tokenpilot.plan.verify import DEFAULT_ROUTER
from tokenpilot.policy.router import RouterError
from tokenpilot.policy.routers import make_router
from tokenpilot.report import check_report_dir
from tokenpilot.report.tables import table
from tokenpilot.workload import Request, WorkloadError, load_workload

DEFAULT_GPUS = "h100-sxm,a100-80gb,l40s"


def plan_cmd(
    workload: str = typer.Option(..., "--workload", "-w", help="Workload spec (e.g. "
                                 "azure-conv@rate=20) or built-in name."),
    slo: str = typer.Option("ttft=1s,tpot=100ms", "--slo",
                            help="ttft=DURATION,tpot=DURATION[,attainment=0.99]."),
    gpus: str = typer.Option(DEFAULT_GPUS, "--gpus", help="Candidate GPUs, comma-separated."),
    tp: str = typer.Option("1", "--tp", help="Candidate tensor-parallel degrees, e.g. 1,2."),
    prices: Path | None = typer.Option(None, "--prices", help="YAML/JSON {gpu: dollars per "
                                       "GPU-hour} (default: the hardware catalog's prices)."),
    model: str = typer.Option("llama-3.1-8b", "--model", help="The model every instance "
                              "serves (catalog name or config.json)."),
    engine: str = typer.Option("vllm-v1", "--engine", help="Engine profile of the instances."),
    pd: bool = typer.Option(False, "--pd", help="Also plan prefill and decode pools sized "
                            "separately (disaggregated fleets)."),
    router: str = typer.Option(DEFAULT_ROUTER, "--router", help="Router for the verifying "
                               "simulations."),
    check: str | None = typer.Option(None, "--check", help="A fleet file: report its headroom "
                                     "(the rate scale at which the SLO breaks) instead."),
    executor: str = typer.Option("local", "--executor", help=f"Where sweeps run: "
                                 f"{' | '.join(EXECUTORS)} (ray needs the package's ray extra)."),
    workers: int | None = typer.Option(None, "--workers", help="Local processes (default: "
                                       "the cores this process may use)."),
    ray_address: str | None = typer.Option(None, "--ray-address", help="ray.init address "
                                           "(default: a local Ray; 'auto': the running one)."),
    alternatives: int = typer.Option(2, "--alternatives", help="Next-cheapest MILP fleets to "
                                     "verify beside the optimum."),
    seed: int = typer.Option(0, "--seed", help="Seed of the profiling probes."),
    out: Path | None = typer.Option(None, "--out", help="Write the chosen fleet file here."),
    report: Path | None = typer.Option(None, "--report", help="Write an HTML report (plan, "
                                       "cost-vs-attainment plot, fleet.yaml) into this folder."),
    max_memory: float | None = MAX_MEMORY,
    fmt: Format = FORMAT_OPTION,
) -> None:
    """The cheapest fleet that meets an SLO for a workload: profiled per request-size bucket,
    sized by a MILP, verified by simulating the whole workload (and resized where the
    simulation disagrees)."""
    try:
        target = parse_slo(slo)
        sweep = Sweep(executor, workers, ray_address)
        if workers is not None and workers < 1:
            raise PlanError(f"--workers must be at least 1, got {workers}")
        if alternatives < 0:
            raise PlanError(f"--alternatives must be 0 or more, got {alternatives}")
        make_router(router)
    except (PlanError, SweepError, RouterError) as exc:
        raise fail(str(exc)) from None
    if report is not None and (why := check_report_dir(report)):
        raise fail(why)
    if check is not None:
        try:
            fleet = load_fleet(check)
            if pd_sim.is_disaggregated(fleet):
                pd_sim.check_fleet(fleet)
        except FleetError as exc:
            raise fail(str(exc)) from None
        requests = _workload(workload, sweep.workers, max_memory)
        try:
            room = headroom(requests, fleet, target, sweep, router=router, log=log)
        except SweepError as exc:
            raise fail(str(exc)) from None
        doc = _headroom_doc(room, target, workload, requests)
        if report is not None:
            from tokenpilot.report.plan import write_headroom_report

            doc["report"] = str(_written(lambda: write_headroom_report(report, doc), report))
        emit(doc, fmt, _headroom_text)
        return
    try:
        kinds, costs = _kinds(gpus, tp, model, engine, load_prices(prices))
    except PlanError as exc:
        raise fail(str(exc)) from None
    requests = _workload(workload, sweep.workers, max_memory)
    try:
        plan = make_plan(requests, target, kinds, costs, sweep, pd=pd, router=router,
                         alternatives=alternatives, seed=seed, log=log)
    except (PlanError, SweepError) as exc:
        raise fail(str(exc)) from None
    doc = plan_doc(plan, workload, len(requests), sweep.describe())
    fleet_yaml = yaml.safe_dump(doc["fleet"], sort_keys=False) if plan.chosen else ""
    if out is not None and plan.chosen is not None:
        try:
            out.write_text(fleet_yaml, encoding="utf-8")
        except OSError as exc:
            raise fail(f"cannot write {out}: {exc.strerror or exc}") from None
        log(f"fleet file written to {out}")
        doc["fleet_file"] = str(out)
    if report is not None:
        from tokenpilot.report.plan import write_plan_report

        doc["report"] = str(_written(lambda: write_plan_report(report, doc, fleet_yaml), report))
    emit(doc, fmt, lambda d: plan_text(d, fleet_yaml))
    if plan.chosen is None:
        raise fail(doc["verdict"], code=1)


def _written(write, report: Path) -> Path:
    try:
        index = write()
    except OSError as exc:
        raise fail(f"cannot write report to {report}: {exc.strerror or exc}") from None
    log(f"report written to {index}")
    return index


def _kinds(gpus: str, tps: str, model: str, engine: str, prices: dict[str, float],
           ) -> tuple[list[Kind], list[float]]:
    """The candidate kinds (GPU x TP) and their dollars per hour; kinds the model does not
    fit on are dropped with a warning (all dropped: an error)."""
    from tokenpilot.engines import UnknownEngineError, get_engine

    names, degrees = parse_gpus(gpus), parse_tps(tps)
    try:
        spec = get_model(model)
        get_engine(engine)
    except (UnknownModelError, UnknownEngineError, ValueError) as exc:
        raise PlanError(str(exc).strip("'\"")) from None
    bad = [t for t in degrees if spec.heads % t]
    if bad:
        raise PlanError(f"--tp {bad[0]} does not divide {spec.name}'s {spec.heads} attention "
                        "heads")
    kinds, costs, dropped = [], [], []
    for g in names:
        price = price_of(g, prices)
        for t in degrees:
            kind = Kind(g, t, spec.name if model == spec.name else model, engine)
            try:
                s = kind.spec()
                s.check_fits(s.cost_model())
            except (DoesNotFitError, ValueError) as exc:
                dropped.append(f"{kind.label}: {exc}")
                continue
            kinds.append(kind)
            costs.append(price * t)
    for d in dropped:
        log(f"warning: skipping {d}")
    if not kinds:
        raise PlanError(f"{model} fits on none of the candidates ({'; '.join(dropped)}); add a "
                        "larger GPU or a larger --tp")
    return kinds, costs


def _workload(workload: str, workers: int, max_memory: float | None) -> list[Request]:
    check_memory(workload, max(1, workers), max_memory)
    try:
        requests = load_workload(resolve_workload(workload))
    except WorkloadError as exc:
        raise fail(str(exc)) from None
    if len(requests) < 2:
        raise fail(f"workload {workload!r} has {len(requests)} request(s); a plan needs at "
                   "least two")
    return requests


def _tried_row(plan: Plan, t) -> dict:
    c, v = t.candidate, t.verdict
    return {"fleet": c.describe(), "source": c.source, "cost_per_hour": c.cost_per_hour,
            "cost_per_million_tokens": plan.per_million_tokens(c.cost_per_hour),
            "attainment": v.attainment, "margin": v.margin, "meets": v.meets,
            "ttft_p99_s": v.ttft_p99, "tpot_p99_s": v.tpot_p99, "history": list(c.history),
            "groups": [g.to_dict() for g in v.groups], "sim_wall_s": v.wall_s,
            "chosen": t is plan.chosen}


def plan_doc(plan: Plan, workload: str, n: int, where: str) -> dict:
    """The JSON document of a plan (``--format json``)."""
    slo = plan.slo
    tried = sorted(plan.tried, key=lambda t: (t.candidate.cost_per_hour, -t.verdict.attainment))
    doc: dict = {
        "workload": workload, "requests": n, "rate_rps": plan.rate_rps,
        "tokens_per_request": plan.tokens_per_request,
        "slo": {"ttft_s": slo.ttft_s, "tpot_s": slo.tpot_s, "attainment": slo.attainment},
        "executor": where, "timings": plan.timings,
        "buckets": [b.to_dict() for b in plan.buckets],
        "profiles": [p.to_dict() for p in plan.points],
        "candidates": [_tried_row(plan, t) for t in tried],
        "chosen": None, "fleet": None, "baseline": None, "saving": None,
    }
    if plan.chosen is None:
        closest = max(plan.tried, key=lambda t: t.verdict.attainment)
        doc["verdict"] = (f"no candidate met the SLO ({slo.describe()}); the closest, "
                          f"{closest.candidate.describe()}, met {closest.verdict.attainment:.2%}"
                          "; loosen the SLO or add a faster GPU")
        return doc
    chosen = _tried_row(plan, plan.chosen)
    doc["chosen"] = chosen
    doc["fleet"] = plan.chosen.candidate.fleet_doc()
    hist = plan.chosen.candidate.history
    grown = sum("added" in h for h in hist)
    how = (f" (the MILP's answer missed the SLO in simulation: grown by {grown} instance(s))"
           if grown else " (resized from the MILP's answer)" if hist else "")
    doc["verdict"] = (f"{chosen['fleet']}{how} meets the SLO at ${chosen['cost_per_hour']:.2f}"
                      f"/h")
    base = plan.best_single()
    if base is not None:
        doc["baseline"] = _tried_row(plan, base)
        save = base.candidate.cost_per_hour - plan.chosen.candidate.cost_per_hour
        doc["saving"] = {"per_hour": save, "share": save / base.candidate.cost_per_hour}
    return doc


def _pct(x: float) -> str:
    return f"{x * 100:.2f}%"


def plan_text(d: dict, fleet_yaml: str) -> str:
    slo = d["slo"]
    t = d["timings"]
    lines = [f"plan for {d['workload']}: {d['requests']} requests at {d['rate_rps']:.2f} req/s; "
             f"SLO TTFT <= {slo['ttft_s']:g}s, TPOT <= {slo['tpot_s'] * 1e3:g}ms for "
             f"{slo['attainment']:.1%} of requests",
             f"{len(d['buckets'])} buckets, {len(d['profiles'])} rate searches "
             f"({sum(p['probes'] for p in d['profiles'])} probes) in {t['profile_s']:.1f}s, "
             f"MILP {t['solve_s']:.2f}s, {len(d['candidates'])} verifying simulations "
             f"{t['verify_s']:.1f}s, on {d['executor']}", ""]
    rows = []
    for c in d["candidates"]:
        rows.append([("* " if c["chosen"] else "  ") + c["fleet"], c["source"],
                     f"{c['cost_per_hour']:.2f}", f"{c['cost_per_million_tokens']:.3f}",
                     _pct(c["attainment"]), f"{c['margin'] * 100:+.2f}",
                     "met" if c["meets"] else "MISSED", f"{c['ttft_p99_s'] * 1e3:.0f}",
                     f"{c['tpot_p99_s'] * 1e3:.1f}"])
    lines.append(table(["fleet", "from", "$/h", "$/Mtok", "attainment", "vs target (pts)",
                        "SLO", "TTFT p99 ms", "TPOT p99 ms"], rows))
    lines.append("$/Mtok: dollars per million prompt + output tokens at the workload's rate; "
                 "vs target: attainment minus the target, in percentage points")
    lines.append("")
    chosen = d["chosen"]
    if chosen is None:
        lines.append(d["verdict"])
        return "\n".join(lines)
    lines.append(d["verdict"])
    lines.append(f"plan: {chosen['fleet']}  ${chosen['cost_per_hour']:.2f}/h, "
                 f"${chosen['cost_per_million_tokens']:.3f} per million tokens, attainment "
                 f"{_pct(chosen['attainment'])} ({chosen['margin'] * 100:+.2f} points)")
    for h in chosen["history"]:
        lines.append(f"  resized: {h}")
    base, save = d["baseline"], d["saving"]
    if base is not None:
        lines.append(f"best single-GPU-type fleet meeting the SLO: {base['fleet']} "
                     f"${base['cost_per_hour']:.2f}/h; the plan saves ${save['per_hour']:.2f}/h "
                     f"({save['share']:.1%})")
    else:
        lines.append("no single-GPU-type fleet met the SLO among those tried")
    lines += ["", "fleet file (tokenpilot simulate --fleet FILE; --out FILE writes it):",
              fleet_yaml.rstrip()]
    return "\n".join(lines)


def _headroom_doc(room: Headroom, slo, workload: str, requests: list[Request]) -> dict:
    from tokenpilot.workload import mean_rate

    first = room.first_failure()
    sat = first.bottleneck() if first is not None else None
    rate = mean_rate(requests)
    return {
        "fleet": room.fleet, "workload": workload, "requests": len(requests), "rate_rps": rate,
        "slo": {"ttft_s": slo.ttft_s, "tpot_s": slo.tpot_s, "attainment": slo.attainment},
        "headroom": room.scale, "breaks_at": room.failed_at,
        "max_rate_rps": room.scale * rate, "below_range": room.below_range,
        "above_range": room.above_range,
        "saturates_first": None if sat is None else {**sat.to_dict(),
                                                     "at_scale": first.scale},
        "runs": [{"scale": v.scale, "attainment": v.attainment, "meets": v.meets,
                  "ttft_p99_s": v.ttft_p99, "tpot_p99_s": v.tpot_p99,
                  "groups": [g.to_dict() for g in v.groups]} for v in room.verdicts],
    }


def _headroom_text(d: dict) -> str:
    slo = d["slo"]
    lines = [f"fleet {d['fleet']}; workload {d['workload']} ({d['requests']} requests at "
             f"{d['rate_rps']:.2f} req/s); SLO TTFT <= {slo['ttft_s']:g}s, TPOT <= "
             f"{slo['tpot_s'] * 1e3:g}ms for {slo['attainment']:.1%}", ""]
    rows = [[f"{r['scale']:.3f}x", f"{r['scale'] * d['rate_rps']:.2f}", _pct(r["attainment"]),
             "met" if r["meets"] else "MISSED", f"{r['ttft_p99_s'] * 1e3:.0f}",
             f"{r['tpot_p99_s'] * 1e3:.1f}"] for r in d["runs"]]
    lines += [table(["scale", "req/s", "attainment", "SLO", "TTFT p99 ms", "TPOT p99 ms"], rows),
              ""]
    if d["below_range"]:
        lines.append(f"the fleet misses the SLO even at {d['breaks_at']:.3g}x the workload's "
                     "rate: it is far too small for this workload")
    elif d["above_range"]:
        lines.append(f"headroom: more than {d['headroom']:.3g}x (the SLO held at every scale "
                     "tried)")
    else:
        lines.append(f"headroom: {d['headroom']:.3f}x the workload's rate "
                     f"({d['max_rate_rps']:.2f} req/s); the SLO breaks by {d['breaks_at']:.3f}x")
    sat = d["saturates_first"]
    if sat is not None:
        role = "" if sat["role"] == "both" else " " + sat["role"]
        lines.append(f"saturates first: {sat['kind']}{role} ({sat['misses']} of its "
                     f"{sat['requests']} requests missed the SLO at "
                     f"{sat['at_scale']:.3f}x, utilisation {sat['utilisation']:.0%})")
    return "\n".join(lines)
