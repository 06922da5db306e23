-- The usage audit's prompt and reasoning ratios (api.md "What a contributor's upstream claims is not
-- believed past what the gateway asked", issue 34 item 12), beside the completion ratio.
-- Per sample: the provider's prompt tokens with the gateway's own count (the stream's `prompt_tokens`
-- parameter), and the hidden reasoning tokens (reported, no reasoning text streamed). NULL: not known.
ALTER TABLE "usage_audit_samples"
    ADD COLUMN "reported_prompt_tokens" INTEGER,
    ADD COLUMN "gateway_prompt_tokens" INTEGER,
    ADD COLUMN "reasoning_tokens" INTEGER,
    ADD CONSTRAINT "usage_audit_samples_prompt" CHECK (("reported_prompt_tokens" IS NULL) = ("gateway_prompt_tokens" IS NULL)
        AND ("reported_prompt_tokens" IS NULL OR ("reported_prompt_tokens" >= 0 AND "gateway_prompt_tokens" > 0))),
    ADD CONSTRAINT "usage_audit_samples_reasoning" CHECK ("reasoning_tokens" IS NULL OR "reasoning_tokens" >= 0);

-- Per contributor and model, each ratio's events, median and the model's median; which ratios flag it.
ALTER TABLE "usage_audit_stats"
    ADD COLUMN "prompt_events" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "prompt_median_ratio" NUMERIC(20,6),
    ADD COLUMN "prompt_model_median_ratio" NUMERIC(20,6),
    ADD COLUMN "reasoning_events" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "reasoning_median_ratio" NUMERIC(20,6),
    ADD COLUMN "reasoning_model_median_ratio" NUMERIC(20,6),
    ADD COLUMN "flagged_ratios" TEXT[] NOT NULL DEFAULT '{}';
