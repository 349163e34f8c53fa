import graphql

from pipelines.service.repos import repository_stats_query


def test_stats_query_declares_typed_variables_per_alias():
    doc = graphql.parse(repository_stats_query(count=3))
    operation = next(d for d in doc.definitions if isinstance(d, graphql.OperationDefinitionNode))
    declared = {v.variable.name.value: graphql.print_ast(v.type) for v in operation.variable_definitions}
    assert declared == {f"{k}{i}": "String!" for i in range(3) for k in ("owner", "name")}
    aliases = [s.alias.value for s in operation.selection_set.selections]
    assert aliases == ["r0", "r1", "r2"]
    fragment = next(d for d in doc.definitions if isinstance(d, graphql.FragmentDefinitionNode))
    assert fragment.type_condition.name.value == "Repository"
