-- What a seat carried beyond the declared seat fields (pipelines/transform/seat_fields.py), as it
-- came, under its objects: the seats extension's `extra`, as the reports' rows have theirs. The
-- declared fields' own columns are added by `migrate` from the declaration. Rows landed before
-- read NULL: their listing's seats were not kept whole then.
ALTER TABLE snapshots.seats ADD COLUMN extra JSON;
ALTER TABLE snapshots.enterprise_seats ADD COLUMN extra JSON;
ALTER TABLE snapshots.unassigned_seats ADD COLUMN extra JSON;
