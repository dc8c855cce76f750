"""The CI integration files are real: the pre-commit hooks and the GitHub code-scanning workflow
name commands and options that exist, and fail on a skipped analysis."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml
from typer.testing import CliRunner

from brickguard.cli import app

REPO = Path(__file__).resolve().parents[2]
HOOKS = REPO / ".pre-commit-hooks.yaml"
WORKFLOW = REPO / "brickguard/examples/ci/github-code-scanning.yml"


def _options(command: str) -> set[str]:
    help_text = CliRunner().invoke(app, [command, "--help"], terminal_width=200).stdout
    return {w.strip(",") for w in help_text.split() if w.startswith("--")}


def test_pre_commit_hooks_run_check_with_real_options() -> None:
    hooks = yaml.safe_load(HOOKS.read_text())
    assert {h["id"] for h in hooks} == {"brickguard", "brickguard-misra"}
    known = _options("check")
    for hook in hooks:
        argv = shlex.split(hook["entry"])
        assert argv[:2] == ["brickguard", "check"] and "--fail-on-skip" in argv
        assert set(a for a in argv[2:] if a.startswith("--")) <= known
        assert hook["language"] == "system" and hook["files"] == r"\.c$"


def test_the_workflow_uploads_sarif_to_code_scanning() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text())
    steps = flow["jobs"]["brickguard"]["steps"]
    assert flow["permissions"]["security-events"] == "write"
    check = next(s["run"] for s in steps if "brickguard check" in s.get("run", ""))
    assert "--format sarif --output brickguard.sarif" in check
    upload = next(s for s in steps if "upload-sarif" in s.get("uses", ""))
    assert upload["if"] == "always()" and upload["with"]["sarif_file"] == "brickguard.sarif"
    assert set(a for a in shlex.split(check) if a.startswith("--")) <= _options("check")
