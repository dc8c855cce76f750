"""The demo index: usage protocols mined from vendor examples, each with the lines behind it.

Plain data with a JSON form (``DEMOS.json``, the cache); nothing here needs libclang.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

FORMAT = 2  # bump when the JSON shape or what gets mined changes
DEFAULT_MIN_SUPPORT = 3  # examples that must agree before a rule is kept (bench_demo_protocol)

# How a rule's step relates to its API; which BG4xx rule reports it missing.
BEFORE, PRESENT = "before", "present"


@dataclass(frozen=True)
class DemosSpec:
    """``[demos]`` in brickguard.toml: example folders to mine, or a prebuilt index."""

    folders: tuple[Path, ...] = ()
    index: Path | None = None
    min_support: int = DEFAULT_MIN_SUPPORT
    search: tuple[Path, ...] = ()  # where else the SDK's headers may be


@dataclass(frozen=True)
class Site:
    project: str  # the example project, relative to its demo folder
    file: str  # absolute path of the example's source
    line: int
    written: str  # the step as the example writes it (I2Cx_CLK_ENABLE)

    def short(self) -> str:
        """``I2C_TwoBoards_ComIT/Src/stm32f4xx_hal_msp.c:71``."""
        name = os.path.basename(self.project.rstrip("/"))
        parts = Path(self.file).parts
        tail = parts[-2:] if len(parts) >= 2 else parts
        return f"{name}/{'/'.join(tail)}:{self.line}"


@dataclass(frozen=True)
class ProtocolRule:
    rule: str  # BG401 | BG402 | BG404
    api: str  # the API whose uses the rule checks
    step: str  # the step key (demos.protocol): "__HAL_RCC_{i}_CLK_ENABLE", "=HAL_I2C_Init"
    order: str  # BEFORE: always before the API; PRESENT: always somewhere in the program
    support: int  # examples where the step holds
    of: int  # examples that use the API
    sites: tuple[Site, ...]  # where each supporting example does the step
    msp: str = ""  # the SDK callback all the examples do it in (HAL_I2C_MspInit), or ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> ProtocolRule:
        return cls(d["rule"], d["api"], d["step"], d["order"], int(d["support"]), int(d["of"]),
                   tuple(Site(**s) for s in d["sites"]), d.get("msp", ""))


@dataclass
class DemoIndex:
    folders: list[str] = field(default_factory=list)
    projects: list[dict] = field(default_factory=list)  # name, root, sources, include, notes
    notes: list[str] = field(default_factory=list)  # one line per input that was not usable
    min_support: int = DEFAULT_MIN_SUPPORT
    rules: list[ProtocolRule] = field(default_factory=list)
    vocabulary: list[str] = field(default_factory=list)  # every SDK API the examples use
    instances: list[str] = field(default_factory=list)  # peripheral instances seen
    callbacks: dict[str, str] = field(default_factory=dict)  # SDK callback -> its handle type
    # handle type -> callback the examples define -> where (one site per example)
    defined_callbacks: dict[str, dict[str, list[Site]]] = field(default_factory=dict)
    seconds: float = 0.0  # how long mining took (parse included)

    def to_dict(self) -> dict:
        return {
            "format": FORMAT, "folders": self.folders, "projects": self.projects,
            "notes": self.notes, "min_support": self.min_support,
            "rules": [r.to_dict() for r in self.rules], "vocabulary": self.vocabulary,
            "instances": self.instances, "callbacks": self.callbacks,
            "defined_callbacks": {t: {c: [asdict(s) for s in ss] for c, ss in cbs.items()}
                                  for t, cbs in self.defined_callbacks.items()},
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, d: dict) -> DemoIndex:
        if d.get("format") != FORMAT:
            raise ValueError(f"demo index format {d.get('format')!r}, expected {FORMAT}")
        return cls(
            folders=list(d["folders"]), projects=list(d["projects"]), notes=list(d["notes"]),
            min_support=int(d["min_support"]),
            rules=[ProtocolRule.from_dict(r) for r in d["rules"]],
            vocabulary=list(d["vocabulary"]), instances=list(d["instances"]),
            callbacks=dict(d["callbacks"]),
            defined_callbacks={t: {c: [Site(**s) for s in ss] for c, ss in cbs.items()}
                               for t, cbs in d["defined_callbacks"].items()},
            seconds=float(d.get("seconds", 0.0)),
        )

    def counts(self) -> dict[str, int]:
        out = {"projects": len(self.projects), "rules": len(self.rules)}
        for r in self.rules:
            out[r.rule] = out.get(r.rule, 0) + 1
        out["callbacks"] = len(self.callbacks)
        return out
