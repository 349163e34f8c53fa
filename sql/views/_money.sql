-- Money kept exact: DuckDB divides a DECIMAL into a DOUBLE, so the cost views that divide an
-- amount (a share of a bill, a cost per user, a projection) do it in whole millionths of a
-- dollar (HUGEINT, integer division rounding down) and turn the result back into DECIMAL(38,6),
-- the billed usage's money type (its amounts have up to 15 digits): never a float between the
-- bill and the view. The file name sorts before the views that call these.
CREATE OR REPLACE MACRO bi.micro(amount) AS CAST(CAST(amount AS DECIMAL(38, 6)) * 1000000 AS HUGEINT);
CREATE OR REPLACE MACRO bi.from_micro(micros) AS
    CAST(CAST(micros AS DECIMAL(38, 0)) * CAST(0.000001 AS DECIMAL(38, 6)) AS DECIMAL(38, 6));
