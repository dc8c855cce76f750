"""Trace loaders: Azure LLM inference CSV, Mooncake JSONL, and a generic CSV/JSONL.

Every loader returns a *workload*: a list of ``Request`` sorted by arrival (seconds, the first
request at or after 0) with ids ``0..n-1`` in that order. Columns are parsed in bulk (``csv`` and
numpy) and the ``Request`` objects are made once, at the end, because the fleet simulator loads
millions of rows.
"""

from __future__ import annotations

import csv
import gc
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from tokenpilot.config_section import not_utf8
from tokenpilot.workload._shared import traces_dir
from tokenpilot.workload.errors import WorkloadError
from tokenpilot.workload.request import Request

# Named traces in ``shared/traces``; see the README there for sources and licences.
TRACES: dict[str, str] = {
    "azure-conv": "azure_llm_2023_conv.csv",
    "azure-code": "azure_llm_2023_code.csv",
    "mooncake": "mooncake_conversation.jsonl",
}
MOONCAKE_BLOCK_TOKENS = 512
GENERIC_COLUMNS = ("arrival", "prompt_tokens", "output_tokens")
GENERIC_OPTIONAL = ("tenant", "priority", "slo_class", "prefix_hashes", "prefix_block_tokens")


def trace_path(name: str) -> Path:
    """The file of a named trace (``azure-conv``, ``azure-code``, ``mooncake``)."""
    if name not in TRACES:
        raise WorkloadError(f"unknown trace {name!r}; known traces: {', '.join(TRACES)}")
    folder = traces_dir()
    if folder is None or not (folder / TRACES[name]).is_file():
        raise WorkloadError(
            f"trace {name!r} needs shared/traces/{TRACES[name]} beside the repository, which is "
            "absent; pass the file itself as file:PATH"
        )
    return folder / TRACES[name]


def build_requests(
    arrival: np.ndarray,
    prompt: np.ndarray,
    output: np.ndarray,
    *,
    tenant: Sequence[str] | None = None,
    priority: Sequence[int] | None = None,
    slo_class: Sequence[str] | None = None,
    prefix_hashes: Sequence[tuple[int, ...]] | None = None,
    prefix_block_tokens: Sequence[int] | int = 512,
) -> list[Request]:
    """Sort columns by arrival (stable) and make the ``Request`` objects, ids in arrival order."""
    with paused_gc():
        return _build(arrival, prompt, output, tenant, priority, slo_class, prefix_hashes,
                      prefix_block_tokens)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while making many objects that hold no cycles.

    Each collection walks every live container, so building a million requests with the
    collector on is about four times slower than with it off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _build(arrival, prompt, output, tenant, priority, slo_class, prefix_hashes,
           prefix_block_tokens) -> list[Request]:
    order = np.argsort(arrival, kind="stable")
    if np.any(order[1:] < order[:-1]):  # only reorder the optional columns when needed
        pick = order.tolist()
        tenant = None if tenant is None else [tenant[i] for i in pick]
        priority = None if priority is None else [priority[i] for i in pick]
        slo_class = None if slo_class is None else [slo_class[i] for i in pick]
        prefix_hashes = None if prefix_hashes is None else [prefix_hashes[i] for i in pick]
        if not isinstance(prefix_block_tokens, int):
            prefix_block_tokens = [prefix_block_tokens[i] for i in pick]
    arr = np.asarray(arrival, dtype=np.float64)[order].tolist()
    pro = np.asarray(prompt, dtype=np.int64)[order].tolist()
    out = np.asarray(output, dtype=np.int64)[order].tolist()
    n = len(arr)
    if tenant is None and priority is None and slo_class is None and isinstance(
        prefix_block_tokens, int
    ):
        if prefix_hashes is None:
            return [Request(i, arr[i], pro[i], out[i]) for i in range(n)]
        return [
            Request(i, arr[i], pro[i], out[i], "default", prefix_hashes[i], prefix_block_tokens)
            for i in range(n)
        ]
    ten = tenant if tenant is not None else ["default"] * n
    pri = priority if priority is not None else [0] * n
    slo = slo_class if slo_class is not None else ["default"] * n
    pfx = prefix_hashes if prefix_hashes is not None else [()] * n
    pbt = [prefix_block_tokens] * n if isinstance(prefix_block_tokens, int) else prefix_block_tokens
    return [
        Request(i, arr[i], pro[i], out[i], ten[i], pfx[i], pbt[i], pri[i], slo[i])
        for i in range(n)
    ]


def load_azure(path: str | Path) -> list[Request]:
    """Azure LLM inference trace: ``TIMESTAMP,ContextTokens,GeneratedTokens``.

    Timestamps look like ``2023-11-16 18:15:46.6805900``; arrivals are seconds after the first.
    """
    path = Path(path)
    stamps: list[str] = []
    contexts: list[str] = []
    generated: list[str] = []
    with _open(path) as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or [h.strip() for h in header[:3]] != [
            "TIMESTAMP",
            "ContextTokens",
            "GeneratedTokens",
        ]:
            raise WorkloadError(
                f"{path}: not an Azure trace "
                "(the header must be TIMESTAMP,ContextTokens,GeneratedTokens)"
            )
        for row in reader:
            if not row:
                continue
            if len(row) < 3:
                raise WorkloadError(f"{path}:{reader.line_num}: expected 3 columns, got {row!r}")
            stamps.append(row[0])
            contexts.append(row[1])
            generated.append(row[2])
    if not stamps:
        raise WorkloadError(f"{path}: no requests")
    try:
        times = np.array(stamps, dtype="datetime64[ns]")
        prompt = np.array(contexts).astype(np.int64)
        output = np.array(generated).astype(np.int64)
    except ValueError as exc:
        raise WorkloadError(f"{path}: malformed value ({exc})") from None
    ns = (times - times.min()).astype(np.int64)
    return build_requests(ns / 1e9, prompt, output)


def load_mooncake(path: str | Path, *, seed: int = 0, jitter: bool = True) -> list[Request]:
    """Mooncake JSONL: ``timestamp`` (ms), ``input_length``, ``output_length``, ``hash_ids``.

    The trace's timestamps come in steps of about 3 s, so replaying them as they are sends bursts
    of ~30 requests at the same instant. With ``jitter`` each request gets a seeded uniform
    offset inside its step: ``[t, next distinct t)``; the last step is as wide as the median step.
    ``hash_ids`` (one id per 512-token block) become ``prefix_hashes``.
    """
    path = Path(path)
    stamps: list[float] = []
    prompt: list[int] = []
    output: list[int] = []
    hashes: list[tuple[int, ...]] = []
    loads = json.loads
    with _open(path) as f, paused_gc():
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = loads(line)
                stamps.append(rec["timestamp"])
                prompt.append(rec["input_length"])
                output.append(rec["output_length"])
                hashes.append(tuple(rec.get("hash_ids", ())))
            except (ValueError, KeyError, TypeError) as exc:
                raise WorkloadError(f"{path}:{line_no}: not a Mooncake record ({exc})") from None
    if not stamps:
        raise WorkloadError(f"{path}: no requests")
    ms = np.asarray(stamps, dtype=np.float64)
    ms -= ms.min()
    if jitter:
        ms = jitter_steps(ms, np.random.default_rng(seed))
    return build_requests(
        ms / 1e3, np.asarray(prompt), np.asarray(output), prefix_hashes=hashes,
        prefix_block_tokens=MOONCAKE_BLOCK_TOKENS,
    )


def jitter_steps(stamps: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Spread each timestamp uniformly over ``[t, next distinct timestamp)``."""
    steps = np.unique(stamps)
    if len(steps) < 2:
        return stamps.copy()
    widths = np.diff(steps)
    widths = np.append(widths, np.median(widths))
    width = widths[np.searchsorted(steps, stamps)]
    return stamps + rng.uniform(0.0, 1.0, len(stamps)) * width


def load_generic(path: str | Path) -> list[Request]:
    """A CSV with a header, or JSONL, with columns ``arrival`` (s), ``prompt_tokens``,
    ``output_tokens`` and optionally ``tenant``, ``priority``, ``slo_class``, ``prefix_hashes``
    (a JSON list, or space-separated ints in CSV) and ``prefix_block_tokens``. Other columns are
    ignored. Arrivals are kept as written (seconds from the start), then sorted."""
    path = Path(path)
    rows = _read_jsonl(path) if _is_jsonl(path) else _read_csv(path)
    if not rows:
        raise WorkloadError(f"{path}: no requests")
    missing = [c for c in GENERIC_COLUMNS if c not in rows[0]]
    if missing:
        raise WorkloadError(
            f"{path}: missing column(s) {', '.join(missing)}; a generic workload needs "
            f"{', '.join(GENERIC_COLUMNS)} and may have {', '.join(GENERIC_OPTIONAL)}"
        )
    try:
        arrival = np.array([float(r["arrival"]) for r in rows])
        prompt = np.array([int(r["prompt_tokens"]) for r in rows])
        output = np.array([int(r["output_tokens"]) for r in rows])
        columns = rows[0].keys()
        tenant = [str(r["tenant"]) for r in rows] if "tenant" in columns else None
        priority = [int(r["priority"]) for r in rows] if "priority" in columns else None
        slo = [str(r["slo_class"]) for r in rows] if "slo_class" in columns else None
        pfx = [_hashes(r["prefix_hashes"]) for r in rows] if "prefix_hashes" in columns else None
        pbt: list[int] | int = (
            [int(r["prefix_block_tokens"]) for r in rows]
            if "prefix_block_tokens" in columns
            else 512
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise WorkloadError(f"{path}: malformed value ({exc})") from None
    if np.any(arrival < 0) or np.any(prompt < 0) or np.any(output < 0):
        raise WorkloadError(f"{path}: arrivals and token counts must not be negative")
    return build_requests(
        arrival, prompt, output, tenant=tenant, priority=priority, slo_class=slo,
        prefix_hashes=pfx, prefix_block_tokens=pbt,
    )


def load_file(path: str | Path, *, seed: int = 0) -> list[Request]:
    """Load any supported file, telling the format from its header or first record."""
    path = Path(path)
    if not path.is_file():
        raise WorkloadError(f"{path}: no such file")
    try:
        return _load_file(path, seed)
    except UnicodeDecodeError as exc:  # raised while reading, wherever the bad byte is
        raise WorkloadError(f"{path}: {not_utf8(exc, whole=False)}") from None


def _load_file(path: Path, seed: int) -> list[Request]:
    with _open(path) as f:
        first = f.readline()
    if _is_jsonl(path):
        try:
            keys = json.loads(first).keys() if first.strip() else ()
        except (ValueError, AttributeError):
            raise WorkloadError(f"{path}:1: not a JSON object") from None
        return load_mooncake(path, seed=seed) if "input_length" in keys else load_generic(path)
    if first.startswith("TIMESTAMP"):
        return load_azure(path)
    return load_generic(path)


def _open(path: Path):
    try:
        return open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot read ({exc.strerror})") from None


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in (".jsonl", ".json", ".ndjson")


def _read_csv(path: Path) -> list[dict]:
    with _open(path) as f:
        return list(csv.DictReader(f))


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    with _open(path) as f:
        for line_no, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    raise WorkloadError(f"{path}:{line_no}: not a JSON object") from None
    return rows


def _hashes(value) -> tuple[int, ...]:
    if isinstance(value, list | tuple):
        return tuple(int(v) for v in value)
    return tuple(int(v) for v in str(value).split())
