"""The accelerator catalog: peak FLOP/s, memory bandwidth and size, links and price, as data.

The figures live in ``data/hardware.yaml`` with the source of each; this module only reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from tokenpilot.catalog import alias_index, norm
from tokenpilot.config_section import from_mapping

GiB = 1024**3
ROOFLINES = ("overlap", "serial")


@dataclass(frozen=True)
class GPUSpec:
    """One accelerator. Rates are per device; ``tp`` devices give ``tp`` times each rate."""

    name: str
    vendor: str
    family: str  # the calibration profile that applies (calibration.yaml)
    bf16_tflops: float  # dense tensor-core peak
    fp8_tflops: float | None  # dense; None where the chip has no fp8 tensor cores
    hbm_gbps: float
    memory_gib: float
    link_gbps: float  # intra-node GPU-GPU, bidirectional as marketed
    host_link_gbps: float  # GPU<->host one way (PCIe), for KV swap
    price_per_hour: float | None
    source: str
    aliases: tuple[str, ...] = ()
    notes: str = ""
    # How one iteration's compute and memory traffic combine (``ROOFLINES``): "overlap", the
    # iteration takes the longer of the two (a GPU streams HBM while its SMs compute); "serial",
    # it takes both (one CPU core running llama.cpp's dot-product kernels waits on each weight
    # block it streams from DRAM: the weights are read once per llama_decode, whatever the
    # number of tokens in the batch, so a decode step costs the weight stream plus per-token
    # compute, and a one-token step costs far more than one token of a long prompt).
    roofline: str = "overlap"

    def __post_init__(self) -> None:
        if self.roofline not in ROOFLINES:
            raise ValueError(f"hardware {self.name}: roofline {self.roofline!r}: expected one "
                             f"of {', '.join(ROOFLINES)}")

    @property
    def memory_bytes(self) -> float:
        return self.memory_gib * GiB

    def peak_flops(self, dtype: str = "bf16") -> float:
        """Dense FLOP/s for matrix math whose operands are ``dtype``.

        fp8 runs at the fp8 rate only where the chip has fp8 tensor cores; elsewhere fp8 (and the
        int weight-only formats) are upcast and run at the bf16 rate.
        """
        if dtype == "fp8" and self.fp8_tflops:
            return self.fp8_tflops * 1e12
        return self.bf16_tflops * 1e12

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "vendor": self.vendor,
            "family": self.family,
            "bf16_tflops": self.bf16_tflops,
            "fp8_tflops": self.fp8_tflops,
            "hbm_gbps": self.hbm_gbps,
            "memory_gib": self.memory_gib,
            "link_gbps": self.link_gbps,
            "host_link_gbps": self.host_link_gbps,
            "price_per_hour": self.price_per_hour,
            "source": self.source,
            "roofline": self.roofline,
        }


class UnknownGPUError(KeyError):
    """A GPU name that is not in the catalog; the message lists the known ones."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0])


@cache
def _catalog() -> dict[str, GPUSpec]:
    text = resources.files("tokenpilot").joinpath("data/hardware.yaml").read_text()
    return {name: from_mapping(GPUSpec, {"name": name, **d}, f"hardware.yaml: gpus.{name}")
            for name, d in yaml.safe_load(text)["gpus"].items()}


@cache
def _index() -> dict[str, str]:
    return alias_index(_catalog())


def list_gpus() -> list[str]:
    """Canonical GPU names, in catalog order."""
    return list(_catalog())


def get_gpu(name: str) -> GPUSpec:
    """The catalog entry for ``name`` or one of its aliases (case and ``_``/``-`` insensitive)."""
    key = _index().get(norm(name))
    if key is None:
        raise UnknownGPUError(f"unknown GPU {name!r}; known GPUs: {', '.join(list_gpus())}")
    return _catalog()[key]
