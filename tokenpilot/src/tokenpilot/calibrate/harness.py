"""The sim-to-real harness: fit on a real llama.cpp server at low loads, predict another run.

The ground truth is the project's own: SmolLM2-135M on llama.cpp on CPU (``llamafleet``).

1. record two logs at low loads on a server with ``fit_slots`` slots;
2. fit a profile on the ``epyc-milan-core`` hardware entry (``calibrate.fit``);
3. record a third log at a higher load on a server with ``predict_slots`` slots, and replay its
   requests (same arrivals, same server-counted lengths) through the simulator under the profile;
4. compare TTFT and TPOT percentiles, predicted against measured.

The simulated instance runs the ``llama.cpp`` engine profile (``data/engines.yaml``):

- ``-np N`` slots are ``max_num_seqs = N``: at most N requests decode together, the others
  wait in FCFS order (llama.cpp's task queue is FIFO too);
- each slot's ``ctx`` is ``max_model_len``, and the KV pool is ``slots * ctx`` tokens in fixed
  per-slot parts (``kv_pool: slots``, no paging), as the server's ``-c N*ctx`` without a unified
  KV: a request longer than its slot is refused, and nothing is ever preempted;
- llama.cpp processes a waiting prompt in the same batch as the running decodes, in ``n_batch``
  (2048) token pieces: ``max_num_batched_tokens = 2048`` with chunked prefill is the same shape;
- the CPU entry is a serial device (``roofline: serial``): each step streams the weights once
  and computes every token of the batch, so a step of n tokens takes W/bandwidth + n x per-token
  compute. The logs show it: a lone request's TPOT (a one-token step) is about twice its TTFT
  per prompt token, and a two-slot decode step about 1.6 times a one-slot one. With the
  roofline's max() instead, a one-token step cost the same as one prompt token, and no setting
  matched both TTFT and TPOT (the fit left TTFT about +17% and TPOT about -22% on the same log);

The real runs are recorded in the order fit-0, predict, fit-1: the held-out run lies between the
two fitting ones, so contention that drifts over the minutes of a run (the CPU is shared with
other jobs) bears on the fit and the prediction alike. The server's compute thread is watched
while each run is recorded (``calibrate.contention``): the kernel counts how long it waited for
a core another process held. Each log is kept twice, on the wall clock (``NAME.csv``, what the
client saw) and on the server's own clock (``NAME.own.csv``: every instant moved back by the
waits before it, so a latency is what the server's work alone took). The fit is on the own
clocks (the server's costs, not the neighbours' load); the held-out run is simulated on its
own clock and mapped back onto the wall clock through the waits that run met. Beside it: the
comparison on the own clock (contention removed from both sides), and the contention-blind fit
and prediction (wall clocks throughout, as before).

What is still only an approximation:
- Q4_1 weights are 0.625 bytes a weight; the cost model's ``int4`` is 0.5 (``bw_eff`` absorbs
  it, and on this CPU decode is compute-bound anyway);
- what the client measures includes HTTP and tokenisation; the fitted overheads absorb it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tokenpilot.calibrate.contention import (
    CpuShare,
    WaitClock,
    busiest_thread,
    to_own_time,
    to_wall_time,
)
from tokenpilot.calibrate.logs import (
    MeasuredRequest,
    RequestLog,
    percentiles,
    read_log,
    write_log,
)
from tokenpilot.calibrate.profile import Profile, write_profile
from tokenpilot.cluster.fleet import InstanceSpec

HARDWARE = "epyc-milan-core"
MODEL = "smollm2-135m"
N_BATCH = 2048  # llama-server's default -b
# One compute thread per server: the machine is 2 shared cores, and the client, the HTTP threads
# and the idle second server need CPU too; more threads than the cores free only wait longer.
SERVER_THREADS = 1


@dataclass(frozen=True)
class HarnessConfig:
    fit_slots: int = 2
    predict_slots: int = 4
    ctx: int = 512
    fit_rates: tuple[float, ...] = (0.25, 0.45)  # req/s of the two fitting logs
    predict_rate: float = 0.8
    fit_requests: int = 30
    predict_requests: int = 30
    prompt: tuple[int, int] = (16, 64)
    output: tuple[int, int] = (8, 24)
    seed: int = 16


def instance(slots: int, ctx: int) -> InstanceSpec:
    """The simulator's instance kind for a llama-server with ``slots`` slots of ``ctx`` tokens."""
    return InstanceSpec(gpu=HARDWARE, model=MODEL, weight_dtype="int4", engine="llama.cpp",
                        max_num_seqs=slots, max_num_batched_tokens=max(N_BATCH, slots),
                        max_model_len=ctx)


def fleet_doc(spec: InstanceSpec) -> dict[str, Any]:
    keys = ("gpu", "model", "engine", "weight_dtype", "max_num_seqs", "max_num_batched_tokens",
            "max_model_len")
    return {"name": f"llama-cpp-{spec.max_num_seqs}-slots",
            "instances": [{k: getattr(spec, k) for k in keys}]}


def predict(spec: InstanceSpec, cal: Any, log_path: Path, timeline: dict[str, Any] | None
            ) -> tuple[dict[str, float], dict[str, float]]:
    """Simulated percentiles of a log's requests replayed on ``spec`` under ``cal``: on the
    wall clock of the run ``timeline`` was sampled in (its waits for a core put back; the log
    is then on the server's own clock), and as simulated. Without a timeline both are the
    simulated ones."""
    from tokenpilot.calibrate.fit import simulate_log

    log = read_log(log_path)
    res = simulate_log(spec, cal, log)
    keep = [r.output_tokens > 1 for r in log.records]
    sim = percentiles([r.ttft for r in res],
                      [r.tpot for r, k in zip(res, keep, strict=True) if k])
    if timeline is None:
        return sim, sim
    a, f, e = (to_wall_time(timeline, np.array([getattr(r, k) for r in res]))
               for k in ("arrival", "first_token", "finish"))
    n = np.array([r.output_tokens for r in res])
    multi = n > 1
    return percentiles(list(f - a), list((e - f)[multi] / (n[multi] - 1))), sim


def measured(log_path: Path) -> dict[str, float]:
    log = read_log(log_path)
    return percentiles([r.ttft_s for r in log.records],
                       [r.tpot_s for r in log.records if r.tpot_s is not None])


def lone_requests(log: RequestLog) -> dict[str, float] | None:
    """What the requests that met no other request show of one step's cost (the serial
    roofline's signature, module doc): their TTFT's slope per prompt token (least squares, ms),
    their median TPOT (a one-token step, ms) and the ratio; None with fewer than 5 of them.
    The slope is Theil-Sen's (the median of the pairwise slopes): one request slowed by the
    machine moves it little."""
    from scipy.stats import theilslopes

    recs = log.records
    spans = [(r.arrival_s, r.arrival_s + r.ttft_s + (r.tpot_s or 0.0) * (r.output_tokens - 1))
             for r in recs]
    lone = [r for i, r in enumerate(recs)
            if r.tpot_s and all(min(e, spans[i][1]) <= max(a, spans[i][0])
                                for j, (a, e) in enumerate(spans) if j != i)]
    if len(lone) < 5 or len({r.prompt_tokens for r in lone}) < 2:
        return None
    p = np.array([r.prompt_tokens for r in lone], dtype=float)
    slope = float(theilslopes([r.ttft_s * 1e3 for r in lone], p)[0])
    tpot = float(np.median([r.tpot_s * 1e3 for r in lone if r.tpot_s]))
    return {"requests": len(lone), "ttft_ms_per_prompt_token": slope, "tpot_ms": tpot,
            "ratio": tpot / slope if slope > 0 else float("nan")}


def step_ratio(spec: InstanceSpec, cal: Any, context: int = 40) -> float:
    """What a one-token decode step costs in prompt tokens under ``cal`` (``lone_requests``'
    ratio, as the cost model has it): about 1.3 on an overlap roofline for SmolLM2 (the
    per-token compute plus the LM head), more on a serial one (plus the weight stream)."""
    cm = spec.cost_model(cal)
    per_token = (cm.iteration_time([(3 * context // 2, 0)])
                 - cm.iteration_time([(context // 2, 0)])) / context
    return cm.decode_time(1, context) / per_token


def synthetic_log(spec: InstanceSpec, cal: Any, requests: Any) -> RequestLog:
    """What the simulator itself measures for ``requests`` on ``spec`` under ``cal``: a log
    with known parameters behind it (for testing and timing the fit)."""
    from tokenpilot.calibrate.fit import simulate_log

    recs = tuple(MeasuredRequest(r.arrival, r.prompt_tokens, r.output_tokens, 1.0, 1.0)
                 for r in requests)
    res = simulate_log(spec, cal, RequestLog("synthetic", recs))
    return RequestLog("synthetic", tuple(
        MeasuredRequest(m.arrival_s, m.prompt_tokens, m.output_tokens, x.ttft,
                        x.tpot if m.output_tokens > 1 else None) for m, x in zip(recs, res,
                                                                                   strict=True)))


def run(cfg: HarnessConfig, out_dir: Path, log: Any = print) -> dict[str, Any]:
    """Record, fit, predict and compare; every file (logs, fleets, profile) goes to ``out_dir``."""
    from tokenpilot.calibrate.record import poisson_requests, probe, record_log
    from tokenpilot.llamafleet import LlamaFleet, LlamaServerSpec

    out_dir.mkdir(parents=True, exist_ok=True)
    fit_spec, pred_spec = instance(cfg.fit_slots, cfg.ctx), instance(cfg.predict_slots, cfg.ctx)
    for spec in (fit_spec, pred_spec):
        (out_dir / f"fleet-{spec.max_num_seqs}-slots.yaml").write_text(
            yaml.safe_dump(fleet_doc(spec), sort_keys=False))
    servers = [LlamaServerSpec(slots=cfg.fit_slots, ctx=cfg.ctx, threads=SERVER_THREADS),
               LlamaServerSpec(slots=cfg.predict_slots, ctx=cfg.ctx, threads=SERVER_THREADS)]
    fits = [(f"fit-{k}", 0, rate, cfg.fit_requests) for k, rate in enumerate(cfg.fit_rates)]
    held_out = ("predict", 1, cfg.predict_rate, cfg.predict_requests)
    runs = [*fits[:1], held_out, *fits[1:]]  # the held-out run between the fitting ones
    paths: dict[str, Path] = {}
    probes: dict[str, dict[str, Any]] = {}
    cpu: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    with LlamaFleet(servers) as fleet:
        for k, (name, server, rate, n) in enumerate(runs):
            reqs = poisson_requests(n, rate, cfg.prompt, cfg.output, cfg.seed + k)
            probes[name] = probe(fleet.urls[server])  # also warms a fresh server up
            log(f"recording {name}: {n} requests at {rate} req/s on "
                f"{servers[server].slots} slots (probe: TTFT "
                f"{probes[name]['ttft_s'] * 1e3:.0f} ms for {probes[name]['prompt_tokens']} "
                f"prompt tokens, TPOT {probes[name]['tpot_s'] * 1e3:.1f} ms) ...")
            pid = fleet.servers[server].proc.pid
            starts: list[float] = []
            with CpuShare(pid) as share, WaitClock(pid, busiest_thread(pid)) as clock:
                records = record_log(fleet.urls[server], reqs, warmup=False,
                                     on_start=starts.append)
            cpu[name] = share.figures
            timeline = clock.to_dict(starts[0])
            cpu[name]["compute_thread_wait_s"] = round(timeline["wait"][-1], 2)
            log(f"  {name}: the server's threads waited for a core "
                f"{_pct(share.figures['wait_share'])} of their runnable time, its compute "
                f"thread {timeline['wait'][-1]:.1f} s in {share.figures['wall_s']:.0f} s (load "
                f"average {share.figures['loadavg_1m']} on {share.figures['cores']} cores)")
            paths[name] = out_dir / f"{name}.csv"
            write_log(paths[name], records)
            write_log(out_dir / f"{name}.own.csv", to_own_time(records, timeline))
            (out_dir / f"{name}.waits.json").write_text(json.dumps(timeline))
    record_s = time.perf_counter() - t0
    (out_dir / "run.json").write_text(json.dumps({"config": asdict(cfg), "probes": probes,
                                                  "cpu": cpu}, indent=2))
    report: dict[str, Any] = {"config": asdict(cfg), "record_s": round(record_s, 1),
                              "probes": probes, "cpu": cpu,
                              "threads": {"server": SERVER_THREADS,
                                          "cores": len(os.sched_getaffinity(0))},
                              "logs": {k: str(v) for k, v in paths.items()}}
    report.update(compare(cfg, out_dir, log))
    return report


def config_from_dict(d: dict[str, Any]) -> HarnessConfig:
    """The ``HarnessConfig`` a report's ``config`` (``asdict``, lists for tuples) describes."""
    return HarnessConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


def reanalyse(out_dir: Path, log: Any = print) -> dict[str, Any]:
    """``compare`` again on the logs a finished ``run`` left in ``out_dir`` (no server)."""
    doc = json.loads((out_dir / "run.json").read_text(encoding="utf-8"))
    c = doc["config"]
    cfg = config_from_dict(c)
    report = {"config": c, "probes": doc["probes"], "cpu": doc["cpu"],
              "threads": {"server": SERVER_THREADS, "cores": len(os.sched_getaffinity(0))},
              "logs": {n: str(out_dir / f"{n}.csv") for n in doc["cpu"]}}
    report.update(compare(cfg, out_dir, log))
    return report


def compare(cfg: HarnessConfig, out_dir: Path, log: Any = print) -> dict[str, Any]:
    """Fit on the ``fit-*`` logs in ``out_dir`` and predict the ``predict`` one (module doc):
    on the server's own clock mapped back to the wall clock, on the own clock alone, and
    contention-blind. The profile goes to ``out_dir/profile.yaml``."""
    from tokenpilot.calibrate.fit import fit

    fit_spec, pred_spec = instance(cfg.fit_slots, cfg.ctx), instance(cfg.predict_slots, cfg.ctx)
    names = sorted(p.name[:-len(".own.csv")] for p in out_dir.glob("fit-*.own.csv"))
    result = fit(fit_spec, [read_log(out_dir / f"{n}.own.csv") for n in names])
    blind = fit(fit_spec, [read_log(out_dir / f"{n}.csv") for n in names])
    log(f"fit: {result.message} in {result.wall_s:.1f} s (contention-blind: {blind.message})")
    out: dict[str, Any] = {"fit": result.to_dict(), "blind_fit": blind.to_dict(),
                           "lone": {n: lone_requests(read_log(out_dir / f"{n}.own.csv"))
                                    for n in [*names, "predict"]}}
    if not result.converged:
        return out
    out["step_ratio"] = step_ratio(fit_spec, result.calibration)
    write_profile(out_dir / "profile.yaml",
                  Profile(result.calibration, HARDWARE, MODEL, result.to_dict()))
    timeline = json.loads((out_dir / "predict.waits.json").read_text(encoding="utf-8"))
    wall, own = out_dir / "predict.csv", out_dir / "predict.own.csv"
    real, real_own = measured(wall), measured(own)
    pred, pred_own = predict(pred_spec, result.calibration, own, timeline)
    base, _ = predict(pred_spec, pred_spec.cost_model().cal, own, timeline)
    out["predict"] = {"measured": real, "predicted": pred, "uncalibrated": base,
                      "errors": _errors(pred, real), "uncalibrated_errors": _errors(base, real),
                      "own_clock": {"measured": real_own, "predicted": pred_own,
                                    "errors": _errors(pred_own, real_own)}}
    if blind.converged:
        bp, _ = predict(pred_spec, blind.calibration, wall, None)
        out["blind"] = {"predicted": bp, "errors": _errors(bp, real)}
    return out


def _errors(pred: dict[str, float], real: dict[str, float]) -> dict[str, float]:
    return {k: pred[k] / real[k] - 1 for k in real}


def _pct(share: float | None) -> str:
    return "n/a" if share is None else f"{share * 100:.0f}%"


RUN_COMMAND = "cd tokenpilot && ../.venv/bin/python benchmarks/bench_sim_to_real.py"


def record_path() -> Path:
    """Where the last harness run's figures are kept on this machine (``calibrate --report``
    shows them): ``$TOKENPILOT_STATE_DIR`` or ``$XDG_CACHE_HOME/tokenpilot`` (default
    ``~/.cache/tokenpilot``), file ``sim_to_real.json``."""
    base = os.environ.get("TOKENPILOT_STATE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tokenpilot")
    return Path(base) / "sim_to_real.json"


def save_record(report: dict[str, Any]) -> Path:
    """Keep a finished run's figures (config, errors, measured and predicted) for ``--report``."""
    pred = report["predict"]
    doc = {"recorded": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "config": report["config"], "errors": pred["errors"], "measured": pred["measured"],
           "predicted": pred["predicted"], "uncalibrated_errors": pred["uncalibrated_errors"],
           "fit_message": report["fit"]["message"], "cpu": report.get("cpu", {}),
           "own_clock_errors": pred.get("own_clock", {}).get("errors"),
           "blind_errors": report.get("blind", {}).get("errors")}
    path = record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_record() -> dict[str, Any] | None:
    """The last run's figures, or None when none is stored (or the file is unreadable)."""
    try:
        doc = json.loads(record_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("errors"), dict) else None
