import dagster as dg


def check_results(result: dg.ExecuteInProcessResult) -> dict[str, bool]:
    """`asset/key:check_name` -> passed, for every check a run evaluated."""
    return {
        f"{e.asset_check_evaluation_data.asset_key.to_user_string()}:{e.asset_check_evaluation_data.check_name}":
            e.asset_check_evaluation_data.passed
        for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }
