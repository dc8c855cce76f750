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
