"""Webhooks: configured hooks and their deliveries, sent from one background thread."""

from __future__ import annotations

import hashlib
import json
import queue
import random
import threading
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from emulator.crypto import webhook_signature
from emulator.dialect import Wire
from emulator.errors import EmulatorError


@dataclass(frozen=True)
class Hook:
    id: int
    url: str
    content_type: str
    events: tuple[str, ...]
    active: bool
    secret: str


def hook_from_json(data: dict[str, Any], *, hook_id: int) -> Hook:
    url = data.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise EmulatorError("hook needs a 'url' starting with http:// or https://")
    content_type = data.get("content_type", "json")
    if content_type not in ("json", "form"):
        raise EmulatorError("hook 'content_type' must be 'json' or 'form'")
    events = data.get("events", ["*"])
    if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
        raise EmulatorError("hook 'events' must be a list of event names")
    return Hook(
        id=hook_id,
        url=url,
        content_type=content_type,
        events=tuple(events),
        active=bool(data.get("active", True)),
        secret=str(data.get("secret", "")),
    )


class Deliveries:
    def __init__(self, *, wire: Wire, seed: int) -> None:
        self._wire = wire
        self._rng = random.Random(f"deliveries:{seed}")
        self._lock = threading.Lock()
        self.hooks: list[Hook] = []
        self.log: list[dict[str, Any]] = []
        self._queue: queue.Queue[tuple[Hook, str, bytes, str] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="emulator-webhooks", daemon=True)
        self._thread.start()

    def add(self, data: dict[str, Any]) -> Hook:
        with self._lock:
            hook = hook_from_json(data, hook_id=len(self.hooks) + 1)
            self.hooks.append(hook)
            return hook

    def emit(self, event: str, payload: dict[str, Any]) -> None:
        body = json.dumps(payload, separators=(",", ":")).encode()
        with self._lock:
            targets = [h for h in self.hooks if h.active and ("*" in h.events or event in h.events)]
            for hook in targets:
                delivery = str(uuid.UUID(int=self._rng.getrandbits(128), version=4))
                self._queue.put((hook, event, body, delivery))

    def _run(self) -> None:
        with httpx.Client(timeout=10.0) as client:
            while (item := self._queue.get()) is not None:
                hook, event, body, delivery = item
                self._deliver(client, hook, event, body, delivery)

    def _deliver(self, client: httpx.Client, hook: Hook, event: str, payload: bytes, delivery: str) -> None:
        if hook.content_type == "form":
            body = urlencode({"payload": payload.decode()}).encode()
            content_type = "application/x-www-form-urlencoded"
        else:
            body, content_type = payload, "application/json"
        headers = {
            "content-type": content_type,
            "user-agent": "Emulator-Hookshot/1.0",
            self._wire.event_header: event,
            self._wire.delivery_header: delivery,
            "x-hub-signature-256": webhook_signature(secret=hook.secret, body=body),
        }
        try:
            status: int | str = client.post(hook.url, content=body, headers=headers).status_code
        except httpx.HTTPError as exc:
            status = type(exc).__name__
        with self._lock:
            self.log.append({"hook": hook.id, "event": event, "delivery": delivery, "status": status})

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=15)


def push_payload(repo: dict[str, Any], sender: dict[str, Any], *, auto_init: bool) -> dict[str, Any]:
    """The push event of a repository just created (its first commit when auto_init)."""
    after = hashlib.sha1(f"{repo['full_name']}:init".encode()).hexdigest()
    commits = []
    if auto_init:
        commits.append(
            {
                "id": after,
                "tree_id": hashlib.sha1(after.encode()).hexdigest(),
                "distinct": True,
                "message": "Initial commit",
                "timestamp": repo["created_at"],
                "url": f"{repo['html_url']}/commit/{after}",
                "author": {"name": sender["login"], "username": sender["login"]},
                "committer": {"name": sender["login"], "username": sender["login"]},
                "added": ["README.md"],
                "removed": [],
                "modified": [],
            }
        )
    return {
        "ref": "refs/heads/main",
        "before": "0" * 40,
        "after": after if auto_init else "0" * 40,
        "created": True,
        "deleted": False,
        "forced": False,
        "base_ref": None,
        "compare": f"{repo['html_url']}/commits/main",
        "commits": commits,
        "head_commit": commits[0] if commits else None,
        "repository": repo,
        "pusher": {"name": sender["login"], "email": None},
        "sender": sender,
    }
