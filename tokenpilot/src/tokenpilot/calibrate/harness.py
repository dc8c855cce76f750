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

import yaml

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


def predict(spec: InstanceSpec, cal: Any, log_path: Path) -> dict[str, float]:
    """Simulated percentiles of a log's requests replayed on ``spec`` under ``cal``."""
    from tokenpilot.calibrate.fit import simulate_log

    log = read_log(log_path)
    res = simulate_log(spec, cal, log)
    keep = [r.output_tokens > 1 for r in log.records]
    return percentiles([r.ttft for r in res], [r.tpot for r, k in zip(res, keep, strict=True) if k])


def measured(log_path: Path) -> dict[str, float]:
    log = read_log(log_path)
    return percentiles([r.ttft_s for r in log.records],
                       [r.tpot_s for r in log.records if r.tpot_s is not None])


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
    from tokenpilot.calibrate.fit import fit
    from tokenpilot.calibrate.record import poisson_requests, probe, record_log
    from tokenpilot.llamafleet import LlamaFleet, LlamaServerSpec

    out_dir.mkdir(parents=True, exist_ok=True)
    fit_spec, pred_spec = instance(cfg.fit_slots, cfg.ctx), instance(cfg.predict_slots, cfg.ctx)
    for spec in (fit_spec, pred_spec):
        (out_dir / f"fleet-{spec.max_num_seqs}-slots.yaml").write_text(
            yaml.safe_dump(fleet_doc(spec), sort_keys=False))
    servers = [LlamaServerSpec(slots=cfg.fit_slots, ctx=cfg.ctx, threads=1),
               LlamaServerSpec(slots=cfg.predict_slots, ctx=cfg.ctx, threads=1)]
    runs = [(f"fit-{k}", 0, rate, cfg.fit_requests) for k, rate in enumerate(cfg.fit_rates)]
    runs.append(("predict", 1, cfg.predict_rate, cfg.predict_requests))
    paths: dict[str, Path] = {}
    probes: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    with LlamaFleet(servers) as fleet:
        for k, (name, server, rate, n) in enumerate(runs):
            reqs = poisson_requests(n, rate, cfg.prompt, cfg.output, cfg.seed + k)
            probes[name] = probe(fleet.urls[server])  # also warms a fresh server up
            log(f"recording {name}: {n} requests at {rate} req/s on "
                f"{servers[server].slots} slots (probe: TTFT "
                f"{probes[name]['ttft_s'] * 1e3:.0f} ms for {probes[name]['prompt_tokens']} "
                f"prompt tokens, TPOT {probes[name]['tpot_s'] * 1e3:.1f} ms) ...")
            records = record_log(fleet.urls[server], reqs, warmup=False)
            paths[name] = out_dir / f"{name}.csv"
            write_log(paths[name], records)
    record_s = time.perf_counter() - t0
    logs = [read_log(paths[name]) for name, *_ in runs[:-1]]
    result = fit(fit_spec, logs)
    log(f"fit: {result.message} in {result.wall_s:.1f} s")
    report: dict[str, Any] = {"config": asdict(cfg), "record_s": round(record_s, 1),
                              "probes": probes,
                              "fit": result.to_dict(), "logs": {k: str(v) for k, v in
                                                                paths.items()}}
    if not result.converged:
        return report
    write_profile(out_dir / "profile.yaml",
                  Profile(result.calibration, HARDWARE, MODEL, result.to_dict()))
    real = measured(paths["predict"])
    pred = predict(pred_spec, result.calibration, paths["predict"])
    base = predict(pred_spec, pred_spec.cost_model().cal, paths["predict"])
    report["predict"] = {"measured": real, "predicted": pred, "uncalibrated": base,
                         "errors": {k: pred[k] / real[k] - 1 for k in real},
                         "uncalibrated_errors": {k: base[k] / real[k] - 1 for k in real}}
    return report


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
           "fit_message": report["fit"]["message"]}
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
