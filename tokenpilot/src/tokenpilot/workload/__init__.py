"""Requests and the workloads they come in: trace loaders and generators.

A workload is a list of ``Request`` sorted by arrival, ids ``0..n-1`` in that order. See
``tokenpilot.workload.spec`` for the one-string form the command line uses.
"""

from tokenpilot.workload.errors import WorkloadError
from tokenpilot.workload.generators import gamma, mix, onoff, poisson, prefix_groups, tenants
from tokenpilot.workload.loaders import (
    TRACES,
    load_azure,
    load_file,
    load_generic,
    load_mooncake,
    trace_path,
)
from tokenpilot.workload.request import Request
from tokenpilot.workload.spec import (
    SPEC_FORMS,
    WorkloadSpec,
    expected_count,
    load_workload,
    parse_spec,
)
from tokenpilot.workload.transform import mean_rate, scale_time, scale_to_rate, truncate

__all__ = [
    "SPEC_FORMS",
    "TRACES",
    "Request",
    "WorkloadError",
    "WorkloadSpec",
    "expected_count",
    "gamma",
    "load_azure",
    "load_file",
    "load_generic",
    "load_mooncake",
    "load_workload",
    "mean_rate",
    "mix",
    "onoff",
    "parse_spec",
    "poisson",
    "prefix_groups",
    "scale_time",
    "scale_to_rate",
    "tenants",
    "trace_path",
    "truncate",
]
