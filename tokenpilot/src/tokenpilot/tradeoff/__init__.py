"""``tokenpilot tradeoff``: a KV optimization's gain in the simulator beside its quality loss
on a real model served by llama.cpp (``run`` ties ``quality`` and ``fleet`` together)."""
