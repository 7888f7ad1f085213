"""Who may connect: caps on connections (all, per address, per key) and a rate per address.

Pure bookkeeping, no sockets: the server asks `admit` when a connection opens, `admit_key`
when it has authenticated, and calls `leave` when it closes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """How much the server lets in."""

    max_sessions: int = 100
    """Connections open at once, from everyone."""
    per_address: int = 10
    """Connections open at once from one IP address."""
    per_key: int = 3
    """Sessions open at once for one player's key."""
    rate_burst: int = 10
    """New connections one address may open at once..."""
    rate_per_second: float = 1.0
    """...and how fast that allowance comes back."""


@dataclass
class Bucket:
    """A token bucket: `tokens` left at time `at`."""

    tokens: float
    at: float


@dataclass
class Gate:
    """The connections open now and each address's rate allowance."""

    limits: Limits = field(default_factory=Limits)
    open: int = 0
    by_address: Counter = field(default_factory=Counter)
    by_key: Counter = field(default_factory=Counter)
    buckets: dict[str, Bucket] = field(default_factory=dict)

    def admit(self, address: str, now: float) -> str | None:
        """Count a new connection from `address` in, or say in one line why it is refused."""
        bucket = self.buckets.get(address) or Bucket(self.limits.rate_burst, now)
        bucket.tokens = min(self.limits.rate_burst,
                            bucket.tokens + (now - bucket.at) * self.limits.rate_per_second)
        bucket.at = now
        self.buckets[address] = bucket
        if bucket.tokens < 1:
            return "too many new connections from your address: try again in a few seconds"
        bucket.tokens -= 1
        if self.open >= self.limits.max_sessions:
            return "the server is full: try again later"
        if self.by_address[address] >= self.limits.per_address:
            return "too many connections from your address"
        self.open += 1
        self.by_address[address] += 1
        self._forget_full_buckets(now)
        return None

    def admit_key(self, key: str) -> str | None:
        """Count a session of player `key` in, or say why it is refused."""
        if self.by_key[key] >= self.limits.per_key:
            return f"you have {self.by_key[key]} sessions open already"
        self.by_key[key] += 1
        return None

    def leave(self, address: str, key: str | None) -> None:
        """Count out a connection admitted from `address` (with its key, if admitted)."""
        self.open -= 1
        _decrement(self.by_address, address)
        if key is not None:
            _decrement(self.by_key, key)

    def _forget_full_buckets(self, now: float) -> None:
        """Drop the buckets that have refilled, so the table stays as small as the traffic."""
        if len(self.buckets) > 4 * self.limits.max_sessions:
            refill = self.limits.rate_burst / self.limits.rate_per_second
            self.buckets = {a: b for a, b in self.buckets.items() if now - b.at < refill}


def _decrement(counter: Counter, name: str) -> None:
    counter[name] -= 1
    if counter[name] <= 0:
        del counter[name]
