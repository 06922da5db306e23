-- Every price dimension of docs/pricing.md: a version per (model, variant), per-kind prices per
-- million tokens (atto-USD, exact), context tiers and fees. Existing rows keep their values and
-- become the `standard` variant; the added prices are NULL (= bill at the parent's price).
ALTER TABLE "prices"
    ADD COLUMN "variant" TEXT NOT NULL DEFAULT 'standard',
    ADD COLUMN "cache_write_5m_atto_per_mtok" DECIMAL(38,0),
    ADD COLUMN "cache_write_1h_atto_per_mtok" DECIMAL(38,0),
    ADD COLUMN "input_audio_atto_per_mtok" DECIMAL(38,0),
    ADD COLUMN "cached_input_audio_atto_per_mtok" DECIMAL(38,0),
    ADD COLUMN "output_audio_atto_per_mtok" DECIMAL(38,0),
    ADD COLUMN "input_image_atto_per_mtok" DECIMAL(38,0),
    ADD COLUMN "output_image_atto_per_mtok" DECIMAL(38,0),
    ADD COLUMN "reasoning_atto_per_mtok" DECIMAL(38,0),
    -- [{"above_input_tokens": N, "inclusive": bool, "<kind>_atto_per_mtok": "<integer text>", ...}],
    -- ascending by above_input_tokens; amounts as integer strings (exact, never JSON numbers).
    ADD COLUMN "tiers" JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN "web_search_atto_per_call" DECIMAL(38,0),
    ADD COLUMN "web_search_billing" TEXT,
    ADD COLUMN "request_atto" DECIMAL(38,0),
    ADD CONSTRAINT "prices_variant_check" CHECK ("variant" ~ '^[a-z0-9._-]{1,64}$'),
    ADD CONSTRAINT "prices_dimensions_non_negative" CHECK (
        coalesce("cache_write_5m_atto_per_mtok", 0) >= 0 AND coalesce("cache_write_1h_atto_per_mtok", 0) >= 0
        AND coalesce("input_audio_atto_per_mtok", 0) >= 0 AND coalesce("cached_input_audio_atto_per_mtok", 0) >= 0
        AND coalesce("output_audio_atto_per_mtok", 0) >= 0 AND coalesce("input_image_atto_per_mtok", 0) >= 0
        AND coalesce("output_image_atto_per_mtok", 0) >= 0 AND coalesce("reasoning_atto_per_mtok", 0) >= 0
        AND coalesce("web_search_atto_per_call", 0) >= 0 AND coalesce("request_atto", 0) >= 0),
    ADD CONSTRAINT "prices_web_search_billing_check" CHECK (
        ("web_search_atto_per_call" IS NULL AND "web_search_billing" IS NULL)
        OR ("web_search_atto_per_call" IS NOT NULL AND "web_search_billing" IN ('per_call', 'per_request'))),
    ADD CONSTRAINT "prices_tiers_array" CHECK (jsonb_typeof("tiers") = 'array');

-- A version is identified by (model, variant, effective_from); variants supersede independently.
DROP INDEX "prices_model_effective_from_key";
CREATE UNIQUE INDEX "prices_model_variant_effective_from_key" ON "prices"("model", "variant", "effective_from");
