"""One vLLM-like inference instance, simulated event by event (not token by token).

Paged KV blocks with prefix caching and LRU eviction (``block_manager``), a running decode
batch kept as aggregates (``decoders``), continuous batching with chunked prefill and
preemption by recompute or swap (``scheduler``), pluggable queue disciplines (``queues``), and
the clock that jumps over identical decode iterations in closed form (``timing``, ``engine``).
"""

from tokenpilot.engine.block_manager import BlockManager
from tokenpilot.engine.engine import Engine
from tokenpilot.engine.metrics import EngineStats, RequestResult, TimeSeries
from tokenpilot.engine.queues import FCFS, QueueDiscipline, make_discipline
from tokenpilot.engine.sequence import EngineConfig

__all__ = [
    "FCFS",
    "BlockManager",
    "Engine",
    "EngineConfig",
    "EngineStats",
    "QueueDiscipline",
    "RequestResult",
    "TimeSeries",
    "make_discipline",
]
