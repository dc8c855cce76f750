"""API keys to tenants. With keys configured, every request must carry a known one."""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_TENANT = "default"


class Tenants:
    def __init__(self, keys: Mapping[str, str]) -> None:
        self.keys = dict(keys)

    @property
    def open(self) -> bool:
        """No keys configured: everyone is the default tenant."""
        return not self.keys

    def resolve(self, authorization: str | None) -> str | None:
        """The tenant for an ``Authorization`` header value; None when it must be refused.

        The tenant comes from the key alone, never from the body, so no request can spend
        another tenant's budget.
        """
        if not self.keys:
            return DEFAULT_TENANT
        if not authorization:
            return None
        scheme, _, key = authorization.partition(" ")
        if scheme.lower() != "bearer":
            return None
        return self.keys.get(key.strip())

    def names(self) -> list[str]:
        return sorted(set(self.keys.values())) or [DEFAULT_TENANT]
