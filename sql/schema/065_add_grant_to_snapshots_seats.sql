-- The seat's granting organization and whether its assigning team is an organization's or an
-- enterprise's team ('organization' | 'enterprise'), as the listing says them. Rows landed
-- before read NULL in both: the listing was not read for them then.
ALTER TABLE snapshots.seats ADD COLUMN organization_login VARCHAR;
ALTER TABLE snapshots.seats ADD COLUMN assigning_team_type VARCHAR;
