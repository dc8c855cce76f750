"""The fleet simulator: instances of several GPU types and models, a router in front.

``load_fleet`` reads a fleet (a YAML file or a built-in name), ``simulate`` runs a workload
through it under a router (and optionally an admission policy), ``compute_metrics`` turns the
run into figures (see ``tokenpilot.cluster.metrics`` for the definitions).
"""

from tokenpilot.cluster.fleet import (
    FleetError,
    FleetSpec,
    InstanceSpec,
    build_engines,
    fleet_capacity,
    fleet_from_dict,
    instance_capacity,
    load_fleet,
    mean_shape,
)
from tokenpilot.cluster.fleets import (
    DEFAULT_FLEET,
    DEFAULT_LOAD,
    DEFAULT_WORKLOAD,
    FLEETS,
    WORKLOADS,
)
from tokenpilot.cluster.metrics import FleetMetrics, InstanceMetrics, by_gpu, compute_metrics
from tokenpilot.cluster.sim import ConservationError, FleetSim, SimResult, simulate

__all__ = [
    "DEFAULT_FLEET",
    "DEFAULT_LOAD",
    "DEFAULT_WORKLOAD",
    "FLEETS",
    "WORKLOADS",
    "ConservationError",
    "FleetError",
    "FleetMetrics",
    "FleetSim",
    "FleetSpec",
    "InstanceMetrics",
    "InstanceSpec",
    "SimResult",
    "build_engines",
    "by_gpu",
    "compute_metrics",
    "fleet_capacity",
    "fleet_from_dict",
    "instance_capacity",
    "load_fleet",
    "mean_shape",
    "simulate",
]
