"""The pool the endpoint picker chooses from: a file of model servers, watched for changes.

This is the picker's "no Kubernetes" mode: where GIE's own endpoint picker watches the Pods an
InferencePool selects, this one reads them from a file (on a cluster, a ConfigMap mounted as a
volume, which the kubelet rewrites in place when the ConfigMap changes)::

    endpoints:
      - 10.0.0.5:8000                          # ip:port, as the proxy reaches the server
      - address: 10.0.0.6:8000                 # or a mapping: the gateway's backend keys
        name: vllm-b                           #   (kind, gpu, model, tp, engine, labels,
        gpu: h100-sxm                          #   max_concurrency, api_key_env, ...), with
        model: llama-3.1-8b                    #   ``address`` in place of ``url``

Each endpoint is a gateway backend (``gateway.config.BackendConfig``, ``url`` ``http://`` +
its address), so its ``/health`` and ``/metrics`` are scraped as the gateway scrapes its
backends. ``Watcher.poll`` reads the file again when its stat signature (mtime, size, inode:
``os.stat`` follows the ConfigMap's symlink swap) changes; a file that turns unreadable or
invalid keeps the last good pool and says why once, so an edit in progress loses nothing.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from pathlib import Path
from typing import Any

import yaml

from tokenpilot.config_section import from_mapping, read_text
from tokenpilot.gateway.config import BackendConfig, ConfigError

log = logging.getLogger("tokenpilot.epp")
_ADDRESS = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$")


class EndpointsError(ConfigError):
    """The endpoints file is missing or malformed; the message names the entry and the fix."""


def address_of(cfg: BackendConfig) -> str:
    """The ``ip:port`` the proxy dials for ``cfg``: what the picker names in its answer."""
    return cfg.url.split("://", 1)[1].split("/", 1)[0]


def parse_endpoints(data: Any, where: str) -> list[BackendConfig]:
    """The endpoints of a parsed file (``where`` names it in errors)."""
    if data is None:
        data = {}
    if not isinstance(data, dict) or set(data) - {"endpoints"}:
        raise EndpointsError(f"{where}: expected a mapping with one key, 'endpoints' (a list "
                             "of ip:port or {address: ip:port, ...})")
    items = data.get("endpoints") or []
    if not isinstance(items, list):
        raise EndpointsError(f"{where}: 'endpoints' must be a list")
    out: list[BackendConfig] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        at = f"{where}: endpoints[{i}]"
        entry = {"address": item} if isinstance(item, str) else item
        if not isinstance(entry, dict) or "address" not in entry:
            raise EndpointsError(f"{at}: give 'ip:port' or a mapping with 'address: ip:port'")
        if "url" in entry:
            raise EndpointsError(f"{at}: name the endpoint by 'address' (ip:port), not 'url'")
        address = str(entry["address"]).strip()
        m = _ADDRESS.match(address)
        if m is None or not 0 < int(m.group(2)) < 65536:
            raise EndpointsError(f"{at}: address {address!r} is not ip:port (like "
                                 "10.0.0.5:8000)")
        if address in seen:
            raise EndpointsError(f"{at}: address {address} is listed twice")
        seen.add(address)
        fields = {k: v for k, v in entry.items() if k != "address"}
        out.append(from_mapping(BackendConfig, {"url": f"http://{address}", **fields}, at,
                                EndpointsError))
    return out


class Watcher:
    """Re-reads the endpoints file when it changes (``poll``, called on a timer)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._stat: tuple[int, int, int] | None = None
        self._digest = b""
        self._error = ""
        self.reloads = 0  # pools taken from the file since the first
        self.failures = 0  # reads that failed and kept the last good pool

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def load(self) -> list[BackendConfig]:
        """The pool now; ``EndpointsError`` when the file cannot give one (at start)."""
        self._stat = self._signature()
        text = read_text(self.path, EndpointsError)
        out = self._parse(text)
        self._digest = hashlib.sha256(text.encode()).digest()
        return out

    def _parse(self, text: str) -> list[BackendConfig]:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise EndpointsError(f"{self.path}: not valid YAML ({exc})") from None
        return parse_endpoints(data, str(self.path))

    def poll(self) -> list[BackendConfig] | None:
        """The new pool when the file changed to a valid one since the last read, else None."""
        sig = self._signature()
        if sig == self._stat:
            return None
        self._stat = sig
        try:
            text = read_text(self.path, EndpointsError)
            digest = hashlib.sha256(text.encode()).digest()
            if digest == self._digest:
                return None  # touched, not changed
            out = self._parse(text)
        except EndpointsError as exc:
            self.failures += 1
            if str(exc) != self._error:
                log.warning("endpoints file: %s; keeping the last good pool", exc)
                self._error = str(exc)
            return None
        self._digest, self._error = digest, ""
        self.reloads += 1
        return out
