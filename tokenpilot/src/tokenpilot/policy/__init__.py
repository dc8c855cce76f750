"""Everything that decides: routers, admission, queue disciplines.

Pure code: no I/O, no clocks, no globals, no import from ``cluster`` or ``gateway``. The simulator
and the live gateway call the very same objects.
"""

from tokenpilot.policy.admission import (
    Admission,
    AdmissionConfig,
    Decision,
    TenantLimits,
)
from tokenpilot.policy.buckets import BucketLimits, BucketStore, MemoryBucketStore
from tokenpilot.policy.compose import ComposedRouter, compose, load_composed
from tokenpilot.policy.disciplines import VTC, StrictPriority
from tokenpilot.policy.isolation import IsolationPolicy, SizeClassRouter
from tokenpilot.policy.router import NoHealthyInstance, Router, RouterError
from tokenpilot.policy.routers import ROUTERS, get_router, make_router
from tokenpilot.policy.view import InstanceView

__all__ = [
    "ROUTERS",
    "VTC",
    "Admission",
    "AdmissionConfig",
    "BucketLimits",
    "BucketStore",
    "ComposedRouter",
    "Decision",
    "InstanceView",
    "IsolationPolicy",
    "MemoryBucketStore",
    "NoHealthyInstance",
    "Router",
    "RouterError",
    "SizeClassRouter",
    "StrictPriority",
    "TenantLimits",
    "compose",
    "get_router",
    "load_composed",
    "make_router",
]
