import dagster as dg


def check_results(result: dg.ExecuteInProcessResult) -> dict[str, bool]:
    """`asset/key:check_name` -> passed, for every check a run evaluated."""
    evaluations = [
        e.asset_check_evaluation_data for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"
    ]
    return {f"{data.asset_key.to_user_string()}:{data.check_name}": data.passed for data in evaluations}
