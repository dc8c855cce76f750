"""Calibration from the user's own measurements: per-request logs in, a fitted profile out.

``logs`` reads a per-request log (CSV or JSONL), ``fit`` fits the cost model's efficiencies and
overheads with the simulator in the loop, ``profile`` reads and writes the PROFILE.yaml that
``tokenpilot simulate --calibration`` and fleet files (``calibration:``) use, and ``record``
writes such a log from a live OpenAI-compatible server (the llama.cpp sim-to-real harness).

Only ``logs`` and ``profile`` are imported here: the cluster reads profiles, and ``fit`` imports
the cluster, so importing ``fit`` from this package would make a cycle.
"""

from tokenpilot.calibrate.logs import LogError, MeasuredRequest, RequestLog, read_log
from tokenpilot.calibrate.profile import Profile, ProfileError, load_profile, write_profile

__all__ = [
    "LogError",
    "MeasuredRequest",
    "Profile",
    "ProfileError",
    "RequestLog",
    "load_profile",
    "read_log",
    "write_profile",
]
