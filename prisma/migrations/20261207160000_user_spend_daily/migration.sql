-- Budgets' spent from a per-user daily rollup (issue 37 performance, docs/spend-controls.md
-- "Spend rollup"): the hold check read the period's events each time (p50 3.78 ms quiet with
-- 3,000 events, target 2 ms). Kept only for users with budgets.
--
-- spend_rollup on the user's account row: true from the user's first budget on (never cleared).
-- Every writer that changes a user's charge in a period (the usage write, both paths; reprice;
-- refunds) locks that row and reads the flag from it, so the flag, and the backfill a first
-- budget runs under the same lock, serialize with the writes: the rollup is exact.
ALTER TABLE "accounts" ADD COLUMN "spend_rollup" BOOLEAN NOT NULL DEFAULT false;

-- Per user, UTC day of occurred_at, key ('' = an event without key_id; key ids are never empty)
-- and model: the charges of priced events and what was refunded of them (refunds net against
-- the day their event occurred).
CREATE TABLE "user_spend_daily" (
  "user_id"       TEXT NOT NULL,
  "day"           DATE NOT NULL,
  "key_id"        TEXT NOT NULL,
  "model"         TEXT NOT NULL,
  "charge_atto"   DECIMAL(38,0) NOT NULL DEFAULT 0,
  "refunded_atto" DECIMAL(38,0) NOT NULL DEFAULT 0,
  PRIMARY KEY ("user_id", "day", "key_id", "model")
);

-- Users who already have budgets: flag and backfill (the service is stopped during migrations).
INSERT INTO "accounts" ("code", "kind", "owner_id", "tracked")
SELECT DISTINCT 'user:' || "user_id", 'user', "user_id", true FROM "user_budgets"
ON CONFLICT ("code") DO NOTHING;
UPDATE "accounts" SET "spend_rollup" = true WHERE "code" IN (SELECT 'user:' || "user_id" FROM "user_budgets");
INSERT INTO "user_spend_daily" ("user_id", "day", "key_id", "model", "charge_atto", "refunded_atto")
SELECT s."user_id", s."day", s."key_id", s."model", sum(s."charge_atto"), sum(s."refunded_atto") FROM (
  SELECT e."user_id", (e."occurred_at" AT TIME ZONE 'UTC')::date AS "day", coalesce(e."key_id", '') AS "key_id", e."model", e."charge_atto", 0 AS "refunded_atto"
  FROM "usage_events" e
  WHERE e."user_id" IN (SELECT "user_id" FROM "user_budgets") AND e."charge_atto" IS NOT NULL
  UNION ALL
  SELECT e."user_id", (e."occurred_at" AT TIME ZONE 'UTC')::date, coalesce(e."key_id", ''), e."model", 0, r."amount_atto"
  FROM "refunds" r
  JOIN "usage_event_keys" k ON k."event_id" = r."event_id"
  JOIN "usage_events" e ON e."id" = k."id" AND e."occurred_at" = k."occurred_at"
  WHERE r."user_id" IN (SELECT "user_id" FROM "user_budgets")
) s
GROUP BY 1, 2, 3, 4;

-- Budgets no longer read events by (user_id, occurred_at): the hold check reads the rollup, and the
-- backfill and the ledger check's spend_rollup find a user's events through the usage explorer's
-- usage_events_user_id_id_idx (partitions pruned by occurred_at). One index entry fewer per event
-- for every user, which pays for the rollup row of users with budgets.
DROP INDEX IF EXISTS "usage_events_user_occurred_idx";
