"""One vLLM-like inference instance, simulated event by event (not token by token).

Paged KV blocks with prefix caching and LRU eviction (``block_manager``), a running decode
batch kept as aggregates (``decoders``), continuous batching with chunked prefill and
preemption by recompute or swap (``scheduler``), the clock that jumps over identical decode
iterations in closed form (``timing``, ``engine``) and the log of when each event ran
(``timeline``). The queue disciplines it runs are ``policy.disciplines``'.

Those modules (and the cost model's) are compiled by mypyc when the package is built
(``tokenpilot/setup.py``); ``COMPILED`` says whether this process runs the compiled ones.
"""

from tokenpilot.engine import engine as _engine
from tokenpilot.engine.block_manager import BlockManager
from tokenpilot.engine.engine import Engine
from tokenpilot.engine.metrics import EngineStats, RequestResult, TimeSeries
from tokenpilot.engine.sequence import EngineConfig

# Whether this process runs the mypyc-compiled engine (tokenpilot/setup.py) or its source.
COMPILED = not (_engine.__file__ or "").endswith(".py")

__all__ = [
    "COMPILED",
    "BlockManager",
    "Engine",
    "EngineConfig",
    "EngineStats",
    "RequestResult",
    "TimeSeries",
]
