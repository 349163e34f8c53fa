-- One person, any spelling: the service's logins are case-insensitive (`DEV-1` and `dev-1` are
-- the same user), and the bill (the usage export, budgets, cost-center resources) and the usage
-- reports need not spell a login alike. Wherever a login of the bill meets another login (of the
-- bill or of a report), or people are counted by login, both sides go through this key, declared
-- once here; the file name sorts before the views that call it.
CREATE OR REPLACE MACRO bi.login_key(login) AS lower(login);
