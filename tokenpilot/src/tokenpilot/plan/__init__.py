"""``tokenpilot plan``: the cheapest fleet (GPU mix, TP, prefill/decode pools) that meets an
SLO for a workload, sized from per-bucket profiles by a MILP and verified by simulating the
whole workload; and ``--check``: a fleet's headroom.

``profile`` (step 1: sustainable rate per request-size bucket and instance kind), ``solve``
(step 2: the MILP), ``verify`` (step 3: the simulation), ``planner`` (the three together,
growth, headroom), ``sweep`` (local processes or Ray), ``slo`` (what the command line reads).
"""

from tokenpilot.plan.planner import Headroom, Plan, Tried, headroom, make_plan
from tokenpilot.plan.profile import Bucket, Kind, ProfilePoint, make_buckets
from tokenpilot.plan.slo import SLO, PlanError, parse_gpus, parse_slo, parse_tps
from tokenpilot.plan.solve import Candidate, RateTable, candidates, solve
from tokenpilot.plan.sweep import EXECUTORS, Sweep, SweepError
from tokenpilot.plan.verify import Verdict, VerifyTask, verify

__all__ = [
    "EXECUTORS",
    "SLO",
    "Bucket",
    "Candidate",
    "Headroom",
    "Kind",
    "Plan",
    "PlanError",
    "ProfilePoint",
    "RateTable",
    "Sweep",
    "SweepError",
    "Tried",
    "Verdict",
    "VerifyTask",
    "candidates",
    "headroom",
    "make_buckets",
    "make_plan",
    "parse_gpus",
    "parse_slo",
    "parse_tps",
    "solve",
    "verify",
]
