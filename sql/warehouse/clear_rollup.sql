-- A rollup rebuilt from the facts: every row of it first.
DELETE FROM {table};
