"""The values the service documents for the records' enumerated fields, in one place.

A value is data, the same in every dialect (the public service's `copilot_app` is the service
dialect's too). Every value lands as it comes, listed or not: this list says what the service's
docs name, so the emulator can be held to serve each of them
(`tests/integration/emulator/test_documented_values.py` walks a year of its reports in both
dialects) and docs/emulator.md can show them (`values_markdown`, held equal by a test).
"""

from __future__ import annotations

from pipelines.transform.schema import BREAKDOWN_ARRAYS, COMMENT_TYPES_FIELD

# Where a value sits in a record, as `<array>[].<key>` or `<object>.<array>[].<key>`, under the
# canonical names -> the documented values and whether the docs' list is closed (a value not
# listed would be a change of the service) or open (the docs give examples).
DOCUMENTED_VALUES: dict[str, tuple[tuple[str, ...], bool]] = {
    f"{BREAKDOWN_ARRAYS['feature'][0]}[].feature": (
        (
            "code_completion",
            "chat_inline",
            "chat_panel_ask_mode",
            "chat_panel_edit_mode",
            "chat_panel_agent_mode",
            "chat_panel_plan_mode",
            "chat_panel_custom_mode",
            "chat_panel_unknown_mode",
            "agent_edit",
            "copilot_cli",
            "copilot_app",
            "others",
            "unknown",
        ),
        True,
    ),
    f"pull_requests.{COMMENT_TYPES_FIELD}[].comment_type": (("security", "bug_risk"), False),
    "repo_visibility": (("PRIVATE", "INTERNAL", "PUBLIC"), True),
}


def values_markdown() -> str:
    """The declaration as the table docs/emulator.md shows."""
    rows = ["| where | documented values | list |", "|---|---|---|"]
    for path, (values, closed) in DOCUMENTED_VALUES.items():
        listed = ", ".join(f"`{value}`" for value in values)
        rows.append(f"| `{path}` | {listed} | {'closed' if closed else 'examples'} |")
    return "\n".join(rows)
