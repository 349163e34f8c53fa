"""The repos-1-day report: one line per repository of the scope active that day.

A day's repositories are the world's repositories of the organization (so they join the
snapshot's repositories by id); each day some of them are active. Their pull-request counts are
the organization's aggregate record of the day split among them, exactly: summed, a day's
repositories give the aggregate's counts. An enterprise's report is the union of its
organizations' repositories, each line the repository's own (the same line as in its
organization's report); the enterprise's aggregate adds up its organizations' pull requests
(`combine`), so its repositories hold no more than it. Each repository's suggestions are split by comment type, and from
`review_times_from` on it carries the review stage times of its pull requests merged that day
(human authors and reviewers only: an empty array on a day without such a merge).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

# The comment types of the assistant's review suggestions: the service's docs name `security`
# and `bug_risk` (an open list); the others are of the same kind.
COMMENT_TYPES = ("bug_risk", "security", "performance", "maintainability", "documentation")
# Median minutes of each review stage (ready to first review, first to final review, final
# review to merge): a typical repository's, scaled per repository and day.
_STAGES = {"ready_to_first_review": 95.0, "first_to_final_review": 240.0, "final_review_to_merge": 45.0}
# A float member of pull_requests and the count whose pull requests it is the median of.
_MEDIAN_OF = {
    "median_minutes_to_merge": "total_merged",
    "median_minutes_to_merge_assistant_authored": "total_merged_created_by_assistant",
    "median_minutes_to_merge_assistant_reviewed": "total_merged_reviewed_by_assistant",
}


@dataclass(frozen=True)
class RepoRef:
    id: int
    owner: str
    name: str
    visibility: str


def _hash(*parts: object) -> int:
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "little")


def split(total: int, weights: Sequence[int]) -> list[int]:
    """`total` split in proportion to `weights`, the parts summing to it exactly (largest
    remainders first, ties to the earlier)."""
    whole = sum(weights)
    parts = [total * w // whole for w in weights]
    order = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % whole), i))
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def combine(parts: Sequence[dict[str, Any]], name: Callable[[str], str]) -> dict[str, Any]:
    """The pull requests of several organizations' aggregate records as one scope's: counts and
    suggestions per comment type added up, each median the merge-weighted mean of theirs (None
    without a merge)."""
    medians = {name(median): name(count) for median, count in _MEDIAN_OF.items()}
    by_type = name("assistant_suggestions_by_comment_type")
    suggested, applied = name("total_assistant_suggestions"), name("total_assistant_applied_suggestions")
    out: dict[str, Any] = {}
    for member in parts[0]:
        if member in medians:
            weighted = [(p[member], p[medians[member]]) for p in parts if p[member] is not None and p[medians[member]]]
            whole = sum(n for _, n in weighted)
            out[member] = round(sum(m * n for m, n in weighted) / whole, 1) if whole else None
        elif member == by_type:
            sums = {kind: [0, 0] for kind in COMMENT_TYPES}
            for entry in (e for p in parts for e in p[member]):
                sums[entry["comment_type"]][0] += entry[suggested]
                sums[entry["comment_type"]][1] += entry[applied]
            out[member] = [{"comment_type": kind, suggested: s, applied: a} for kind, (s, a) in sums.items() if s]
        else:
            out[member] = sum(p[member] for p in parts)
    return out


def repository_lines(
    *,
    seed: int,
    day: date,
    repos: Sequence[RepoRef],
    pull_requests: dict[str, Any],
    ids: dict[str, str],
    name: Callable[[str], str],
    review_times: bool,
) -> list[bytes]:
    """The day's lines; `pull_requests` is the aggregate record's object under the dialect's
    names (`name` turns a service name into the dialect's), `ids` the entity ids each line names."""
    active = [r for r in repos if _hash("active", seed, r.id, day.toordinal()) % 4 != 0] or list(repos[:1])
    if not active:
        return []
    weights = [1 + _hash("weight", seed, r.id, day.toordinal()) % 9 for r in active]
    medians = {name(median): name(count) for median, count in _MEDIAN_OF.items()}
    # Every count of the aggregate's object (under its wire name), split among the repositories.
    counts = {
        member: split(value, weights)
        for member, value in pull_requests.items()
        if isinstance(value, int) and member not in medians
    }
    lines = []
    for i, repo in enumerate(active):
        rng = _hash("repo-day", seed, repo.id, day.toordinal())
        pulls: dict[str, Any] = {member: parts[i] for member, parts in counts.items()}
        for median, count in medians.items():
            base = pull_requests.get(median)
            jitter = 0.6 + (rng >> 8) % 80 / 100
            pulls[median] = round(base * jitter, 1) if base is not None and pulls.get(count) else None
        suggested = pulls.get(name("total_assistant_suggestions"), 0)
        applied = pulls.get(name("total_assistant_applied_suggestions"), 0)
        type_weights = [1 + _hash("comment", seed, repo.id, kind) % 5 for kind in COMMENT_TYPES]
        by_type = [
            {
                "comment_type": kind,
                name("total_assistant_suggestions"): s,
                name("total_assistant_applied_suggestions"): a,
            }
            for kind, s, a in zip(
                COMMENT_TYPES, split(suggested, type_weights), split(applied, type_weights), strict=True
            )
            if s
        ]
        pulls[name("assistant_suggestions_by_comment_type")] = by_type
        line: dict[str, Any] = {
            "day": day.isoformat(),
            **ids,
            "repo_id": repo.id,
            "repo_owner_name": repo.owner,
            "repo_name": repo.name,
            "repo_visibility": repo.visibility,
            "pull_requests": pulls,
        }
        if review_times:
            line["pull_request_review_times"] = _review_times(pulls, rng, name)
        lines.append(json.dumps(line, separators=(",", ":")).encode() + b"\n")
    return lines


def _review_times(pulls: dict[str, Any], rng: int, name: Callable[[str], str]) -> list[dict[str, Any]]:
    """Review stage times of the pull requests a person wrote and a person reviewed."""
    merged = (pulls.get("total_merged") or 0) - (pulls.get(name("total_merged_created_by_assistant")) or 0)
    if merged <= 0:
        return []
    entry: dict[str, Any] = {"authored_by": "human", "reviewed_by": "human", "total_merged": merged}
    for n, (stage, minutes) in enumerate(_STAGES.items()):
        median = round(minutes * (0.5 + (rng >> (8 * n)) % 100 / 100), 1)
        entry[f"median_minutes_{stage}"] = median
        entry[f"p90_minutes_{stage}"] = round(median * (2.0 + (rng >> (8 * n + 4)) % 20 / 10), 1)
    return [entry]
