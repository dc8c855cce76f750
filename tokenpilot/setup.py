"""Compiles the simulator's hot modules (engine, cost model) and the gateway's stream relay
with mypyc when it can.

They are plain, type-annotated Python; mypyc (mypy's compiler, a build requirement in
pyproject.toml) turns the modules below into C extensions that run the same code about twice as
fast. Every other setting lives in pyproject.toml.

Without a C compiler or Python's headers the install still succeeds: the build says why it fell
back and the pure-Python modules run instead (same results, slower). ``TOKENPILOT_PURE=1`` asks
for that on purpose. A type error in these modules fails the build: it is a bug, not a missing
tool, and a silently slower engine would hide it.
"""

from __future__ import annotations

import glob
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The modules one simulated event runs through; nothing subclasses or patches their classes.
COMPILED = [
    "src/tokenpilot/costmodel/model.py",
    "src/tokenpilot/costmodel/steps.py",
    "src/tokenpilot/engine/block_manager.py",
    "src/tokenpilot/engine/decoders.py",
    "src/tokenpilot/engine/engine.py",
    "src/tokenpilot/engine/metrics.py",
    "src/tokenpilot/engine/scheduler.py",
    "src/tokenpilot/engine/sequence.py",
    "src/tokenpilot/engine/timeline.py",
    "src/tokenpilot/engine/timing.py",
    # The gateway's stream relay: the code each relayed chunk runs through.
    "src/tokenpilot/gateway/splice.py",
    "src/tokenpilot/gateway/watchdog.py",
]


def _say(msg: str) -> None:
    print(f"tokenpilot build: {msg}", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the pure-Python modules when compiling fails."""

    def run(self) -> None:
        if not self.extensions:  # TOKENPILOT_PURE or no mypyc: an older build must not shadow
            if self.inplace:
                src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
                for path in glob.glob(os.path.join(src, "**", "*.so"), recursive=True):
                    os.remove(path)
            return
        inplace = self.inplace  # setuptools clears it while it builds, and may not restore it
        try:
            super().run()
        except Exception as exc:  # no compiler, no Python.h, ...
            self.inplace = inplace
            self._fall_back(exc)
            return
        self.inplace = inplace
        if inplace:
            # Up to date even where nothing needed recompiling: importing tokenpilot warns when
            # a compiled module is older than its source.
            for path in self._inplace_outputs():
                os.utime(path)

    def _inplace_outputs(self) -> list[str]:
        paths = [self.get_ext_fullpath(ext.name) for ext in self.extensions]
        return [p for p in paths if os.path.exists(p)]

    def _fall_back(self, exc: Exception) -> None:
        if self.inplace:  # an older build would shadow the sources it no longer matches
            for path in self._inplace_outputs():
                os.remove(path)
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if len(why) > 200:
            why = why[:200] + "..."
        _say(f"compiling the engine failed ({why}); using the pure-Python engine, about 2x "
             "slower. Install a C compiler and Python's headers (Debian: apt-get install gcc "
             "python3-dev) and reinstall to compile it.")


def ext_modules() -> list:
    if os.environ.get("TOKENPILOT_PURE"):
        _say("TOKENPILOT_PURE is set: the engine stays pure Python")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypyc is not installed: the engine stays pure Python")
        return []
    # Only these modules must type-check; the ones they import are read for their types.
    return mypycify(["--follow-imports=silent", "--ignore-missing-imports", *COMPILED],
                    opt_level="3")


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
