"""Everything that decides: routers, admission, queue disciplines.

Pure code: no I/O, no clocks, no globals, no import from ``cluster`` or ``gateway``. The simulator
and the live gateway call the very same objects.
"""

from tokenpilot.policy.view import InstanceView

__all__ = ["InstanceView"]
