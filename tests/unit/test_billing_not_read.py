"""The run's one line per scope refused billing: whatever the billing assets found refused, in
whatever order, each scope is one line naming every kind of data refused and that scope's roles."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipelines.defs.billing.not_read import not_read, not_read_lines
from pipelines.service.billing_wire import BILLING_ROLES

_ENTRIES = st.lists(
    st.tuples(
        st.sampled_from(["enterprise", "organization"]),
        st.sampled_from(["acme", "acme-corp"]),
        st.sampled_from(["usage", "cost centers", "budgets", "seat breakdown", "exports"]),
        st.sampled_from(["403 Must have admin rights or billing manager role", "403 Resource not accessible"]),
    ),
    max_size=12,
)


@given(_ENTRIES)
def test_each_scope_refused_is_one_line_naming_everything_refused_and_its_roles(
    entries: list[tuple[str, str, str, str]],
) -> None:
    lines = not_read_lines([not_read(*entry) for entry in entries])
    scopes = {(scope, name) for scope, name, _, _ in entries}
    assert len(lines) == len(scopes)
    for scope, name in scopes:
        (line,) = [line for line in lines if line.startswith(f"billing of {scope} {name!r} not read (")]
        assert f"the token needs {BILLING_ROLES[scope]};" in line  # type: ignore[index]
        for s, n, what, answer in entries:
            if (s, n) == (scope, name):
                assert what in line and answer in line


def test_the_same_refusals_in_another_order_say_the_same_line() -> None:
    found = [not_read("enterprise", "acme-corp", what, "403 No") for what in ("usage", "exports", "cost centers")]
    assert (
        not_read_lines(found)
        == not_read_lines(found[::-1])
        == [
            "billing of enterprise 'acme-corp' not read (cost centers, exports, usage: 403 No): the token needs "
            f"{BILLING_ROLES['enterprise']}; the cost views stay without it"
        ]
    )
