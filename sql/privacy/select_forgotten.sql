-- The keyed hashes of every erased person's user id and login.
SELECT hash FROM meta.forgotten_people
