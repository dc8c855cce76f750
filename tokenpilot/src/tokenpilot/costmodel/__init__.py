"""The roofline cost model: iteration times, KV sizes and capacity, per model x GPU x TP."""

from tokenpilot.costmodel.calibration import Calibration, calibration_for, list_families
from tokenpilot.costmodel.model import (
    DTYPE_BYTES,
    CostModel,
    DoesNotFitError,
    IterationCost,
    attention_pairs,
)
from tokenpilot.costmodel.request import RequestCost, decode_seconds, estimate_request

__all__ = [
    "DTYPE_BYTES",
    "Calibration",
    "CostModel",
    "DoesNotFitError",
    "IterationCost",
    "RequestCost",
    "attention_pairs",
    "calibration_for",
    "decode_seconds",
    "estimate_request",
    "list_families",
]
