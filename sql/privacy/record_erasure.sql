-- One store of an erasure done: when, and how many rows and files it changed (never whom).
INSERT INTO meta.erasures (erasure_id, store, started_at, finished_at, rows_removed, files_changed)
VALUES ($erasure_id, $store, $started_at, now(), $rows, $files)
