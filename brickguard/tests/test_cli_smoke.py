import subprocess
import sys

from typer.testing import CliRunner

from brickguard import __version__
from brickguard.cli import app


def test_version_in_process():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"brickguard {__version__}"


def test_console_script_runs():
    out = subprocess.run(
        [sys.executable, "-m", "brickguard.cli", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert __version__ in out.stdout
