"""``brickguard init [DIR]``: write a brickguard.toml for an existing project (see init.py)."""

from __future__ import annotations

from pathlib import Path

import typer

from brickguard.errors import BrickguardError
from brickguard.output import fail, log

CONFIG_NAME = "brickguard.toml"  # config.CONFIG_NAME, without importing the config at start-up


def init(
    folder: Path = typer.Argument(Path("."), metavar="[DIR]", help="The project's folder."),
    force: bool = typer.Option(False, "--force", help="Replace an existing brickguard.toml."),
    stdout: bool = typer.Option(False, "--stdout", help="Print the file instead of writing it."),
    output: Path | None = typer.Option(
        None, "--output", "-o",
        help="Write the file here instead (a read-only tree): it names DIR as [build] root.",
    ),
) -> None:
    """Write a working brickguard.toml from the project's build files, saying what it chose."""
    from brickguard.init import init_project

    target = output or folder / CONFIG_NAME
    if target.exists() and not force and not stdout:
        raise fail(f"{target} exists; pass --force to replace it (or --stdout to compare)")
    try:
        project = init_project(folder)
        project.out_dir = target.resolve().parent
    except BrickguardError as exc:
        raise fail(str(exc)) from None
    text = project.toml()
    if stdout:
        typer.echo(text, nl=False)
    else:
        try:
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise fail(f"cannot write {target}: {exc.strerror or exc}") from None
    for line in project.summary():
        log(f"  {line}")
    if not stdout:
        config = f" --config {target}" if output else ""
        log(f"wrote {target}; next: brickguard check {folder}{config} --misra")
