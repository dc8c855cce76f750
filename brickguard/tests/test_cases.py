"""Fixture harness: every C case under tests/cases/ is analysed, and its findings must be exactly
the ``/* expect: BGnnn */`` marks on its lines (several ids: ``/* expect: BG101, BG104 */``).

A case is one ``.c`` file, or a folder of them (a small multi-file program; it may carry its own
``brickguard.toml``). A missing finding fails, and so does any finding on an unmarked line, of any
rule: each case checks both what must be found and the look-alikes that must not be.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from brickguard.analyze import analyze
from brickguard.config import Config, load_config
from brickguard.toolchain import find_gcc

CASES = Path(__file__).parent / "cases"
EXPECT = re.compile(r"expect:\s*(BG\d{3}(?:\s*,\s*BG\d{3})*)((?:\s*`[^`]+`)*)")
NAMED = re.compile(r"`([^`]+)`")


def _cases() -> list[Path]:
    out = []
    for group in sorted(p for p in CASES.iterdir() if p.is_dir() and p.name.startswith("bg")):
        for case in sorted(group.iterdir()):
            if case.suffix == ".c" or (case.is_dir() and any(case.glob("*.c"))):
                out.append(case)
    return out


def _expected(case: Path) -> set[tuple[str, int, str]]:
    return set(_marks(case))


def _marks(case: Path) -> dict[tuple[str, int, str], list[str]]:
    """(file, line, rule) -> the names the finding must name (```/* expect: BG106 `x` */```:
    the message holds `` `x` ``, the name the benchmarks match a label by)."""
    files = [case] if case.is_file() else sorted(case.rglob("*.[ch]"))
    want = {}
    for f in files:
        for n, line in enumerate(f.read_text().splitlines(), start=1):
            m = EXPECT.search(line)
            if m:
                for rule in re.split(r"\s*,\s*", m.group(1)):
                    want[(f.name, n, rule)] = NAMED.findall(m.group(2))
    return want


def _config(case: Path) -> Config:
    if case.parent.name in ("bg510", "bg511") and find_gcc() is None:
        pytest.skip("the stack-depth cases need arm-none-eabi-gcc (.ci/run installs it)")
    folder = case if case.is_dir() else case.parent
    if (folder / "brickguard.toml").is_file():
        cfg = load_config(folder / "brickguard.toml")
    else:
        cfg = Config(root=folder)
    shared = [p for p in [*cfg.include, cfg.pin_data] if p is not None and "shared" in p.parts]
    if any(not p.is_dir() for p in shared):
        pytest.skip("../shared/firmware (the HAL headers, the pin data) is absent")
    cfg.include = [*cfg.include, CASES / "include"]
    cfg.jobs = 1  # the suite runs many tiny cases: a process pool per case costs more than it saves
    return cfg


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case(case: Path) -> None:
    result = analyze([case], _config(case))
    got = {(Path(f.location.file).name, f.location.line, f.rule) for f in result.findings}
    want = _expected(case)
    detail = "\n".join(
        f"  {f.location.file}:{f.location.line} {f.rule} {f.message}" for f in result.findings
    )
    assert not want - got, f"missing {sorted(want - got)}; found:\n{detail}"
    assert not got - want, f"unexpected {sorted(got - want)}; found:\n{detail}"
    for (file, line, rule), names in _marks(case).items():
        said = [f.message for f in result.findings if f.rule == rule
                and (Path(f.location.file).name, f.location.line) == (file, line)]
        for name in names:
            assert any(f"`{name}`" in m for m in said), f"{file}:{line} {rule} names no `{name}`"


def test_every_rule_has_cases() -> None:
    """Every registered BG rule has a case folder with a marked finding (the SDK-truth rules'
    cases live under cases/sdk, run by test_sdk.py; MISRA's under cases/misra, by test_misra.py)."""
    from brickguard.rules import all_rules

    wanted = {r.id for r in all_rules() if r.id.startswith("BG") and not r.id.startswith("BG2")}
    groups = {p.parent.name for p in _cases()}
    assert {rule.lower() for rule in wanted} <= groups
    marked = set()
    for case in _cases():
        marked |= {rule for _, _, rule in _expected(case)}
    assert wanted <= marked
