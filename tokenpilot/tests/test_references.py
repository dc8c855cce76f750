"""What a newcomer looks for beside the code (issue 19): the licence, examples, catalogs."""

from __future__ import annotations

import tomllib

from tokenpilot.paths import REPO_ROOT


def test_the_license_file_is_the_apache_2_0_the_packages_declare():
    text = (REPO_ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    for dist in ("tokenpilot", "brickguard"):
        meta = tomllib.loads((REPO_ROOT / dist / "pyproject.toml").read_text())["project"]
        assert meta["license"] == "Apache-2.0", dist


def test_gpus_and_models_list_the_catalogs_in_text_and_json():
    import json

    from builders import cli

    from tokenpilot.hardware import list_gpus
    from tokenpilot.models import list_models

    for command, names in (("gpus", list_gpus()), ("models", list_models())):
        text = cli(command)
        assert text.exit_code == 0, text.output
        for name in names:
            assert any(line.startswith(name + " ") for line in text.stdout.splitlines()), name
        rows = json.loads(cli(command, "--format", "json").stdout)
        assert [r["name"] for r in rows] == names
    h100 = next(r for r in json.loads(cli("gpus", "-f", "json").stdout)
                if r["name"] == "h100-sxm")
    assert h100["memory_gib"] == 80 and "h100" in h100["aliases"]
