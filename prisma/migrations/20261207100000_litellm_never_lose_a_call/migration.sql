-- LiteLLM push and pull never losing a call (issue 34, api.md "LiteLLM push, never losing a call"). Additive.
--
-- A spend-log row the pull cannot take is remembered as rejected (with its reason), so re-reading
-- it in a later run neither counts it again nor retries it for ever.
ALTER TABLE "litellm_requests" DROP CONSTRAINT "litellm_requests_status";
ALTER TABLE "litellm_requests" ADD CONSTRAINT "litellm_requests_status" CHECK ("status" IN ('skipped', 'unattributed', 'billed', 'rejected'));
ALTER TABLE "litellm_requests" DROP CONSTRAINT "litellm_requests_skipped_reason";
ALTER TABLE "litellm_requests" ADD CONSTRAINT "litellm_requests_skipped_reason" CHECK (("status" IN ('skipped', 'rejected')) = ("reason" IS NOT NULL));

-- Entries refused, by path and reason (GET /v1/admin/integrations/litellm/status, /metrics).
CREATE TABLE "litellm_rejections" (
    "path" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "count" BIGINT NOT NULL DEFAULT 0,
    "last_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "litellm_rejections_pkey" PRIMARY KEY ("path", "reason"),
    CONSTRAINT "litellm_rejections_path" CHECK ("path" IN ('push', 'pull'))
);

-- The pull's late sweep: per minute of LiteLLM's "startTime", how many spend rows it had and a sum
-- of their ids' hashes when the pull last read it. A minute whose figures changed got rows late
-- and is read again; the others are not (litellm-late-sweep.ts).
CREATE TABLE "litellm_pull_minutes" (
    "minute" TIMESTAMPTZ(6) NOT NULL,
    "rows" BIGINT NOT NULL,
    "id_hash_sum" NUMERIC NOT NULL,
    CONSTRAINT "litellm_pull_minutes_pkey" PRIMARY KEY ("minute")
);

-- A checkpoint a future-dated row pushed past the present (it stopped the pull) comes back to now.
UPDATE "litellm_sync_state" SET "checkpoint" = LEAST("checkpoint", CURRENT_TIMESTAMP) WHERE "path" = 'pull';
