"""tokenpilot's gateway against the Rust routers (sglang-router, smg, vllm-router), side by side.

Run:  .venv/bin/python tokenpilot/benchmarks/bench_vs_routers.py [--install-peers] [--quick]
      [--reps 3] [--routers tokenpilot:least-tokens,smg:least_load,...] [--json out.json]
      [--workload mixed|prefill-skew|llama]

``--install-peers`` installs the peers from PyPI by name (sglang-router 0.3.2, smg 1.13,
vllm-router 0.1.17) into a venv of their own (``--peers-venv``, default
~/.cache/tokenpilot/peers-venv); a peer that is not installed, or whose CLI does not start, is
skipped with a line saying why. Everything then runs inside a network namespace that has only
loopback (``unshare --net``) where that works, and on 127.0.0.1 in any case.

For each repetition, and in it for each router in turn (so that drift in the machine's load
falls on every router alike), with the same seed for every router:
1. overhead: four simulated backends at speedup 1000 (the engine adds ~nothing) and the router in
   front of them; the same small streamed request sent one at a time, directly to a backend and
   through the router, the two in turn (bench_gateway.ttfts); the p50/p99 TTFT difference is what
   the router adds;
2. routing: the backends restarted at speedup 1 as a mixed fleet (1 H100, 1 A100-80GB, 2 L40S),
   the router restarted in front of them, and a bursty mix of short and long requests replayed
   open-loop (tokenpilot.loadgen.replay; Gamma arrivals), bounded in count and time. It reports
   SLO attainment (share of requests with TTFT and TPOT within the SLO), goodput, short-request
   TTFT p50/p99, TPOT p99, the requests each backend finished (from its own /metrics), and the
   router's CPU per request (user + system time of the router's processes, from /proc).
``--workload`` names the routing phase's fleet and requests (WORKLOADS): ``mixed`` (the
default, above), ``prefill-skew`` (one H100 beside three L4s, long prompts and short answers,
every prompt distinct; picked by sim_vs_routers.py, whose docstring says how) and ``llama`` (real
llama.cpp servers of SmolLM2-135M on the CPU that differ in slots and context, where no cost model
is anybody's truth; tokenpilot is told their kind, llamacpp, in a config file; per backend the
table then gives the tokens each generated, as llama.cpp counts no requests). The goodput line
against the best peer compares each tokenpilot policy, repetition by repetition, with the peer
policy of the highest goodput and the highest peer attainment.
Every router gets only the backends' URLs, as a user would give them. ``calibration`` (the time
of a fixed Python loop, before and after) says how loaded the machine was; compare figures only
at similar calibrations. The client, the backends and the router share the machine's cores
(``--pin``: the router alone on core 0, the rest on the others).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gateway import calibration, process_cpu, sim_processes, ttfts  # noqa: E402

from tokenpilot.gateway.runner import bind  # noqa: E402
from tokenpilot.llamafleet import MODEL_ALIAS, LlamaFleet, LlamaServerSpec, LlamaUnavailable  # noqa: E402
from tokenpilot.loadgen import pct, replay  # noqa: E402
from tokenpilot.workload import Request, mix  # noqa: E402
from tokenpilot.workload.generators import gamma_arrivals  # noqa: E402

FLEET = ("h100-sxm", "a100-80gb", "l40s", "l40s")  # the overhead phase's
MODEL = "llama-3.1-8b"
Backend = str | LlamaServerSpec  # a sim backend's GPU, or a real llama.cpp server
# Each peer: its PyPI requirement and the argv before the common flags.
PEERS = {
    "sglang-router": ("sglang-router==0.3.2", ["sglang-router", "launch"]),
    "smg": ("smg==1.13.*", ["smg", "launch"]),
    "vllm-router": ("vllm-router==0.1.17", ["vllm-router"]),
}
DEFAULT_ROUTERS = ("tokenpilot:round-robin,tokenpilot:least-tokens,"
                   "tokenpilot:earliest-completion,sglang-router:cache_aware,smg:round_robin,"
                   "smg:least_load,smg:cache_aware,vllm-router:power_of_two")
NETNS_ENV = "TOKENPILOT_BENCH_NETNS"


@dataclasses.dataclass(frozen=True)
class Load:
    """One routing workload: the fleet, a bursty mix of short and long requests, the SLO."""

    # Sim backends of these GPUs, or real llama.cpp servers of these specs.
    fleet: tuple[Backend, ...] = ("h100-sxm", "a100-80gb", "l40s", "l40s")
    model: str = MODEL
    rps: float = 20.0
    cv: float = 3.0  # of the Gamma inter-arrival times (1: Poisson)
    duration_s: float = 20.0
    max_requests: int = 800
    long_frac: float = 0.1
    short_prompt: int = 400
    long_prompt: int = 8000
    short_output: int = 100
    long_output: int = 200
    ttft_slo_s: float = 1.0
    tpot_slo_s: float = 0.1
    # Every prompt its own text (a unique first block): no request finds another's prompt in a
    # prefix cache. Off, every prompt is the same filler text, so a backend's prefix cache
    # holds most of each long prompt after the first and its prefill is nearly free.
    distinct: bool = False

    def requests(self, seed: int) -> list[Request]:
        reqs = mix(self.rps, duration=self.duration_s, long_frac=self.long_frac,
                   short_prompt=self.short_prompt, long_prompt=self.long_prompt,
                   short_output=self.short_output, long_output=self.long_output, cv=0.5,
                   seed=seed)
        arrivals = gamma_arrivals(np.random.default_rng(seed + 1), self.rps, self.cv,
                                  len(reqs), None)
        # A distinct prompt opens with one block of its own (synthetic_prompt writes a block
        # named by its hash): seed and index make it unique across repetitions too.
        own = {"prefix_block_tokens": DISTINCT_BLOCK} if self.distinct else {}
        return [dataclasses.replace(
                    r, arrival=float(a), **own,
                    **({"prefix_hashes": ((seed << 20) + k + 1,)} if self.distinct else {}))
                for k, (r, a) in enumerate(zip(reqs, arrivals, strict=True))
                ][:self.max_requests]

    def describe(self) -> str:
        names = [backend_name(b) for b in self.fleet]
        kinds = ", ".join(f"{names.count(g)} {g}" for g in dict.fromkeys(names))
        what = ("llama.cpp servers (sNcNtN: slots, context per slot, threads) " if self.llama else
                "sim backends ")
        return (f"fleet: {what}{kinds} ({self.model}); {self.rps:g} req/s mean, Gamma CV "
                f"{self.cv:g}, "
                f"{self.duration_s:g} s (at most {self.max_requests}), {self.long_frac:.0%} "
                f"long ({self.long_prompt}/{self.long_output} tokens in/out, short "
                f"{self.short_prompt}/{self.short_output}); "
                + ("every prompt distinct" if self.distinct else "every prompt the same filler")
                + f"; SLO TTFT <= {self.ttft_slo_s:g} s, TPOT <= {self.tpot_slo_s:g} s")

    @property
    def llama(self) -> bool:
        return any(isinstance(b, LlamaServerSpec) for b in self.fleet)


def backend_name(b: Backend) -> str:
    if isinstance(b, LlamaServerSpec):
        return f"s{b.slots}c{b.ctx}t{b.threads}"
    return b.split("-")[0].upper()


DISTINCT_BLOCK = 16  # tokens of a distinct prompt's own opening block
# The routing phase's workloads by name (--workload); WORKLOAD_NOTES says what each is for.
# ``mixed``: the bursty short/long mix on the mixed fleet. ``prefill-skew``: picked by
# benchmarks/sim_vs_routers.py (its docstring says how): long prompts and short answers on one
# H100 beside three L4s, where what a request costs each GPU, not how many requests each holds,
# decides the wait.
WORKLOADS: dict[str, Load] = {
    "mixed": Load(),
    "prefill-skew": Load(fleet=("h100-sxm", "l4", "l4", "l4"), rps=17.0, cv=2.0, long_frac=0.3,
                         short_prompt=500, long_prompt=6000, short_output=50, long_output=50,
                         ttft_slo_s=2.0, distinct=True),
    # Real llama.cpp servers that differ in slots and context: no cost model is anybody's truth
    # here (tokenpilot has no GPU for them, only their /metrics and its own accounting). One
    # thread each: on a 2-core machine a 2-thread server's threads wait on each other whenever
    # one is descheduled (decode steps of seconds, seen on a loaded machine).
    "llama": Load(fleet=(LlamaServerSpec(1, 2048, 1), LlamaServerSpec(2, 1024, 1),
                         LlamaServerSpec(4, 512, 1)), model=MODEL_ALIAS, rps=0.5, cv=1.0,
                  duration_s=40.0, long_frac=0.25, short_prompt=30, long_prompt=200,
                  short_output=4, long_output=2, ttft_slo_s=3.0, tpot_slo_s=0.25,
                  distinct=True),
}
WORKLOAD_NOTES = {
    "mixed": "bursty short/long mix on the mixed fleet (the default)",
    "prefill-skew": "1 H100 + 3 L4; 3 in 10 prompts of 6000 tokens, the rest 500; all distinct",
    "llama": "three real llama.cpp servers (SmolLM2-135M, CPU) of 1, 2 and 4 slots, 2048, "
             "1024 and 512 tokens of context per slot",
}


class Skip(Exception):
    """A router that cannot run here; the message says why."""


def venv_bin(venv: Path) -> Path:
    return venv / "bin"


def install_peers(venv: Path) -> None:
    """Install each peer into ``venv`` from PyPI by name; a failure is reported, not fatal."""
    if not (venv_bin(venv) / "python").exists():
        print(f"creating the peers' venv {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    for name, (req, _) in PEERS.items():
        r = subprocess.run([str(venv_bin(venv) / "python"), "-m", "pip", "install", "-q", req],
                           capture_output=True, text=True)
        last = (r.stderr.strip().splitlines() or ["?"])[-1]
        print(f"  {name}: " + ("installed " + req if r.returncode == 0 else
                               f"not installed ({req}): {last}"))


@functools.cache
def peer_argv(name: str, venv: Path) -> list[str]:
    """The peer's command, checked to start (``--help``); Skip says why not."""
    argv = list(PEERS[name][1])
    exe = venv_bin(venv) / argv[0]
    if not exe.exists():
        raise Skip(f"not installed in {venv}: run with --install-peers")
    r = subprocess.run([str(exe), *argv[1:], "--help"], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        raise Skip(f"its CLI does not start: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    return [str(exe), *argv[1:]]


def free_port() -> int:
    sock = bind()
    port = sock.getsockname()[1]
    sock.close()
    return port


def router_command(name: str, policy: str, port: int, urls: Sequence[str],
                   venv: Path, kind: str = "vllm", logdir: Path | None = None) -> list[str]:
    """The router's command line; tokenpilot is told the backends' ``kind`` (whose /metrics
    to read: a config file for anything but vllm), the peers need no more than the URLs."""
    if name == "tokenpilot":
        argv = [sys.executable, "-m", "tokenpilot.cli", "serve", "--host", "127.0.0.1",
                "--port", str(port), "--router", policy]
        if kind == "vllm":
            for u in urls:
                argv += ["--backend", u]
        else:
            cfg = (logdir or Path(tempfile.gettempdir())) / f"tokenpilot-{port}.json"
            cfg.write_text(json.dumps({"backends": [{"url": u, "kind": kind} for u in urls]}))
            argv += ["--config", str(cfg)]
        return argv
    # Flags as each peer's --help gives them (all three share sglang's launcher).
    return [*peer_argv(name, venv), "--host", "127.0.0.1", "--port", str(port),
            "--worker-urls", *urls, "--policy", policy, "--prometheus-host", "127.0.0.1",
            "--prometheus-port", str(free_port()), "--log-level", "warn" if name != "vllm-router"
            else "warning"]


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
    return out


def tree_cpu(pid: int) -> float:
    total = 0.0
    for p in tree(pid):
        with contextlib.suppress(OSError):
            total += process_cpu(p)
    return total


@contextlib.contextmanager
def router(argv: list[str], port: int, log: Path, pin: bool,
           model: str = MODEL) -> Iterator[tuple[str, int]]:
    """The router's process, answering a completion through it before this yields
    (its URL and pid); Skip with its log's last line when it exits or does not answer."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}
    try:
        deadline = time.monotonic() + 90  # bounded: a router that never answers is skipped
        while True:
            if proc.poll() is not None:
                tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["?"]
                raise Skip(f"exited with {proc.returncode}: {tail[0][:200]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.post(url + "/v1/chat/completions", json=body,
                              timeout=5).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise Skip("did not answer a completion within 90 s")
            time.sleep(0.2)
        if pin:
            for p in tree(proc.pid):
                os.sched_setaffinity(p, {0})
        yield url, proc.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait(10)


def finished(url: str) -> int:
    """What the backend at ``url`` served, by its own /metrics: the requests it finished
    (vllm:request_success; a sim backend) or else the tokens it generated (llama.cpp exports no
    request count: llamacpp:tokens_predicted_total)."""
    text = httpx.get(url + "/metrics", timeout=10).text
    found = re.findall(r"^vllm:request_success_total\{[^}]*\} (\S+)$", text, re.M) or \
        re.findall(r"^llamacpp:tokens_predicted_total(?:\{[^}]*\})? (\S+)$", text, re.M)
    return int(sum(float(m) for m in found))


def others_off_core0(pids: Sequence[int]) -> None:
    rest = set(range(1, os.cpu_count() or 1))
    for p in [os.getpid(), *pids]:
        os.sched_setaffinity(p, rest)


@contextlib.contextmanager
def llama_processes(specs: Sequence[LlamaServerSpec], pids: list[int],
                    logdir: Path) -> Iterator[list[str]]:
    """Real llama.cpp servers (tokenpilot.llamafleet: SmolLM2-135M on the CPU), one process
    each; Skip when xllamacpp or the model is not installed."""
    try:
        fleet = LlamaFleet(specs, log_dir=logdir)
    except LlamaUnavailable as exc:
        raise Skip(str(exc)) from None
    with fleet:
        pids.extend(s.proc.pid for s in fleet.servers)
        yield [s.url for s in fleet.servers]


@contextlib.contextmanager
def fleet_and_router(name: str, policy: str, fleet: Sequence[Backend], speedup: float,
                     venv: Path, log: Path, pin: bool,
                     model: str = MODEL) -> Iterator[tuple[list[str], str, int]]:
    """A fresh fleet (sim backends of ``fleet``'s GPUs at ``speedup``, or llama.cpp servers of
    its specs) and the router in front of it: the backends' URLs, the router's URL and its
    pid."""
    pids: list[int] = []
    llama = [b for b in fleet if isinstance(b, LlamaServerSpec)]
    with (llama_processes(llama, pids, log.parent) if llama else
          sim_processes(len(fleet), pids, fleet, speedup)) as urls:
        if pin:
            others_off_core0(pids)
        port = free_port()
        argv = router_command(name, policy, port, urls, venv,
                              "llamacpp" if llama else "vllm", log.parent)
        with router(argv, port, log, pin, model) as (url, pid):
            yield urls, url, pid


def run_one(name: str, policy: str, load: Load, seed: int, samples: int, venv: Path,
            logdir: Path, pin: bool, overhead: bool = True,
            profile: Path | None = None, idle_s: float = 0.0) -> dict:
    """One router, one repetition: the overhead phase (unless not ``overhead``), then the
    routing phase (``profile``: a ``perf record`` of the router's process there, written
    into that folder; ``idle_s``: first the router's CPU per second over that long with no
    request, its own background work: health checks and the like)."""
    out: dict = {}
    logs = re.sub(r"[^\w.-]", "_", f"{name}-{policy}")
    out["added_ttft_p50_s"] = out["added_ttft_p99_s"] = math.nan
    if overhead:
        with fleet_and_router(name, policy, FLEET, 1000, venv,
                              logdir / f"{logs}.overhead.log", pin) as (urls, url, _):
            # Each round: one request to each backend directly, then one through the router.
            asyncio.run(ttfts([*urls, url], 5))  # warm up every path
            times = asyncio.run(ttfts([*urls, url], samples))
        d, v = [t for ts in times[:-1] for t in ts], times[-1]
        out["added_ttft_p50_s"] = pct(v, 50) - pct(d, 50)
        out["added_ttft_p99_s"] = pct(v, 99) - pct(d, 99)
    with fleet_and_router(name, policy, load.fleet, 1, venv, logdir / f"{logs}.load.log",
                          pin, load.model) as (urls, url, pid):
        if idle_s > 0:
            time.sleep(1.0)  # past the router's start
            c0, t0 = tree_cpu(pid), time.monotonic()
            time.sleep(idle_s)
            out["idle_cpu_per_s"] = (tree_cpu(pid) - c0) / (time.monotonic() - t0)
        before = [finished(u) for u in urls]
        prof = None if profile is None else perf_record(pid, profile / f"{logs}-{seed}.perf")
        cpu0 = tree_cpu(pid)
        res = asyncio.run(replay(url, load.requests(seed), model=load.model,
                                 duration_s=load.duration_s,
                                 max_requests=load.max_requests, timeout_s=60))
        cpu = tree_cpu(pid) - cpu0
        if prof is not None:
            prof.send_signal(2)  # SIGINT: perf writes what it recorded
            prof.wait(60)
        per_backend = [finished(u) - b for u, b in zip(urls, before, strict=True)]
    s = res.summary(load.ttft_slo_s, load.tpot_slo_s)
    good = sum(1 for r in res.records if r.ok and r.ttft_s <= load.ttft_slo_s
               and r.tpot_s <= load.tpot_slo_s)
    out.update(
        requests=s["requests"], ok=s["ok"], errors=s["errors"], first_error=s["first_error"],
        slo_attainment=good / max(s["requests"], 1), goodput_rps=s["goodput_rps"],
        short_ttft_p50_s=s["short_ttft_p50_s"], short_ttft_p99_s=s["short_ttft_p99_s"],
        tpot_p99_s=s["tpot_p99_s"], per_backend=per_backend,
        cpu_per_request_s=cpu / max(s["requests"], 1))
    return out


def perf_record(pid: int, out: Path) -> subprocess.Popen:
    """``perf record`` of ``pid`` (499 Hz, call graphs, kernel and native frames: where the
    router's CPU goes, Rust or Python alike) into ``out`` until it is sent SIGINT; read it with
    ``perf report -i OUT``. SystemExit with a one-line error where perf is missing. (py-spy
    cannot read a process's memory in every sandbox; perf needs only the kernel's counters.)"""
    exe = shutil.which("perf")
    if exe is None:
        raise SystemExit("error: --profile needs perf (Debian: linux-perf)")
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([exe, "record", "-F", "499", "-g", "-p", str(pid), "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def in_loopback_namespace() -> list[str] | None:
    """The prefix that runs a command in a network namespace of loopback only (None: not
    possible here: unshare --net needs root or user namespaces)."""
    prefix = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return None
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    return prefix if probe.returncode == 0 else None


def span(values: Sequence[float], fmt: str) -> str:
    """``lo..hi`` over the repetitions (one figure when they agree)."""
    vals = [v for v in values if not math.isnan(v)]
    if not vals:
        return "n/a"
    lo, hi = fmt.format(min(vals)), fmt.format(max(vals))
    return lo if lo == hi else f"{lo}..{hi}"


def table(results: dict[str, list[dict]], fleet: Sequence[Backend]) -> str:
    served = "tokens out " if any(isinstance(b, LlamaServerSpec) for b in fleet) else "reqs "
    head = ("router:policy", "SLO att.", "goodput/s", "short TTFT p50", "short TTFT p99",
            "TPOT p99", served + "/".join(map(backend_name, fleet)), "+TTFT p50", "+TTFT p99",
            "CPU/req", "errors")
    rows = [head]
    for label, runs in results.items():
        if not runs:
            continue
        ms = "{:.0f} ms"
        per = [sum(r["per_backend"][i] for r in runs) / len(runs) for i in range(len(fleet))]
        rows.append((
            label, span([r["slo_attainment"] * 100 for r in runs], "{:.0f}%"),
            span([r["goodput_rps"] for r in runs], "{:.1f}"),
            span([r["short_ttft_p50_s"] * 1e3 for r in runs], ms),
            span([r["short_ttft_p99_s"] * 1e3 for r in runs], ms),
            span([r["tpot_p99_s"] * 1e3 for r in runs], ms),
            "/".join(f"{p:.0f}" for p in per),
            span([r["added_ttft_p50_s"] * 1e3 for r in runs], "{:.2f} ms"),
            span([r["added_ttft_p99_s"] * 1e3 for r in runs], "{:.1f} ms"),
            span([r["cpu_per_request_s"] * 1e6 for r in runs], "{:.0f} us"),
            str(sum(r["errors"] for r in runs)),
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                     for r in rows)


def versus_peers(results: dict[str, list[dict]]) -> list[str]:
    """Each tokenpilot policy against the best peer policy, repetition by repetition: its
    goodput over the highest peer goodput, and its attainment against the highest peer one."""
    peers = {k: v for k, v in results.items() if not k.startswith("tokenpilot:") and v}
    ours = {k: v for k, v in results.items() if k.startswith("tokenpilot:") and v}
    if not peers or not ours:
        return ["vs the best peer: n/a (needs a tokenpilot policy and a peer that ran)"]
    reps = min(len(v) for v in (*peers.values(), *ours.values()))
    lines = []
    for label, runs in ours.items():
        parts, ratios, ahead = [], [], 0
        for k in range(reps):
            best = max(peers, key=lambda p: peers[p][k]["goodput_rps"])
            top_att = max(p[k]["slo_attainment"] for p in peers.values())
            ratio = runs[k]["goodput_rps"] / max(peers[best][k]["goodput_rps"], 1e-9)
            ratios.append(ratio)
            ahead += runs[k]["slo_attainment"] >= top_att
            parts.append(f"rep {k + 1}: {ratio:.2f}x {best} "
                         f"({runs[k]['slo_attainment']:.0%} vs {top_att:.0%})")
        lines.append(f"vs the best peer, {label}: goodput {min(ratios):.2f}x..{max(ratios):.2f}x "
                     f"the best peer policy's, attainment at least the best peer's in {ahead}/"
                     f"{reps} repetitions; " + "; ".join(parts))
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--install-peers", action="store_true",
                    help="pip install the peers (from PyPI by name) into --peers-venv first")
    ap.add_argument("--peers-venv", type=Path,
                    default=Path.home() / ".cache" / "tokenpilot" / "peers-venv")
    ap.add_argument("--routers", default=DEFAULT_ROUTERS,
                    help="comma-separated ROUTER:POLICY (ROUTER: tokenpilot, "
                    + ", ".join(PEERS) + ")")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--samples", type=int, default=100,
                    help="sequential requests per path in the overhead phase")
    ap.add_argument("--workload", default="mixed",
                    help="the routing phase's workload: " + "; ".join(
                        f"{k}: {v}" for k, v in WORKLOAD_NOTES.items()))
    ap.add_argument("--rps", type=float, help="mean arrival rate (default: the workload's)")
    ap.add_argument("--duration", type=float,
                    help="seconds of arrivals in the routing phase (default: the workload's)")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: one repetition, 4 s of arrivals, 20 samples")
    ap.add_argument("--pin", action="store_true",
                    help="the router alone on core 0, everything else on the other cores")
    ap.add_argument("--output", type=int, metavar="TOKENS",
                    help="every request of the routing phase asks for this many output tokens "
                    "(short and long alike); run it at two lengths to split the router's CPU "
                    "per request into a fixed part and a part per relayed token")
    ap.add_argument("--no-overhead", action="store_true",
                    help="skip the overhead phase (added TTFT): the routing phase only")
    ap.add_argument("--profile", type=Path, metavar="DIR",
                    help="perf record each router in the routing phase: "
                    "a perf.data file per router and repetition in DIR")
    ap.add_argument("--idle", type=float, default=0.0, metavar="SECONDS",
                    help="before the routing phase's load, each router's CPU per second over "
                    "this long with no request (its background work), printed per repetition")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    a = ap.parse_args()
    if a.workload not in WORKLOADS:
        print(f"error: unknown --workload {a.workload!r}; known: {', '.join(WORKLOADS)}",
              file=sys.stderr)
        return 2
    load = WORKLOADS[a.workload]
    load = dataclasses.replace(load, rps=load.rps if a.rps is None else a.rps,
                               duration_s=load.duration_s if a.duration is None else a.duration)
    if a.reps < 1 or a.samples < 1 or load.rps <= 0 or load.duration_s <= 0 or (
            a.output is not None and a.output < 1) or not 0 <= a.idle <= 600:
        print("error: --reps, --samples and --output must be at least 1, --rps and --duration "
              "positive, --idle 0 to 600 s", file=sys.stderr)
        return 2
    if a.output is not None:
        load = dataclasses.replace(load, short_output=a.output, long_output=a.output)
    labels = [x.strip() for x in a.routers.split(",") if x.strip()]
    for label in labels:
        name, _, policy = label.partition(":")
        if name != "tokenpilot" and name not in PEERS or not policy:
            print(f"error: bad --routers entry {label!r}: give ROUTER:POLICY, ROUTER one of "
                  f"tokenpilot, {', '.join(PEERS)}", file=sys.stderr)
            return 2
    if os.environ.get(NETNS_ENV) is None:
        if a.install_peers:  # before the namespace: it has no network
            install_peers(a.peers_venv)
        prefix = in_loopback_namespace()
        if prefix is not None:
            env = {**os.environ, NETNS_ENV: "1"}
            argv = [x for x in sys.argv[1:] if x != "--install-peers"]
            return subprocess.run([*prefix, sys.executable, __file__, *argv], env=env).returncode
        os.environ[NETNS_ENV] = "0"
    netns = os.environ[NETNS_ENV] == "1"
    reps, samples = a.reps, a.samples
    if a.quick:
        reps, samples = 1, 20
        load = dataclasses.replace(load, duration_s=4.0, rps=min(load.rps, 10.0))
    pin = a.pin and (os.cpu_count() or 1) >= 2
    calib = [calibration()]
    results: dict[str, list[dict]] = {label: [] for label in labels}
    skipped: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="bench-vs-routers-") as tmp:
        for rep in range(reps):
            for label in labels:
                if label in skipped:
                    continue
                name, _, policy = label.partition(":")
                try:
                    r = run_one(name, policy, load, a.seed + rep, samples, a.peers_venv,
                                Path(tmp), pin, not a.no_overhead, a.profile, a.idle)
                except Skip as exc:
                    skipped[label] = str(exc)
                    print(f"  {label}: skipped: {exc}", flush=True)
                    continue
                results[label].append(r)
                print(f"  rep {rep + 1}/{reps} {label}: {r['ok']}/{r['requests']} ok, SLO "
                      f"{r['slo_attainment']:.0%}, +TTFT p50 {r['added_ttft_p50_s'] * 1e3:.2f} "
                      f"ms, CPU {r['cpu_per_request_s'] * 1e6:.0f} us/req"
                      + (f", idle CPU {r['idle_cpu_per_s'] * 1e3:.1f} ms/s"
                         if "idle_cpu_per_s" in r else ""), flush=True)
    calib.append(calibration())
    print(f"command: {' '.join(sys.argv)}")
    print("network: " + ("a namespace of loopback only" if netns else "no namespace (unshare "
                         "--net is not available here); every server on 127.0.0.1"))
    print(f"cores: {os.cpu_count()}, " + ("the router alone on core 0" if pin else
                                          "not pinned: router, backends and client share them"))
    print(f"workload {a.workload}: {load.describe()}; seeds {a.seed}..{a.seed + reps - 1}, "
          f"the same for every router; {reps} repetition(s)")
    print(f"overhead: {samples} sequential requests per path per repetition, backends at "
          "speedup 1000")
    print(table(results, load.fleet))
    print("a..b: the lowest and highest over the repetitions; reqs: requests each backend "
          "finished, mean per repetition; +TTFT: through the router less direct; CPU/req: the "
          "router's CPU time in the routing phase over the requests sent")
    for label, why in skipped.items():
        print(f"{label}: skipped: {why}")
    for line in versus_peers(results):
        print(line)
    print(f"calibration {calib[0]:.4f} s before, {calib[1]:.4f} s after (min of timeit "
          f"'for i in range(10): pass' x100000; ~0.02 idle); load average "
          f"{os.getloadavg()[0]:.1f}")
    if a.json:
        a.json.write_text(json.dumps({"results": results, "skipped": skipped,
                                      "calibration": calib, "netns": netns,
                                      "workload": a.workload,
                                      "load": dataclasses.asdict(load)}, indent=1))
    return 0 if any(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
