"""Webhook payloads of a chosen size, for the loader's memory tests."""

from __future__ import annotations

import json


def push_payload(size: int) -> bytes:
    """A push delivery of about `size` bytes: as many commits as it takes (at least one)."""
    commit = {
        "id": "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
        "tree_id": "f9d2a07e9488b91af2641b26b9407fe22a451433",
        "distinct": True,
        "message": "Turn the widget the other way",
        "timestamp": "2026-11-22T10:00:00Z",
        "url": "https://example.com/acme/widgets/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246",
        "author": {"name": "Octo Cat", "email": "octo@example.com", "username": "octocat"},
        "committer": {"name": "Octo Cat", "email": "octo@example.com", "username": "octocat"},
        "added": ["src/a.py"],
        "removed": [],
        "modified": ["src/b.py", "README.md"],
    }
    payload = {"ref": "refs/heads/main", "repository": {"full_name": "acme/widgets"}, "pusher": {"name": "octocat"}}
    payload["commits"] = [commit] * max(1, size // len(json.dumps(commit)))
    return json.dumps(payload).encode()
