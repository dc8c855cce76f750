"""Per-request measurement logs: what a real server did with each request, read from CSV or JSONL.

A log has one record per request with these columns (other columns are ignored)::

    arrival_s       when the request was sent, seconds on any clock (only differences matter)
    prompt_tokens   prompt tokens as the server counted them (its ``usage``)
    output_tokens   tokens generated, at least 1
    ttft_s          time to first token, from arrival
    tpot_s          mean time per output token after the first (ignored when output_tokens is 1)

``first_token_s`` and ``finish_s`` (times on the arrival clock) may stand in for ``ttft_s`` and
``tpot_s``. A ``.jsonl`` file holds one JSON object per line; anything else is read as CSV with a
header row. Every problem raises ``LogError`` with one line naming the file, the line and what is
wrong, so the command line can print it as it is.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tokenpilot.workload.request import Request

BASE = ("arrival_s", "prompt_tokens", "output_tokens")
LATENCIES = ("ttft_s", "tpot_s")
TIMESTAMPS = ("first_token_s", "finish_s")


class LogError(ValueError):
    """A measurement log is unreadable or wrong; the message names the file and line."""


@dataclass(frozen=True)
class MeasuredRequest:
    arrival_s: float  # from the log's first arrival
    prompt_tokens: int
    output_tokens: int
    ttft_s: float
    tpot_s: float | None  # None for one-token outputs: no time between tokens was measured


@dataclass(frozen=True)
class RequestLog:
    path: str
    records: tuple[MeasuredRequest, ...]  # sorted by arrival

    def requests(self) -> list[Request]:
        """The log's requests as the simulator replays them (same arrivals, same lengths)."""
        return [Request(id=i, arrival=r.arrival_s, prompt_tokens=r.prompt_tokens,
                        output_tokens=r.output_tokens) for i, r in enumerate(self.records)]

    @property
    def duration_s(self) -> float:
        return self.records[-1].arrival_s if self.records else 0.0


def percentiles(ttft: Sequence[float], tpot: Sequence[float]) -> dict[str, float]:
    """TTFT and TPOT p50 and p90 (NaN for an empty list): the figures fits and runs compare."""
    def q(xs: Sequence[float], at: float) -> float:
        return float(np.quantile(np.asarray(xs), at)) if len(xs) else math.nan

    return {"ttft_p50": q(ttft, 0.5), "ttft_p90": q(ttft, 0.9),
            "tpot_p50": q(tpot, 0.5), "tpot_p90": q(tpot, 0.9)}


def read_log(path: str | Path) -> RequestLog:
    """Read and check a log; ``LogError`` names the first bad line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")  # a spreadsheet's CSV may start with a BOM
    except OSError as exc:
        raise LogError(f"cannot read log {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise LogError(f"{p}: not a text file (a CSV or JSONL log is expected)") from None
    rows = _jsonl_rows(p, text) if p.suffix.lower() == ".jsonl" else _csv_rows(p, text)
    records, first = [], None
    for line, row in rows:
        if first is None:
            first = line
            _check_columns(p, row.keys(), line)
        records.append(_record(p, line, row))
    if not records:
        raise LogError(f"{p}: the log has no requests")
    records.sort(key=lambda r: r.arrival_s)
    t0 = records[0].arrival_s
    records = [MeasuredRequest(r.arrival_s - t0, r.prompt_tokens, r.output_tokens, r.ttft_s,
                               r.tpot_s) for r in records]
    return RequestLog(str(p), tuple(records))


def _jsonl_rows(p: Path, text: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise LogError(f"{p}: line {n}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise LogError(f"{p}: line {n}: expected a JSON object, got {type(row).__name__}")
        yield n, row


def _csv_rows(p: Path, text: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    reader = csv.DictReader(text.splitlines())
    if reader.fieldnames is None:
        raise LogError(f"{p}: the log is empty (a CSV header row is expected)")
    _check_columns(p, [f.strip() for f in reader.fieldnames], 1)
    for row in reader:
        if None in row:
            raise LogError(f"{p}: line {reader.line_num}: more values than header columns")
        clean = {k.strip(): v for k, v in row.items() if k is not None}
        if all(v is None or not v.strip() for v in clean.values()):
            continue
        yield reader.line_num, clean


def _check_columns(p: Path, keys: Any, line: int) -> None:
    keys = set(keys)
    missing = [c for c in BASE if c not in keys]
    if not (set(LATENCIES) <= keys or set(TIMESTAMPS) <= keys):
        pair = TIMESTAMPS if keys & set(TIMESTAMPS) else LATENCIES
        missing += [c for c in pair if c not in keys]
    if missing:
        where = f"line {line}" if p.suffix.lower() == ".jsonl" else "header"
        raise LogError(f"{p}: {where}: missing column{'s' if len(missing) > 1 else ''} "
                       f"{', '.join(missing)} (a log needs {', '.join(BASE)} and either "
                       f"{' and '.join(LATENCIES)} or {' and '.join(TIMESTAMPS)})")


def _record(p: Path, line: int, row: Mapping[str, Any]) -> MeasuredRequest:
    def bad(msg: str) -> LogError:
        return LogError(f"{p}: line {line}: {msg}")

    def number(key: str) -> float:
        v = row.get(key)
        if v is None or (isinstance(v, str) and not v.strip()):
            raise bad(f"{key} is missing")
        if isinstance(v, bool):
            raise bad(f"{key}: expected a number, got {v!r}")
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise bad(f"{key}: expected a number, got {v!r}") from None
        if not math.isfinite(x):
            raise bad(f"{key}: expected a finite number, got {v!r}")
        if x < 0:
            raise bad(f"{key} is negative ({x:g})")
        return x

    def count(key: str) -> int:
        x = number(key)
        if x != int(x):
            raise bad(f"{key}: expected a whole number, got {x:g}")
        return int(x)

    arrival, prompt, output = number("arrival_s"), count("prompt_tokens"), count("output_tokens")
    if prompt < 1:
        raise bad("prompt_tokens is 0; a request has at least one prompt token")
    if output < 1:
        raise bad("output_tokens is 0; a request that generated nothing has no TTFT or TPOT")
    if _given(row, "ttft_s") or _given(row, "tpot_s"):
        # A one-token output has no time between tokens: its tpot_s may be left empty.
        ttft = number("ttft_s")
        tpot = number("tpot_s") if output > 1 or _given(row, "tpot_s") else 0.0
    else:
        first, finish = number("first_token_s"), number("finish_s")
        if first < arrival:
            raise bad(f"first_token_s ({first:g}) is before arrival_s ({arrival:g})")
        if finish < first:
            raise bad(f"finish_s ({finish:g}) is before first_token_s ({first:g})")
        ttft = first - arrival
        tpot = (finish - first) / (output - 1) if output > 1 else 0.0
    if ttft <= 0:
        raise bad("ttft_s is 0; a first token takes some time")
    return MeasuredRequest(arrival, prompt, output, ttft, tpot if output > 1 else None)


def _given(row: Mapping[str, Any], key: str) -> bool:
    v = row.get(key)
    return v is not None and not (isinstance(v, str) and not v.strip())


def write_log(path: str | Path, records: list[dict[str, Any]]) -> None:
    """Write records (dicts with the log's columns) as JSONL or CSV, by the file's suffix."""
    p = Path(path)
    if p.suffix.lower() == ".jsonl":
        p.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return
    cols = list(dict.fromkeys(k for r in records for k in r))
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(records)
