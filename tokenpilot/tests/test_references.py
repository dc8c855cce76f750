"""What a newcomer looks for beside the code (issue 19): the licence, examples, catalogs."""

from __future__ import annotations

import dataclasses
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


EXAMPLES = REPO_ROOT / "tokenpilot" / "examples"


def test_the_reference_page_is_what_the_code_generates():
    from tokenpilot.reference import render

    page = (REPO_ROOT / "tokenpilot" / "docs" / "reference.md").read_text(encoding="utf-8")
    assert page == render(), "regenerate: python -m tokenpilot.reference > docs/reference.md"
    from tokenpilot.cluster.fleet import InstanceSpec
    from tokenpilot.gateway.config import BackendConfig
    from tokenpilot.policy.routers import ROUTERS

    for key in [f.name for f in dataclasses.fields(InstanceSpec)] + [
            f.name for f in dataclasses.fields(BackendConfig)] + list(ROUTERS):
        assert f"`{key}`" in page, key


def test_every_example_file_loads(monkeypatch):
    from tokenpilot.cluster import load_fleet
    from tokenpilot.gateway.config import GatewayConfig
    from tokenpilot.policy.compose import load_composed
    from tokenpilot.workload import load_workload

    assert load_fleet(str(EXAMPLES / "fleet.yaml")).size == 8
    assert load_composed(EXAMPLES / "router.yaml").name
    assert len(load_workload(f"file:{EXAMPLES / 'workload.csv'}")) == 40
    monkeypatch.setenv("VLLM_API_KEY", "sk-test")
    for name in ("gateway.yaml", "gateway-vllm.yaml"):
        assert GatewayConfig.load(EXAMPLES / name).backends, name


def test_the_readme_names_only_example_files_that_exist():
    import re

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"tokenpilot/examples/[\w.-]+(?:/[\w.-]+)*", readme))  # subfolders too
    assert "tokenpilot/examples/fleet.yaml" in named
    for path in named:
        assert (REPO_ROOT / path).is_file(), path
