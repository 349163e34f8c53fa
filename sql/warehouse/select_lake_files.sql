-- The lake's files as the last publish left them.
SELECT path, size, mtime_ns FROM meta.lake_files;
