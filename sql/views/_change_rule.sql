-- The one rule that calls a change between two periods (bi.agent_usage_periods,
-- bi.team_usage_periods, the page and the run summary all call it; the file name sorts first so
-- the views after it can). A period is a series of daily counts over its compared days (final
-- days with data): its sum, its sum of squares and its number of days.
-- A change is called only when it is larger than the day-to-day noise: the difference of the
-- two per-day means against its 95% interval (normal approximation, 1.96 standard errors, on
-- at least bi.min_compared_days() days a period). Each period's variance is its days' sample
-- variance, never below its mean (the variance of a Poisson count): a series of identical days
-- does not make a one-count difference a change. So: new (nothing before), gone (nothing now),
-- grown or shrunk (the interval excludes no change), steady (it does not), NULL (too few days).
CREATE OR REPLACE MACRO bi.min_compared_days() AS 14;
-- In DOUBLE: the square of a period's total overflows integers long before its counts do.
CREATE OR REPLACE MACRO bi.period_variance(total, squares, days) AS
    greatest((CAST(squares AS DOUBLE) - CAST(total AS DOUBLE) * total / days) / (days - 1), total / days);
CREATE OR REPLACE MACRO bi.change_margin(total, squares, days, previous_total, previous_squares, previous_days) AS
    1.96 * sqrt(bi.period_variance(total, squares, days) / days
                + bi.period_variance(previous_total, previous_squares, previous_days) / previous_days);
CREATE OR REPLACE MACRO bi.change_call(total, squares, days, previous_total, previous_squares, previous_days) AS
    CASE
        WHEN days IS NULL OR previous_days IS NULL
          OR days < bi.min_compared_days() OR previous_days < bi.min_compared_days() THEN NULL
        WHEN coalesce(total, 0) = 0 AND coalesce(previous_total, 0) = 0 THEN 'steady'
        WHEN coalesce(previous_total, 0) = 0 THEN 'new'
        WHEN coalesce(total, 0) = 0 THEN 'gone'
        WHEN total / days - previous_total / previous_days
             > bi.change_margin(total, squares, days, previous_total, previous_squares, previous_days) THEN 'grown'
        WHEN previous_total / previous_days - total / days
             > bi.change_margin(total, squares, days, previous_total, previous_squares, previous_days) THEN 'shrunk'
        ELSE 'steady'
    END;
-- The 95% interval of the change as a share of the previous per-day mean (0.09 = 9% more a
-- day): its low and high ends, NULL where no change can be called or nothing came before.
CREATE OR REPLACE MACRO bi.change_low(total, squares, days, previous_total, previous_squares, previous_days) AS
    CASE WHEN days >= bi.min_compared_days() AND previous_days >= bi.min_compared_days() AND previous_total > 0
         THEN (coalesce(total, 0) / days - previous_total / previous_days
               - bi.change_margin(coalesce(total, 0), coalesce(squares, 0), days,
                                  previous_total, previous_squares, previous_days))
              / (previous_total / previous_days) END;
CREATE OR REPLACE MACRO bi.change_high(total, squares, days, previous_total, previous_squares, previous_days) AS
    CASE WHEN days >= bi.min_compared_days() AND previous_days >= bi.min_compared_days() AND previous_total > 0
         THEN (coalesce(total, 0) / days - previous_total / previous_days
               + bi.change_margin(coalesce(total, 0), coalesce(squares, 0), days,
                                  previous_total, previous_squares, previous_days))
              / (previous_total / previous_days) END;
