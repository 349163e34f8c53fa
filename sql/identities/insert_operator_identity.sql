-- One good line of the operator's identity file, with the login's user id where a seat shows it
-- (the newest snapshot's), so erasure finds the row by either.
INSERT INTO vendors.operator_identities (read_day, email, login, user_id, line_number)
SELECT CAST($read_day AS DATE), $email, $login,
       (SELECT s.user_id FROM snapshots.seats AS s WHERE bi.login_key(s.login) = bi.login_key($login)
         ORDER BY s.snapshot_day DESC LIMIT 1),
       $line_number;
