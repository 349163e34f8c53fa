"""A report record's parts as JSON: the breakdown arrays as the service's docs shape them, and
the objects beside them. The user-level line is written as text (the hot path); the aggregate
record as a dict, from the same sums.

The arrays, as documented: `totals_by_feature` has one entry per feature and adds up to the
record's counts; `totals_by_language_feature` has no `user_initiated_interaction_count`;
`totals_by_language_model` and `totals_by_model_feature` cover chat only (no completions, no
`others` or `unknown`); the desktop app's and the CLI's entries (`copilot_app`, `copilot_cli`) carry no
language or model, so they are in `totals_by_feature` only.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

COUNT_FIELDS = (
    "user_initiated_interaction_count",
    "code_generation_activity_count",
    "code_acceptance_activity_count",
    "loc_suggested_to_add_sum",
    "loc_suggested_to_delete_sum",
    "loc_added_sum",
    "loc_deleted_sum",
)
# Features with no chat model: left out of the model arrays.
NO_MODEL_FEATURES = frozenset({"code_completion", "others", "unknown"})
ZEROS = (0,) * 7
JSON_BOOL = ("false", "true")
COMPACT = (",", ":")  # JSON as the rest of a line is written: no spaces

COUNTS = (
    '"user_initiated_interaction_count":%d,"code_generation_activity_count":%d,'
    '"code_acceptance_activity_count":%d,"loc_suggested_to_add_sum":%d,'
    '"loc_suggested_to_delete_sum":%d,"loc_added_sum":%d,"loc_deleted_sum":%d'
)
# The language x feature entries' counts: the same, without the interaction count.
_CODE_COUNTS = COUNTS.split(",", 1)[1]
FLAGS = {
    (agent, chat, cli): f',"used_agent":{JSON_BOOL[agent]},"used_chat":{JSON_BOOL[chat]},"used_cli":{JSON_BOOL[cli]}'
    for agent in (False, True)
    for chat in (False, True)
    for cli in (False, True)
}
EMPTY_BREAKDOWNS = (
    ',"totals_by_ide":[],"totals_by_feature":[],"totals_by_language_feature":[],'
    '"totals_by_language_model":[],"totals_by_model_feature":[]'
)
IDE_ENTRY = (
    ',"totals_by_ide":[{"ide":"%s",%s,"last_known_ide_version":{"ide_version":"%s","sampled_at":"%s"},'
    '"last_known_plugin_version":{"plugin":"%s","plugin_version":"%s","sampled_at":"%s"}}]'
)
AGENT_ENTRY = '{"agent_id":"%s","agent_name":"%s","user_initiated_interaction_count":%d}'
CLI_VERSION = ',"last_known_cli_version":{"cli_version":"%s","sampled_at":"%s"}'


def add(into: list[int], values: Sequence[int]) -> None:
    for i, v in enumerate(values):
        into[i] += v


def column_sums(rows: Sequence[Sequence[int]]) -> list[int]:
    return [sum(col) for col in zip(*rows, strict=True)]


def count_dict(t: Sequence[int]) -> dict[str, int]:
    return dict(zip(COUNT_FIELDS, t, strict=True))


def user_fields_format(name: Callable[[str], str]) -> str:
    """The user-level fields beyond the contract's, under the dialect's names, as a %-format."""
    # The chat panel's modes are `feature` values of totals_by_feature, as the public docs list
    # them, not top-level fields of their own. The review flags are JSON text: null without signal.
    fields = [("ai_credits_used", "%r")]
    fields += [(name("used_assistant_code_review_active"), "%s"), (name("used_assistant_code_review_passive"), "%s")]
    return "".join(f',"{field}":{value}' for field, value in fields)


def user_breakdowns(
    languages: Sequence[str],
    features: Sequence[tuple[str, str, list[list[int]]]],
    feature_rows: Sequence[tuple[str, Sequence[int]]],
) -> str:
    """The four feature/language/model arrays of one user-day, as JSON text (hot path)."""
    by_feature: list[str] = []
    by_language_feature: list[str] = []
    by_model_feature: list[str] = []
    by_model: dict[str, list[list[int]]] = {}
    for f, model, rows in features:
        counts = COUNTS % tuple(column_sums(rows) if len(rows) > 1 else rows[0])
        by_feature.append(f'{{"feature":"{f}",{counts}}}')
        for lang, row in zip(languages, rows, strict=True):
            by_language_feature.append(f'{{"language":"{lang}","feature":"{f}",' + _CODE_COUNTS % tuple(row[1:]) + "}")
        if f in NO_MODEL_FEATURES:
            continue
        by_model_feature.append(f'{{"model":"{model}","feature":"{f}",{counts}}}')
        seen = by_model.get(model)
        by_model[model] = (
            rows if seen is None else [list(map(operator.add, a, r)) for a, r in zip(seen, rows, strict=True)]
        )
    by_feature += [f'{{"feature":"{f}",' + COUNTS % tuple(counts) + "}" for f, counts in feature_rows]
    by_language_model = [
        f'{{"language":"{lang}","model":"{model}",' + COUNTS % tuple(row) + "}"
        for model, rows in by_model.items()
        for lang, row in zip(languages, rows, strict=True)
    ]
    return (
        ',"totals_by_feature":['
        + ",".join(by_feature)
        + '],"totals_by_language_feature":['
        + ",".join(by_language_feature)
        + '],"totals_by_language_model":['
        + ",".join(by_language_model)
        + '],"totals_by_model_feature":['
        + ",".join(by_model_feature)
        + "]"
    )


def _grouped(
    cells: dict[tuple[str, str, str], list[int]], key: Callable[[str, str, str], tuple[str, ...]], *, chat_only: bool
) -> dict[tuple[str, ...], list[int]]:
    out: dict[tuple[str, ...], list[int]] = {}
    for (f, lang, model), counts in cells.items():
        if not (chat_only and f in NO_MODEL_FEATURES):
            add(out.setdefault(key(f, lang, model), [0] * 7), counts)
    return out


def aggregate_breakdowns(
    cells: dict[tuple[str, str, str], list[int]], feature_rows: dict[str, list[int]]
) -> dict[str, list[dict[str, Any]]]:
    """The four arrays of an aggregate record from its users' (feature, language, model) cells
    and their language-less feature entries."""
    by_feature = _grouped(cells, lambda f, _, __: (f,), chat_only=False)
    for f, counts in feature_rows.items():
        add(by_feature.setdefault((f,), [0] * 7), counts)
    language_feature = _grouped(cells, lambda f, lang, _: (lang, f), chat_only=False)
    return {
        "totals_by_feature": [{"feature": f, **count_dict(v)} for (f,), v in sorted(by_feature.items())],
        "totals_by_language_feature": [
            {"language": lang, "feature": f, **dict(zip(COUNT_FIELDS[1:], v[1:], strict=True))}
            for (lang, f), v in sorted(language_feature.items())
        ],
        "totals_by_language_model": [
            {"language": lang, "model": m, **count_dict(v)}
            for (lang, m), v in sorted(_grouped(cells, lambda _, lang, m: (lang, m), chat_only=True).items())
        ],
        "totals_by_model_feature": [
            {"model": m, "feature": f, **count_dict(v)}
            for (m, f), v in sorted(_grouped(cells, lambda f, _, m: (m, f), chat_only=True).items())
        ],
    }


def customization_json(entries: dict[str, Any], *, distinct: dict[str, int]) -> str:
    """`,"totals_by_<category>":[...],"distinct_<category>_use_count":n` for each category."""
    parts = []
    for category, used in entries.items():
        items = ",".join(f'{{"{category}":"{name}","interaction_count":{count}}}' for name, count in used)
        parts.append(f',"totals_by_{category}":[{items}],"distinct_{category}_use_count":{distinct[category]}')
    return "".join(parts)


def app_dict(v: Sequence[int]) -> dict[str, Any]:
    sessions, requests, prompts, out_tokens, prompt_tokens = v
    return {
        "session_count": sessions,
        "request_count": requests,
        "prompt_count": prompts,
        "token_usage": {
            "output_tokens_sum": out_tokens,
            "prompt_tokens_sum": prompt_tokens,
            "avg_tokens_per_request": round((out_tokens + prompt_tokens) / requests, 2) if requests else 0.0,
        },
    }


def vscode_dict(v: Sequence[int]) -> dict[str, int]:
    sessions, messages = v
    return {"session_count": sessions, "total_user_messages": messages}


def cli_dict(v: Sequence[int]) -> dict[str, Any]:
    sessions, requests, prompts, out_tokens, prompt_tokens = v
    return {
        "session_count": sessions,
        "request_count": requests,
        "prompt_count": prompts,
        "token_usage": {
            "output_tokens_sum": out_tokens,
            "prompt_tokens_sum": prompt_tokens,
            "avg_tokens_per_request": round((out_tokens + prompt_tokens) / requests, 1) if requests else 0.0,
        },
    }


def cli_json(v: Sequence[int]) -> str:
    d = cli_dict(v)
    u = d["token_usage"]
    return (
        f'{{"session_count":{v[0]},"request_count":{v[1]},"prompt_count":{v[2]},"token_usage":'
        f'{{"output_tokens_sum":{v[3]},"prompt_tokens_sum":{v[4]},"avg_tokens_per_request":{u["avg_tokens_per_request"]!r}}}}}'
    )
