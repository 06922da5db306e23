-- Ledger checkpoints (the check recomputes only what came after one) and the record of archived
-- usage months (npm run archive). docs/history.md.

-- Per-account sums of every journal entry with id <= through_entry_id. Written only after the
-- check at that position passed; digest = sha256 of the balances in a canonical text form, so a
-- later check proves the rows are the ones that were verified.
CREATE TABLE "ledger_checkpoints" (
    "id" BIGSERIAL NOT NULL,
    "through_entry_id" BIGINT NOT NULL,
    "entries" BIGINT NOT NULL,
    "accounts" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ledger_checkpoints_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "ledger_checkpoint_balances" (
    "checkpoint_id" BIGINT NOT NULL,
    "account_code" TEXT NOT NULL,
    "total_atto" DECIMAL(38,0) NOT NULL,
    CONSTRAINT "ledger_checkpoint_balances_pkey" PRIMARY KEY ("checkpoint_id", "account_code"),
    CONSTRAINT "ledger_checkpoint_balances_checkpoint_fkey" FOREIGN KEY ("checkpoint_id") REFERENCES "ledger_checkpoints" ("id") ON DELETE CASCADE
);

-- One row per archived month: what the manifest says, and where the files went.
CREATE TABLE "usage_archives" (
    "month" DATE NOT NULL,
    "events" BIGINT NOT NULL,
    "official_atto" DECIMAL(38,0) NOT NULL,
    "charge_atto" DECIMAL(38,0) NOT NULL,
    "payout_atto" DECIMAL(38,0) NOT NULL,
    "margin_atto" DECIMAL(38,0) NOT NULL,
    "min_id" BIGINT,
    "max_id" BIGINT,
    "file" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL,
    "table_bytes" BIGINT NOT NULL,
    "archived_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "usage_archives_pkey" PRIMARY KEY ("month"),
    CONSTRAINT "usage_archives_month_first_day" CHECK (extract(day FROM "month") = 1)
);

-- The archived events summed per contributor, UTC day and model, as the rollup sums them: the
-- rollup check compares contributor_usage_daily with the stored events plus these, so it stays
-- exact after the raw rows are gone.
CREATE TABLE "usage_archived_rollups" (
    "month" DATE NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "model" TEXT NOT NULL,
    "events" BIGINT NOT NULL,
    "prompt_tokens" BIGINT NOT NULL,
    "completion_tokens" BIGINT NOT NULL,
    "official_atto" DECIMAL(38,0) NOT NULL,
    "earned_atto" DECIMAL(38,0) NOT NULL,
    "charge_atto" DECIMAL(38,0) NOT NULL,
    "margin_atto" DECIMAL(38,0) NOT NULL,
    "cached_tokens" BIGINT NOT NULL,
    "cache_write_tokens" BIGINT NOT NULL,
    "audio_tokens" BIGINT NOT NULL,
    CONSTRAINT "usage_archived_rollups_pkey" PRIMARY KEY ("month", "contributor_id", "day", "model"),
    CONSTRAINT "usage_archived_rollups_month_fkey" FOREIGN KEY ("month") REFERENCES "usage_archives" ("month")
);
