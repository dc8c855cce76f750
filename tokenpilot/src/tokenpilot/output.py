"""The output convention every command follows.

Machine-readable results go to stdout (``--format json``); human tables go to stdout in text
mode; logs and progress always go to stderr, so ``tokenpilot ... --format json | jq`` works.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum, StrEnum
from typing import Any

import typer


class Format(StrEnum):
    text = "text"
    json = "json"


ProgressFn = Callable[[int, int], None]
FORMAT_OPTION = typer.Option(Format.text, "--format", "-f", help="Output format: text or json.")


def emit(data: Any, fmt: Format, render_text: Callable[[Any], str]) -> None:
    """Print ``data`` as JSON or as the human text that ``render_text`` makes of it."""
    if fmt is Format.json:
        json.dump(data, sys.stdout, indent=2, default=_default)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(data).rstrip("\n") + "\n")


def log(message: str) -> None:
    """A human progress or log line: always stderr."""
    print(message, file=sys.stderr, flush=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a clear error (no traceback) and return the Exit to raise."""
    print(f"error: {message}", file=sys.stderr, flush=True)
    return typer.Exit(code)


def _default(obj: Any) -> Any:
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, Enum):
        return obj.value
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(obj)
    raise TypeError(f"cannot serialise {type(obj).__name__}")


@contextmanager
def progress_bar(label: str, show: bool) -> Iterator[ProgressFn | None]:
    """A progress bar on stderr while the block runs, when stderr is a terminal or ``show``;
    the block gets ``update(done, total)``, or None when there is no bar."""
    if not (show or sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
