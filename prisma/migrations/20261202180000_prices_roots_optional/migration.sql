-- A version needs a price only for the kinds an event uses (docs/pricing.md): an image model such as
-- gpt-image-1 has an output image price and no text output price. NULL = no price for that root kind
-- (and for the kinds that fall back to it); an event using one is stored unpriced. A version still
-- prices something: at least one per-token price or fee.
ALTER TABLE "prices" ALTER COLUMN "input_atto_per_mtok" DROP NOT NULL;
ALTER TABLE "prices" ALTER COLUMN "output_atto_per_mtok" DROP NOT NULL;
ALTER TABLE "prices" ADD CONSTRAINT "prices_price_something" CHECK (
  COALESCE("input_atto_per_mtok", "output_atto_per_mtok", "input_audio_atto_per_mtok", "input_image_atto_per_mtok",
           "output_audio_atto_per_mtok", "output_image_atto_per_mtok", "web_search_atto_per_call", "request_atto") IS NOT NULL
);
