-- The schema BI users read; its views are (re)created from sql/views/ after every migration run.
CREATE SCHEMA IF NOT EXISTS bi;
