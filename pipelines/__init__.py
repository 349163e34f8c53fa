"""metrics-etl: AI-assistant usage reports and repository activity into a DuckDB warehouse."""
