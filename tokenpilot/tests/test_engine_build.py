"""The mypyc-compiled engine and cost model and their pure-Python source give the same results.

Users without a C compiler run the source (tokenpilot/setup.py falls back to it), everyone else
the compiled modules; both must agree to the last bit on a workload that exercises prefix
caching, chunked prefill, preemption, a sliding window and prefill-first scheduling (whole
prompts, and with a host-memory limit on swap).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tokenpilot.engine import COMPILED

# Runs in a child process: the engine's modules are loaded from their .py files (a finder placed
# before the one that would pick the compiled extension), then a workload is simulated.
SCRIPT = textwrap.dedent("""
    import importlib.machinery, importlib.util, json, pathlib, sys

    PURE = sys.argv[1] == "pure"

    class SourceFirst:
        def find_spec(self, name, path=None, target=None):
            if not name.startswith(("tokenpilot.engine.", "tokenpilot.costmodel.")) or not path:
                return None
            file = pathlib.Path(list(path)[0]) / (name.rsplit(".", 1)[1] + ".py")
            if not file.is_file():
                return None
            return importlib.util.spec_from_file_location(name, file)

    if PURE:
        sys.meta_path.insert(0, SourceFirst())

    import random
    import tokenpilot.costmodel.model as cmod
    import tokenpilot.engine.engine as mod
    from tokenpilot.costmodel import CostModel
    from tokenpilot.engine import Engine, EngineConfig
    from tokenpilot.hardware import get_gpu
    from tokenpilot.models import get_model
    from tokenpilot.workload import Request

    rng = random.Random(7)
    reqs, t = [], 0.0
    for i in range(400):
        t += rng.expovariate(40.0)
        hashes = tuple(rng.randrange(3) for _ in range(rng.randrange(4)))
        reqs.append(Request(i, t, rng.randrange(1, 3000), rng.randrange(1, 400),
                            prefix_hashes=hashes))
    out = {"file": mod.__file__, "cfile": cmod.__file__}
    v0 = {"prefill_first": True, "chunked_prefill": False, "max_num_batched_tokens": 4096}
    for window, preemption, extra in (
            (None, "recompute", {}), (None, "swap", {}), (1024, "recompute", {}),
            (None, "recompute", v0), (None, "swap", {"swap_tokens": 3000, "prefill_first": True})):
        cm = CostModel(get_model("llama-3.1-8b"), get_gpu("l40s"))
        kw = {"max_num_batched_tokens": 2048, **extra}
        eng = Engine(cm, EngineConfig(preemption=preemption, **kw), num_blocks=600,
                     window=window)
        rows = [(r.id, r.first_token, r.finish, r.cached_tokens, len(r.preemptions))
                for r in eng.run(reqs)]
        out[f"{window}-{preemption}-{sorted(extra)}"] = rows
    print(json.dumps(out))
""")


def _run(mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.skipif(not COMPILED, reason="the engine is not compiled here (no C compiler at "
                    "install, or TOKENPILOT_PURE): there is no second build to compare")
def test_compiled_and_pure_engines_agree() -> None:
    pure, compiled = _run("pure"), _run("compiled")
    for key in ("file", "cfile"):
        assert pure.pop(key).endswith(".py")
        assert not compiled.pop(key).endswith(".py")
    assert pure.keys() == compiled.keys()
    for key in pure:
        assert pure[key] == compiled[key], key
    # The workload must exercise what it claims to: preemptions and prefix hits occur.
    assert any(row[4] for rows in pure.values() for row in rows)
    assert any(row[3] for rows in pure.values() for row in rows)
