"""Several ``tokenpilot serve`` processes sharing one ``redis-server``, on this machine.

What the multi-replica tests and ``benchmarks/bench_redis_state.py`` start: a real Redis on a
Unix socket in a folder of the caller's, and gateway replicas, each its own process on a free
port of 127.0.0.1, with its own config file and its standard error kept in a log file.
Everything is started by path and stopped by its own process id.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_BANNER = re.compile(r"tokenpilot gateway .* on http://127\.0\.0\.1:(\d+)")


class ProcessError(RuntimeError):
    """A server process did not start; the message says which and what it printed."""


class RedisServer:
    """``redis-server`` on ``FOLDER/redis.sock``, no TCP port, no persistence."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.sock = self.folder / "redis.sock"
        self.url = f"unix://{self.sock}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 10.0) -> RedisServer:
        exe = shutil.which("redis-server")
        if exe is None:
            raise ProcessError("redis-server is not installed (Debian: apt-get install "
                               "redis-server)")
        log = open(self.folder / "redis.log", "ab")  # noqa: SIM115 - the process keeps it
        self.proc = subprocess.Popen(
            [exe, "--port", "0", "--unixsocket", str(self.sock), "--unixsocketperm", "700",
             "--save", "", "--appendonly", "no", "--dir", str(self.folder),
             "--loglevel", "warning"], stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + timeout
        while not self.ping():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise ProcessError(f"redis-server did not start: "
                                   f"{(self.folder / 'redis.log').read_text()[-500:]}")
            time.sleep(0.02)
        return self

    def client(self) -> Any:
        import redis

        return redis.Redis(unix_socket_path=str(self.sock), socket_timeout=2)

    def ping(self) -> bool:
        if not self.sock.exists():
            return False
        c = self.client()
        try:
            return bool(c.ping())
        except Exception:  # noqa: BLE001 - not up yet, whatever it says
            return False
        finally:
            c.close()

    def command_calls(self) -> dict[str, int]:
        """``INFO commandstats``: calls per command since start (evalsha, eval, ...)."""
        c = self.client()
        try:
            stats = c.info("commandstats")
        finally:
            c.close()
        return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}

    def kill(self) -> None:
        """SIGKILL: the way Redis dies when its machine does."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()


@dataclass
class Replica:
    """One ``tokenpilot serve`` process."""

    name: str
    config: Path
    log: Path
    proc: subprocess.Popen
    url: str = ""
    pid: int = field(init=False)

    def __post_init__(self) -> None:
        self.pid = self.proc.pid

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)


def start_replicas(folder: Path, configs: list[dict[str, Any]],
                   timeout: float = 60.0) -> list[Replica]:
    """One ``tokenpilot serve --config`` per mapping of ``configs``, all started at once;
    returns once each has said its address (``ProcessError`` if one exits or stays silent)."""
    folder = Path(folder)
    out = []
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for k, cfg in enumerate(configs):
        name = cfg.get("state", {}).get("replica") or f"replica-{k}"
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        log = folder / f"{name}.log"
        with open(log, "wb") as f:
            proc = subprocess.Popen([sys.executable, "-m", "tokenpilot.cli", "serve",
                                     "--config", str(path), "--port", "0"],
                                    stdout=f, stderr=subprocess.STDOUT, env=env)
        out.append(Replica(name, path, log, proc))
    deadline = time.monotonic() + timeout
    for r in out:
        while not r.url:
            m = _BANNER.search(r.log_text())
            if m:
                r.url = f"http://127.0.0.1:{m.group(1)}"
            elif r.proc.poll() is not None or time.monotonic() > deadline:
                for other in out:
                    other.kill()
                raise ProcessError(f"{r.name} did not start: {r.log_text()[-800:]}")
            else:
                time.sleep(0.05)
    return out
