"""The emulator's mutable state: clock, principals and tokens, rate-limit buckets, faults, stats."""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

from emulator.config import EmulatorConfig, FaultSpec
from emulator.crypto import rsa_key_from_seed
from emulator.dialect import wire_for
from emulator.world import World
from emulator.world_records import Account

PrincipalKind = Literal["user", "installation", "app", "anonymous"]
INSTALLATION_TOKEN_SECONDS = 3600
_WINDOW_SECONDS = 3600
# The public service's secondary limit for content creation: 80 requests a minute.
CONTENT_CREATION_PER_MINUTE = 80


@dataclass(frozen=True)
class Principal:
    kind: PrincipalKind
    bucket: str
    account: Account | None
    metrics_permission: bool
    owner: bool
    expires_at: float | None = None
    billing_read: bool = False  # may read the billing endpoints (emulator/billing_answers.py)


@dataclass
class _Bucket:
    window_start: float
    used: int = 0


@dataclass(frozen=True)
class LimitStatus:
    limit: int
    remaining: int
    reset: int
    used: int
    resource: str


class EmulatorState:
    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.wire = wire_for(config.dialect)
        self.lock = threading.RLock()
        self._today_override: date | None = None
        self.world = World(
            seed=config.seed,
            orgs=config.orgs,
            users=config.users,
            repos=config.repos,
            issues_per_repo=config.issues_per_repo,
            today=self.today(),
        )
        self.app_key = rsa_key_from_seed(seed=config.seed)
        self.app_id = 100_000 + config.seed % 900_000
        self.installation_id = 5_000_000 + config.seed % 900_000
        # What an installation writes is authored by the app's bot, as on the public service.
        self.bot = Account(id=self.app_id, login=f"app-{self.app_id}[bot]", type="Bot")
        self.client_id = "Iv1." + self._secret("client-id")[:16]
        self.client_secret = self._secret("client-secret")[:40]
        self.webhook_secret = self._secret("webhook-secret")[:32]
        self.link_key = bytes.fromhex(self._secret("link-key"))
        prefix = "ghp_" if config.dialect == "github" else "svc_"
        self.token = prefix + self._secret("owner-token")[:36]
        self.limited_token = prefix + self._secret("member-token")[:36]
        self._tokens: dict[str, Principal] = {
            self.token: Principal(
                kind="user",
                bucket=f"user:{self.world.owner.login}",
                account=self.world.owner,
                metrics_permission=True,
                owner=True,
                billing_read=config.billing_read,
            ),
            self.limited_token: Principal(
                kind="user",
                bucket=f"user:{self.world.member.login}",
                account=self.world.member,
                metrics_permission=False,
                owner=False,
            ),
        }
        self._oauth_codes: dict[str, str] = {}
        self._issued = 0
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self._content_creation: dict[str, list[float]] = {}
        self.policies: dict[tuple[str, str], bool] = {
            **{("organization", name): True for name in config.orgs},
            **{("enterprise", name): True for name in config.enterprises},
        }
        self.metadata_fetches: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        # Which resources were asked for ("GET /repos/acme/api/issues 200", "graphql repository
        # acme/api"): a test proves by it that a run fetched only what it should.
        self.paths: Counter[str] = Counter()
        self.faults_injected: Counter[str] = Counter()
        self.faults = config.faults
        self._fault_rng = random.Random(config.faults.seed)
        self._spent_until: float | None = None
        self.set_faults(config.faults)

    def _secret(self, purpose: str) -> str:
        return hashlib.sha256(f"{self.config.seed}:{purpose}".encode()).hexdigest()

    # clock
    def today(self) -> date:
        return self._today_override or self.config.today or datetime.now(UTC).date()

    def set_today(self, day: date) -> None:
        self._today_override = day

    def now(self) -> datetime:
        real = datetime.now(UTC)
        return datetime.combine(self.today(), real.timetz())

    # faults
    def set_faults(self, faults: FaultSpec) -> None:
        with self.lock:
            self.faults = faults
            self._fault_rng = random.Random(faults.seed)
            spend = faults.spend_rate_limit_for_seconds
            self._spent_until = time.time() + spend if spend else None

    def draw(self, rate: float) -> bool:
        if rate <= 0:
            return False
        with self.lock:
            return self._fault_rng.random() < rate

    def pick(self, options: tuple[int, ...]) -> int:
        with self.lock:
            return self._fault_rng.choice(options)

    def count_fault(self, kind: str) -> None:
        with self.lock:
            self.faults_injected[kind] += 1

    def count_request(self, kind: str, status: int, path: str | None = None) -> None:
        with self.lock:
            self.requests[f"{kind} {status}"] += 1
            if path is not None:
                self.paths[f"{path} {status}"] += 1

    def count_resolved(self, what: str) -> None:
        """A resource a GraphQL query resolved, in the same log as the paths."""
        with self.lock:
            self.paths[f"graphql {what}"] += 1

    # principals
    def principal_for_token(self, token: str) -> Principal | None:
        with self.lock:
            principal = self._tokens.get(token)
        if principal and principal.expires_at is not None and principal.expires_at < time.time():
            return None
        return principal

    def anonymous(self, client_host: str) -> Principal:
        return Principal(
            kind="anonymous", bucket=f"ip:{client_host}", account=None, metrics_permission=False, owner=False
        )

    def _new_token(self, prefix: str) -> str:
        with self.lock:
            self._issued += 1
            return prefix + self._secret(f"issued:{self._issued}")[:36]

    def issue_installation_token(self) -> tuple[str, float]:
        prefix = "ghs_" if self.config.dialect == "github" else "svs_"
        token = self._new_token(prefix)
        expires = time.time() + INSTALLATION_TOKEN_SECONDS
        with self.lock:
            self._tokens[token] = Principal(
                kind="installation",
                bucket=f"installation:{self.installation_id}",
                account=None,
                metrics_permission=True,
                owner=False,
                expires_at=expires,
                billing_read=self.config.billing_read,
            )
        return token, expires

    def issue_oauth_code(self, redirect_uri: str) -> str:
        code = self._new_token("")[:20]
        with self.lock:
            self._oauth_codes[code] = redirect_uri
        return code

    def redeem_oauth_code(self, code: str, redirect_uri: str | None) -> str | None:
        with self.lock:
            expected = self._oauth_codes.pop(code, None)
        if expected is None or (redirect_uri and redirect_uri != expected):
            return None
        prefix = "gho_" if self.config.dialect == "github" else "svo_"
        token = self._new_token(prefix)
        with self.lock:
            self._tokens[token] = self._tokens[self.token]
        return token

    # rate limits
    def _limit_for(self, principal: Principal) -> int:
        return self.config.unauth_limit if principal.kind == "anonymous" else self.config.rate_limit

    def limit_status(self, principal: Principal, resource: str = "core") -> LimitStatus:
        now = time.time()
        limit = self._limit_for(principal)
        with self.lock:
            bucket = self._buckets.get((principal.bucket, resource))
            if bucket is None or now >= bucket.window_start + _WINDOW_SECONDS:
                bucket = self._buckets[(principal.bucket, resource)] = _Bucket(window_start=now)
            if self._spent_until is not None and now < self._spent_until:
                return LimitStatus(
                    limit=limit, remaining=0, reset=int(self._spent_until) + 1, used=limit, resource=resource
                )
            return LimitStatus(
                limit=limit,
                remaining=max(0, limit - bucket.used),
                reset=int(bucket.window_start + _WINDOW_SECONDS),
                used=bucket.used,
                resource=resource,
            )

    def spend(self, principal: Principal, resource: str = "core") -> None:
        self.limit_status(principal, resource)
        with self.lock:
            self._buckets[(principal.bucket, resource)].used += 1

    def content_creation_burst(self, principal: Principal) -> bool:
        """Record one content-creating request; True when it exceeds the secondary limit."""
        now = time.time()
        with self.lock:
            recent = [t for t in self._content_creation.get(principal.bucket, []) if now - t < 60]
            recent.append(now)
            self._content_creation[principal.bucket] = recent
            return len(recent) > CONTENT_CREATION_PER_MINUTE

    def stats(self) -> dict[str, object]:
        with self.lock:
            return {
                "requests": dict(self.requests),
                "paths": dict(self.paths),
                "faults": dict(self.faults_injected),
                "metadata_fetches": dict(self.metadata_fetches),
                "today": self.today().isoformat(),
            }
