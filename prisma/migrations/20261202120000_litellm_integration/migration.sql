-- LiteLLM proxy integration (api.md "Integrations (gateway)"). Additive only.
--
-- Which contributor serves each LiteLLM deployment (its `model_info.id`, the payload's `model_id`).
CREATE TABLE "litellm_deployments" (
    "model_id" TEXT NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "litellm_deployments_pkey" PRIMARY KEY ("model_id"),
    CONSTRAINT "litellm_deployments_contributor_fkey" FOREIGN KEY ("contributor_id") REFERENCES "contributors"("id")
);

-- LiteLLM calls that did not become a usage event at once: skipped ones (remembered by id so a
-- replay answers the same reason) and unattributed ones (parked until their deployment is mapped,
-- then billed through the usage writer and marked billed). Holds usage counts, never the
-- messages or the response of the call.
CREATE TABLE "litellm_requests" (
    "event_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "model_id" TEXT,
    "event" JSONB,
    "source" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "billed_at" TIMESTAMPTZ(6),
    CONSTRAINT "litellm_requests_pkey" PRIMARY KEY ("event_id"),
    CONSTRAINT "litellm_requests_status" CHECK ("status" IN ('skipped', 'unattributed', 'billed')),
    CONSTRAINT "litellm_requests_skipped_reason" CHECK (("status" = 'skipped') = ("reason" IS NOT NULL)),
    CONSTRAINT "litellm_requests_parked_event" CHECK ("status" <> 'unattributed' OR ("event" IS NOT NULL AND "model_id" IS NOT NULL))
);
CREATE INDEX "litellm_requests_parked_idx" ON "litellm_requests"("model_id") WHERE "status" = 'unattributed';

-- Counters and the spend-log checkpoint: one row per path ('push', 'pull').
CREATE TABLE "litellm_sync_state" (
    "path" TEXT NOT NULL,
    "payloads" BIGINT NOT NULL DEFAULT 0,
    "last_at" TIMESTAMPTZ(6),
    "checkpoint" TIMESTAMPTZ(6),
    CONSTRAINT "litellm_sync_state_pkey" PRIMARY KEY ("path"),
    CONSTRAINT "litellm_sync_state_path" CHECK ("path" IN ('push', 'pull'))
);
