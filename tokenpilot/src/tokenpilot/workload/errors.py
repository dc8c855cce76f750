"""The one error type of the workload package."""

from __future__ import annotations


class WorkloadError(ValueError):
    """A workload could not be built: bad spec, missing trace, malformed file.

    The message is meant for the person at the terminal: it says what was wrong and what to do.
    """
