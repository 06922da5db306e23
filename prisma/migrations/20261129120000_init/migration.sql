-- Initial schema of the contributor ledger. Money is NUMERIC(38,0) in atto-USD (1e-18 USD)
-- unless the column name says micro_usdc or wei.

CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "key_hash" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "contributor_id" TEXT,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(6),
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "api_keys_role_check" CHECK ("role" IN ('admin', 'gateway', 'contributor')),
    CONSTRAINT "api_keys_contributor_check" CHECK (("role" = 'contributor') = ("contributor_id" IS NOT NULL))
);
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

CREATE TABLE "prices" (
    "id" BIGSERIAL NOT NULL,
    "model" TEXT NOT NULL,
    "input_atto_per_mtok" DECIMAL(38,0) NOT NULL,
    "output_atto_per_mtok" DECIMAL(38,0) NOT NULL,
    "cached_input_atto_per_mtok" DECIMAL(38,0),
    "effective_from" TIMESTAMPTZ(6) NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'api',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "prices_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "prices_non_negative" CHECK ("input_atto_per_mtok" >= 0 AND "output_atto_per_mtok" >= 0
        AND ("cached_input_atto_per_mtok" IS NULL OR "cached_input_atto_per_mtok" >= 0))
);
CREATE UNIQUE INDEX "prices_model_effective_from_key" ON "prices"("model", "effective_from");

CREATE TABLE "contributors" (
    "id" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "payout_address" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "flagged_reason" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "contributors_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "contributors_tier_check" CHECK ("tier" IN ('standard', 'premium')),
    CONSTRAINT "contributors_status_check" CHECK ("status" IN ('active', 'suspended'))
);

CREATE TABLE "contributor_tiers" (
    "id" BIGSERIAL NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "effective_from" TIMESTAMPTZ(6) NOT NULL,
    CONSTRAINT "contributor_tiers_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "contributor_tiers_tier_check" CHECK ("tier" IN ('standard', 'premium'))
);
CREATE INDEX "contributor_tiers_contributor_id_effective_from_idx" ON "contributor_tiers"("contributor_id", "effective_from");

CREATE TABLE "accounts" (
    "code" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "owner_id" TEXT,
    "tracked" BOOLEAN NOT NULL DEFAULT true,
    "balance_atto" DECIMAL(38,0) NOT NULL DEFAULT 0,
    "held_atto" DECIMAL(38,0) NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "accounts_pkey" PRIMARY KEY ("code"),
    CONSTRAINT "accounts_held_non_negative" CHECK ("held_atto" >= 0)
);

-- Sum of a numeric array; IMMUTABLE so a CHECK constraint may use it.
CREATE FUNCTION "ledger_sum"(numeric[]) RETURNS numeric
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT coalesce(sum(x), 0) FROM unnest($1) AS x $$;

CREATE TABLE "journal_entries" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "account_codes" TEXT[] NOT NULL,
    "amounts_atto" DECIMAL(38,0)[] NOT NULL,
    "memo" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "journal_entries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "journal_entries_balanced" CHECK (
        cardinality("account_codes") >= 2
        AND cardinality("account_codes") = cardinality("amounts_atto")
        AND array_position("amounts_atto", NULL) IS NULL
        AND "ledger_sum"("amounts_atto") = 0)
);
CREATE UNIQUE INDEX "journal_entries_kind_ref_key" ON "journal_entries"("kind", "ref");

-- The journal is append-only: corrections are new (reversing) entries.
CREATE FUNCTION "journal_entries_append_only"() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'journal_entries is append-only (% refused)', TG_OP USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER "journal_entries_no_update_delete" BEFORE UPDATE OR DELETE ON "journal_entries"
    FOR EACH ROW EXECUTE FUNCTION "journal_entries_append_only"();
CREATE TRIGGER "journal_entries_no_truncate" BEFORE TRUNCATE ON "journal_entries"
    FOR EACH STATEMENT EXECUTE FUNCTION "journal_entries_append_only"();

-- One row per posting, for auditors and the ledger check.
CREATE VIEW "ledger_postings" AS
    SELECT e."id" AS "entry_id", e."kind", e."ref", p."account_code", p."amount_atto", e."created_at"
    FROM "journal_entries" e,
         unnest(e."account_codes", e."amounts_atto") AS p("account_code", "amount_atto");

CREATE TABLE "user_credits" (
    "reference" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "amount_atto" DECIMAL(38,0) NOT NULL,
    "reason" TEXT,
    "journal_entry_id" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "user_credits_pkey" PRIMARY KEY ("reference")
);

CREATE TABLE "holds" (
    "hold_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "amount_atto" DECIMAL(38,0) NOT NULL,
    "status" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "captured_event_id" TEXT,
    "captured_atto" DECIMAL(38,0),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "holds_pkey" PRIMARY KEY ("hold_id"),
    CONSTRAINT "holds_status_check" CHECK ("status" IN ('active', 'captured', 'released', 'expired')),
    CONSTRAINT "holds_amount_positive" CHECK ("amount_atto" > 0)
);
CREATE INDEX "holds_status_expires_at_idx" ON "holds"("status", "expires_at");

CREATE TABLE "usage_events" (
    "id" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    "received_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "prompt_tokens" INTEGER NOT NULL,
    "completion_tokens" INTEGER NOT NULL,
    "cached_tokens" INTEGER NOT NULL,
    "reasoning_tokens" INTEGER NOT NULL,
    "hold_id" TEXT,
    "metadata" JSONB,
    "source" TEXT NOT NULL DEFAULT 'api',
    "status" TEXT NOT NULL,
    "price_id" BIGINT,
    "contributor_tier" TEXT,
    "user_markup" TEXT,
    "payout_multiplier" TEXT,
    "official_atto" DECIMAL(38,0),
    "charge_atto" DECIMAL(38,0),
    "payout_atto" DECIMAL(38,0),
    "margin_atto" DECIMAL(38,0),
    "priced_at" TIMESTAMPTZ(6),
    "stream" JSONB,
    CONSTRAINT "usage_events_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "usage_events_status_check" CHECK ("status" IN ('priced', 'unpriced')),
    CONSTRAINT "usage_events_tokens_check" CHECK ("prompt_tokens" >= 0 AND "completion_tokens" >= 0
        AND "cached_tokens" >= 0 AND "reasoning_tokens" >= 0
        AND "cached_tokens" <= "prompt_tokens" AND "reasoning_tokens" <= "completion_tokens"),
    CONSTRAINT "usage_events_amounts_check" CHECK (("status" = 'unpriced') OR (
        "official_atto" IS NOT NULL AND "charge_atto" IS NOT NULL AND "payout_atto" IS NOT NULL
        AND "margin_atto" IS NOT NULL AND "charge_atto" = "payout_atto" + "margin_atto"))
);
CREATE UNIQUE INDEX "usage_events_event_id_key" ON "usage_events"("event_id");
CREATE INDEX "usage_events_status_id_idx" ON "usage_events"("status", "id");
CREATE INDEX "usage_events_contributor_id_occurred_at_idx" ON "usage_events"("contributor_id", "occurred_at");

CREATE TABLE "contributor_usage_daily" (
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
    CONSTRAINT "contributor_usage_daily_pkey" PRIMARY KEY ("contributor_id", "day", "model")
);

CREATE TABLE "settlements" (
    "id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "payout_count" INTEGER NOT NULL,
    "total_micro_usdc" DECIMAL(38,0) NOT NULL,
    "requires_approval" BOOLEAN NOT NULL,
    "approved_by" TEXT,
    "approved_at" TIMESTAMPTZ(6),
    "reconciliation" JSONB,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(6),
    CONSTRAINT "settlements_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "settlements_status_check" CHECK ("status" IN ('pending_approval', 'queued', 'submitting',
        'confirmed', 'partially_failed', 'failed'))
);
CREATE INDEX "settlements_status_idx" ON "settlements"("status");
-- At most one open settlement at a time: a second concurrent run creates nothing.
CREATE UNIQUE INDEX "settlements_one_open" ON "settlements"((true))
    WHERE "status" IN ('pending_approval', 'queued', 'submitting');

CREATE TABLE "settlement_lines" (
    "id" UUID NOT NULL,
    "settlement_id" UUID NOT NULL,
    "line_index" INTEGER NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "payout_address" TEXT NOT NULL,
    "amount_micro_usdc" DECIMAL(38,0) NOT NULL,
    "status" TEXT NOT NULL,
    "tx_id" UUID,
    "failure_reason" TEXT,
    "confirmed_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "settlement_lines_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "settlement_lines_status_check" CHECK ("status" IN ('queued', 'submitted', 'paid', 'failed')),
    CONSTRAINT "settlement_lines_amount_positive" CHECK ("amount_micro_usdc" > 0)
);
CREATE UNIQUE INDEX "settlement_lines_settlement_id_contributor_id_key" ON "settlement_lines"("settlement_id", "contributor_id");
CREATE INDEX "settlement_lines_contributor_id_created_at_idx" ON "settlement_lines"("contributor_id", "created_at");

CREATE TABLE "settlement_txs" (
    "id" UUID NOT NULL,
    "settlement_id" UUID NOT NULL,
    "batch_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "from_address" TEXT NOT NULL,
    "nonce" INTEGER NOT NULL,
    "signed_raw" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "max_fee_per_gas_wei" DECIMAL(38,0) NOT NULL,
    "max_priority_fee_per_gas_wei" DECIMAL(38,0) NOT NULL,
    "gas_limit" DECIMAL(38,0) NOT NULL,
    "status" TEXT NOT NULL,
    "gas_used" DECIMAL(38,0),
    "block_number" DECIMAL(38,0),
    "line_count" INTEGER NOT NULL,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "settlement_txs_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "settlement_txs_tx_hash_key" ON "settlement_txs"("tx_hash");
CREATE INDEX "settlement_txs_settlement_id_idx" ON "settlement_txs"("settlement_id");
CREATE INDEX "settlement_txs_status_idx" ON "settlement_txs"("status");

CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "actor_id" TEXT,
    "actor_role" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT,
    "before" JSONB,
    "after" JSONB,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "audit_log_created_at_idx" ON "audit_log"("created_at");
