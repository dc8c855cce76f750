"""The health loop's clocks: every backend checked each interval, the quick ones in the same
turn of the loop (the checks start on multiples of the interval), a slow one delaying none of
the others. No server: ``check`` is stood in for."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from tokenpilot.gateway import health
from tokenpilot.gateway.config import HealthConfig


def _run(monkeypatch: pytest.MonkeyPatch, slow: dict[str, float], interval_ms: int,
         run_s: float) -> dict[str, list[float]]:
    starts: dict[str, list[float]] = {}

    async def fake_check(up: object, b: SimpleNamespace, timeout_s: float) -> bool:
        starts.setdefault(b.name, []).append(asyncio.get_running_loop().time())
        await asyncio.sleep(slow.get(b.name, 0.0))
        return True

    monkeypatch.setattr(health, "check", fake_check)
    backends = [SimpleNamespace(name=n) for n in ("a", "b", "c")]

    async def main() -> None:
        # The backends' first checks at different moments, as the gateway's first
        # ``check_all`` and the start of the loop would leave them.
        task = asyncio.ensure_future(health.health_loop(
            None, backends, HealthConfig(interval_ms=interval_ms)))  # type: ignore[arg-type]
        await asyncio.sleep(run_s)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    return starts


def test_quick_checks_start_together_on_the_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    interval = 0.2
    starts = _run(monkeypatch, {"a": 0.0, "b": 0.023, "c": 0.061}, 200, 1.5)
    for name, ts in starts.items():
        assert len(ts) >= 6, (name, ts)
        for t in ts[1:]:  # after the first: on a tick of the interval (timers: ~ms late)
            off = t % interval
            assert min(off, interval - off) < 0.02, (name, t, off)
    # The same ticks for all: each later check of "c" starts with one of "a" (on clocks of
    # their own "c" would drift 61 ms a check behind "a").
    for tc in starts["c"][1:-1]:
        assert min(abs(tc - ta) for ta in starts["a"]) < 0.02, (starts["a"], starts["c"])

def test_a_slow_check_delays_no_other(monkeypatch: pytest.MonkeyPatch) -> None:
    starts = _run(monkeypatch, {"b": 0.5}, 200, 1.5)
    assert len(starts["a"]) >= 6 and len(starts["c"]) >= 6, starts
    # "b" takes 2.5 intervals: its next check waits for the tick after it ended.
    assert 2 <= len(starts["b"]) <= 4, starts["b"]
    gaps = [t1 - t0 for t0, t1 in zip(starts["b"], starts["b"][1:], strict=False)]
    assert all(0.5 <= g < 0.5 + 0.2 + 0.05 for g in gaps), gaps
