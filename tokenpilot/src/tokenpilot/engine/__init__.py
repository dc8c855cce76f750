"""One vLLM-like inference instance, simulated event by event (not token by token).

Paged KV blocks with prefix caching and LRU eviction (``block_manager``), a running decode
batch kept as aggregates (``decoders``), continuous batching with chunked prefill and
preemption by recompute or swap (``scheduler``), pluggable queue disciplines (``queues``), and
the clock that jumps over identical decode iterations in closed form (``timing``, ``engine``).

Those modules are compiled by mypyc when the package is built (``tokenpilot/setup.py``);
``COMPILED`` says whether this process runs the compiled ones. A compiled module older than its
source is a stale build (an edit after ``pip install -e``): importing warns, and ``make compile``
rebuilds it.
"""

import os
import warnings

from tokenpilot.engine.block_manager import BlockManager
from tokenpilot.engine.engine import Engine
from tokenpilot.engine.metrics import EngineStats, RequestResult, TimeSeries
from tokenpilot.engine.queues import FCFS, QueueDiscipline, make_discipline
from tokenpilot.engine.sequence import EngineConfig


def _compiled_modules() -> list[str]:
    """Files of the engine's modules loaded as C extensions (empty: pure Python)."""
    from tokenpilot.engine import block_manager, decoders, engine, scheduler, sequence, timing

    files = [m.__file__ or "" for m in (block_manager, decoders, engine, scheduler, sequence,
                                        timing)]
    return [f for f in files if not f.endswith(".py")]


def _warn_if_stale(files: list[str]) -> None:
    for so in files:
        py = os.path.join(os.path.dirname(so), os.path.basename(so).split(".")[0] + ".py")
        if os.path.exists(py) and os.path.getmtime(py) > os.path.getmtime(so) + 1:
            warnings.warn(f"{so} is older than {os.path.basename(py)}: this process runs the "
                          "engine as it was before your edit; run `make compile` (or delete "
                          "the .so files to run the source)", stacklevel=3)
            return


_COMPILED = _compiled_modules()
COMPILED = bool(_COMPILED)
_warn_if_stale(_COMPILED)

__all__ = [
    "COMPILED",
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
