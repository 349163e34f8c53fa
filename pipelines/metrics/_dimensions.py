"""The dimensions a metric may be grouped and filtered by: each a column of the sources that have
it (sql/metrics/<group>.sql names it so), with `<name>_name` beside it when labelled."""

from pipelines.metrics._model import Dimension

DIMENSIONS = (
    Dimension(
        "scope",
        "The organization or enterprise a report is of: `organization:<slug>` or `enterprise:<slug>` (a bare "
        "slug matches either). Every answer is split by it: an organization's figures are a part of its "
        "enterprise's, so scopes never add up.",
    ),
    Dimension("agent", "A third-party agent app, by agent_id; agent_name is its latest label.", labelled=True),
    Dimension(
        "team",
        "A team of the scope, by team id; team_name is its slug. A person on two teams counts in both.",
        labelled=True,
    ),
    Dimension(
        "source",
        "A coding assistant: `service` (the service's own surfaces), `agent:<agent_id>` (a third-party agent app "
        "through the service), `claude_code` or `cursor` (the vendor's own figures). A person using several "
        "counts in each: sources never add up.",
    ),
    Dimension("cost_center", "A cost center of an enterprise, by id; cost_center_name is its name.", labelled=True),
    Dimension(
        "user",
        "One person, by pseudonym: the keyed hash of their user id in the pseudonymous tier, never a login or an id.",
        tier="pseudonymous",
    ),
)
