"""Requests and the workloads they come in: trace loaders and generators."""

from tokenpilot.workload.request import Request

__all__ = ["Request"]
