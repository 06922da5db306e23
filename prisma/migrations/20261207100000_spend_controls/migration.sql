-- Spend controls (issue 37, branch spend): key_id on events and holds, budgets, balance alerts,
-- expiring credit grants and auto top-up. docs/spend-controls.md has the rules.

-- The end user's key at the gateway. IF NOT EXISTS: the operator branch's usage explorer may add
-- the same column; whichever migration runs first creates it.
ALTER TABLE "usage_events" ADD COLUMN IF NOT EXISTS "key_id" TEXT;
ALTER TABLE "holds" ADD COLUMN "key_id" TEXT, ADD COLUMN "model" TEXT;

-- A budget's spent is summed at hold time over the user's events of the period: this index is
-- the only per-event cost budgets add to ingestion (no rollup or budget row is touched).
CREATE INDEX IF NOT EXISTS "usage_events_user_occurred_idx" ON "usage_events" ("user_id", "occurred_at");
-- Held amounts per budget: the user's active holds.
CREATE INDEX "holds_user_active_idx" ON "holds" ("user_id") WHERE "status" = 'active';

CREATE TABLE "user_budgets" (
  "user_id"    TEXT NOT NULL,
  "budget_id"  TEXT NOT NULL,
  "limit_atto" DECIMAL(38,0) NOT NULL CHECK ("limit_atto" >= 0),
  "period"     TEXT NOT NULL CHECK ("period" IN ('day', 'week', 'month', 'total')),
  "key_id"     TEXT,
  "model"      TEXT,
  "action"     TEXT NOT NULL CHECK ("action" IN ('block', 'notify')),
  -- Fractions of the limit as exact decimal text ("0.5", "0.8", "1").
  "alert_at"   TEXT[] NOT NULL DEFAULT '{}',
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  PRIMARY KEY ("user_id", "budget_id")
);

-- One row per budget threshold announced in a period: user.budget_threshold_crossed once.
CREATE TABLE "user_budget_alerts" (
  "user_id"      TEXT NOT NULL,
  "budget_id"    TEXT NOT NULL,
  "period_start" TIMESTAMPTZ(6) NOT NULL,
  "threshold"    TEXT NOT NULL,
  "sent_at"      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  PRIMARY KEY ("user_id", "budget_id", "period_start", "threshold")
);

-- user.balance_threshold_crossed: armed while the available balance is at or above the threshold.
CREATE TABLE "user_balance_alerts" (
  "user_id"        TEXT NOT NULL,
  "threshold_atto" DECIMAL(38,0) NOT NULL,
  "armed"          BOOLEAN NOT NULL DEFAULT true,
  PRIMARY KEY ("user_id", "threshold_atto")
);

-- Credits that expire: each is its own ledger account (user:<id>:grant:<grant_id>).
CREATE TABLE "user_grants" (
  "grant_id"         TEXT PRIMARY KEY,
  "user_id"          TEXT NOT NULL,
  "name"             TEXT,
  "amount_atto"      DECIMAL(38,0) NOT NULL CHECK ("amount_atto" > 0),
  "expires_at"       TIMESTAMPTZ(6) NOT NULL,
  "journal_entry_id" BIGINT NOT NULL,
  "expired_at"       TIMESTAMPTZ(6),
  "breakage_atto"    DECIMAL(38,0),
  "created_at"       TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX "user_grants_user_idx" ON "user_grants" ("user_id", "expires_at");
CREATE INDEX "user_grants_due_idx" ON "user_grants" ("expires_at") WHERE "expired_at" IS NULL;

CREATE TABLE "user_auto_topups" (
  "user_id"            TEXT PRIMARY KEY,
  "below_atto"         DECIMAL(38,0) NOT NULL,
  "amount_atto"        DECIMAL(38,0) NOT NULL CHECK ("amount_atto" > 0),
  "max_per_month_atto" DECIMAL(38,0) NOT NULL CHECK ("max_per_month_atto" >= 0),
  "enabled"            BOOLEAN NOT NULL DEFAULT true,
  -- A request goes out when the available balance falls below below_atto while armed; a
  -- balance back at or above it arms again (once per crossing).
  "armed"              BOOLEAN NOT NULL DEFAULT true,
  "failures_in_row"    INTEGER NOT NULL DEFAULT 0,
  "disabled_reason"    TEXT,
  "updated_at"         TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);

CREATE TABLE "user_topup_requests" (
  "request_id"     TEXT PRIMARY KEY,
  "user_id"        TEXT NOT NULL,
  "amount_atto"    DECIMAL(38,0) NOT NULL,
  -- The UTC calendar month the request counts against max_per_month.
  "month"          DATE NOT NULL,
  "status"         TEXT NOT NULL DEFAULT 'requested' CHECK ("status" IN ('requested', 'failed')),
  "failure_reason" TEXT,
  "created_at"     TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "failed_at"      TIMESTAMPTZ(6)
);
CREATE INDEX "user_topup_requests_user_month_idx" ON "user_topup_requests" ("user_id", "month");
