-- Every usage kind of docs/pricing.md on the event (absent = 0), the variant it was priced at, and
-- cache/audio totals in the earnings rollup. Existing rows: 0 and 'standard', which is what they
-- were billed on.
ALTER TABLE "usage_events"
    ADD COLUMN "price_variant" TEXT NOT NULL DEFAULT 'standard',
    ADD COLUMN "cache_write_5m_tokens" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "cache_write_1h_tokens" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "prompt_audio_tokens" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "cached_audio_tokens" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "prompt_image_tokens" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "completion_audio_tokens" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "completion_image_tokens" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "web_search_calls" INTEGER NOT NULL DEFAULT 0,
    -- The containment rules of pricing.md (the API refuses violations with a 400 first).
    ADD CONSTRAINT "usage_events_kinds_check" CHECK (
        "cache_write_5m_tokens" >= 0 AND "cache_write_1h_tokens" >= 0 AND "prompt_audio_tokens" >= 0
        AND "cached_audio_tokens" >= 0 AND "prompt_image_tokens" >= 0 AND "completion_audio_tokens" >= 0
        AND "completion_image_tokens" >= 0 AND "web_search_calls" >= 0
        AND "cached_audio_tokens" <= "cached_tokens" AND "cached_audio_tokens" <= "prompt_audio_tokens"
        AND "cached_tokens"::bigint + "cache_write_5m_tokens" + "cache_write_1h_tokens"
            + ("prompt_audio_tokens" - "cached_audio_tokens") + "prompt_image_tokens" <= "prompt_tokens"
        AND "reasoning_tokens"::bigint + "completion_audio_tokens" + "completion_image_tokens" <= "completion_tokens");

ALTER TABLE "contributor_usage_daily"
    ADD COLUMN "cached_tokens" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "cache_write_tokens" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "audio_tokens" BIGINT NOT NULL DEFAULT 0;

-- Cached tokens were stored per event before: the rollup's new total starts from them.
UPDATE "contributor_usage_daily" AS r SET "cached_tokens" = s."cached_tokens"
  FROM (SELECT "contributor_id", ("occurred_at" AT TIME ZONE 'UTC')::date AS "day", "model", sum("cached_tokens") AS "cached_tokens"
          FROM "usage_events" WHERE "status" = 'priced' GROUP BY 1, 2, 3) AS s
 WHERE r."contributor_id" = s."contributor_id" AND r."day" = s."day" AND r."model" = s."model";
