"""The package layering (README, "Architecture"): lower layers never import upper ones.

Every module's imports are read with ``ast`` (function-level and ``TYPE_CHECKING`` ones too,
since a lazy import is still a dependency), relative imports resolved, and checked against the
forbidden edges below. ``find_violations`` is tested on a synthetic package as well, so the
check is known to catch what it is meant to catch.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# Package -> packages it must not import (``tokenpilot.<name>``).
FORBIDDEN = {
    "workload": {"costmodel", "policy", "engine", "cluster", "gateway"},
    "costmodel": {"policy", "engine", "cluster", "gateway"},
    "policy": {"engine", "cluster", "gateway"},
    "engine": {"cluster", "gateway"},
    "cluster": {"gateway"},
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, root: Path) -> set[str]:
    """Every module ``path`` imports anywhere in its body, as absolute dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            # ``from tokenpilot import engine`` imports the subpackage itself.
            out.update(f"{mod}.{alias.name}" for alias in node.names)
    return out


def find_violations(root: Path, top: str = "tokenpilot") -> list[str]:
    """``module -> imported`` for every import that crosses a forbidden edge."""
    bad = []
    for path in sorted((root / top).rglob("*.py")):
        name = module_name(path, root)
        parts = name.split(".")
        if len(parts) < 2 or parts[1] not in FORBIDDEN:
            continue
        for imp in sorted(imported_modules(path, root)):
            ip = imp.split(".")
            if ip[0] == top and len(ip) > 1 and ip[1] in FORBIDDEN[parts[1]]:
                bad.append(f"{name} -> {imp}")
    return bad


def test_every_layer_imports_only_below_itself():
    modules = list((SRC / "tokenpilot").rglob("*.py"))
    assert len(modules) > 50  # the walk found the package, not an empty directory
    assert find_violations(SRC) == []


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("rel,text", [
    ("tokenpilot/policy/x.py", "from tokenpilot.engine.engine import Engine\n"),
    ("tokenpilot/policy/x.py", "def f():\n    import tokenpilot.cluster.sim\n"),
    ("tokenpilot/policy/x.py", "from tokenpilot import gateway\n"),
    ("tokenpilot/policy/x.py", "from ..engine import Engine\n"),
    ("tokenpilot/policy/routers/x.py", "from ...engine.scheduler import Scheduler\n"),
    ("tokenpilot/engine/x.py",
     "from typing import TYPE_CHECKING\n"
     "if TYPE_CHECKING:\n    from tokenpilot.cluster import sim\n"),
    ("tokenpilot/engine/__init__.py", "from ..gateway.app import Gateway\n"),
    ("tokenpilot/costmodel/x.py",
     "class C:\n    def m(self):\n        from tokenpilot.policy import view\n"),
])
def test_the_check_catches_forbidden_imports(tmp_path, rel, text):
    _write(tmp_path, rel, text)
    _write(tmp_path, "tokenpilot/policy/ok.py", "from tokenpilot.workload import Request\n")
    bad = find_violations(tmp_path)
    assert bad
    assert all(b.startswith(module_name(tmp_path / rel, tmp_path) + " -> ") for b in bad)


def test_the_check_allows_imports_downwards(tmp_path):
    _write(tmp_path, "tokenpilot/engine/x.py",
           "from tokenpilot.policy.disciplines import FCFS\nfrom . import y\nimport math\n")
    _write(tmp_path, "tokenpilot/gateway/x.py", "from tokenpilot.engine import Engine\n")
    _write(tmp_path, "tokenpilot/cluster/x.py", "def f():\n    from ..engine import Engine\n")
    assert find_violations(tmp_path) == []
