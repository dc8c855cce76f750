import subprocess
import sys

from typer.testing import CliRunner

from tokenpilot import __version__
from tokenpilot.cli import app


def test_version_in_process():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"tokenpilot {__version__}"


def test_console_script_runs():
    out = subprocess.run(
        [sys.executable, "-m", "tokenpilot.cli", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert __version__ in out.stdout
