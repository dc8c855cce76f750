"""The one request type every part of tokenpilot passes around."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Request:
    """One inference request as the simulator and the policies see it.

    ``prefix_hashes`` names the prompt's leading blocks of ``prefix_block_tokens`` tokens each
    (the Mooncake trace's ``hash_ids`` name 512-token blocks): equal hashes at equal positions mean
    a shared prefix. The engine maps them onto its own, smaller KV blocks.
    """

    id: int
    arrival: float  # seconds from the start of the workload
    prompt_tokens: int
    output_tokens: int
    tenant: str = "default"
    prefix_hashes: tuple[int, ...] = field(default=())
    prefix_block_tokens: int = 512
    priority: int = 0  # larger is more important
    slo_class: str = "default"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens
