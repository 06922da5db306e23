-- Plans and timings of the usage explorer's queries (docs/usage-explorer.md), on a database seeded by npm run seed:events.
\timing on
\pset pager off
-- warm
SELECT count(*) FROM (SELECT id FROM usage_events WHERE user_id = 'seed-u01234' ORDER BY id DESC LIMIT 100) x;
\echo Q1 unfiltered newest 100
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id, event_id, status, model, user_id, contributor_id, key_id, occurred_at, charge_atto FROM usage_events ORDER BY id DESC LIMIT 100;
\echo Q2 one user (about 500 events of 10M)
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id, event_id, status, model, user_id, contributor_id, key_id, occurred_at, charge_atto FROM usage_events WHERE user_id = 'seed-u01234' ORDER BY id DESC LIMIT 100;
\echo Q3 one gateway key (about 80 events)
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id, event_id, status, model, user_id, contributor_id, key_id, occurred_at, charge_atto FROM usage_events WHERE key_id = 'seed-u01234-k1' ORDER BY id DESC LIMIT 100;
\echo Q4 one model (1 of 8)
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id, event_id, status, model, user_id, contributor_id, key_id, occurred_at, charge_atto FROM usage_events WHERE model = 'seed/deepseek' ORDER BY id DESC LIMIT 100;
\echo Q5 one contributor
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id, event_id, status, model, user_id, contributor_id, key_id, occurred_at, charge_atto FROM usage_events WHERE contributor_id = 'seed-c004321' ORDER BY id DESC LIMIT 100;
\echo Q6 user + model + status + one day
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id, event_id, status, model, user_id, contributor_id, key_id, occurred_at, charge_atto FROM usage_events WHERE user_id = 'seed-u01234' AND model = 'seed/deepseek' AND status = 'priced' AND occurred_at >= now() - interval '30 days' AND occurred_at < now() ORDER BY id DESC LIMIT 100;
\echo Q7 a model over one day (from/to)
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT id, event_id, status, model, user_id, contributor_id, key_id, occurred_at, charge_atto FROM usage_events WHERE model = 'seed/gpt-large' AND occurred_at >= date_trunc('day', now()) - interval '10 days' AND occurred_at < date_trunc('day', now()) - interval '9 days' ORDER BY id DESC LIMIT 100;
\echo Q8 summary of one user by model
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT model AS key, count(*), sum(charge_atto) FROM usage_events WHERE status = 'priced' AND user_id = 'seed-u01234' GROUP BY GROUPING SETS ((model), ());
\echo Q9 summary by day over 7 days, no filter
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS key, count(*), sum(charge_atto), sum(payout_atto) FROM usage_events WHERE status = 'priced' AND occurred_at >= date_trunc('day', now()) - interval '7 days' AND occurred_at < date_trunc('day', now()) GROUP BY GROUPING SETS ((to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')), ());
\echo Q10 summary by day over 7 whole days, from the daily rollup (what the summary runs since branch ops36)
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT to_char(r.day, 'YYYY-MM-DD') AS key, sum(r.events), sum(r.charge_atto), sum(r.earned_atto)
FROM (WITH RECURSIVE c AS (
        (SELECT contributor_id FROM contributor_usage_daily ORDER BY contributor_id LIMIT 1)
        UNION ALL
        SELECT (SELECT n.contributor_id FROM contributor_usage_daily n WHERE n.contributor_id > c.contributor_id ORDER BY n.contributor_id LIMIT 1)
        FROM c WHERE c.contributor_id IS NOT NULL)
      SELECT contributor_id FROM c WHERE contributor_id IS NOT NULL) AS c
JOIN contributor_usage_daily r ON r.contributor_id = c.contributor_id
WHERE r.day >= current_date - 7 AND r.day < current_date
  AND NOT EXISTS (SELECT 1 FROM usage_archives a WHERE a.month = date_trunc('month', r.day)::date)
GROUP BY GROUPING SETS ((to_char(r.day, 'YYYY-MM-DD')), ());
