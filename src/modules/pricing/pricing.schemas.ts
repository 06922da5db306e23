// Request and response shapes of the price catalog API. Money arrives as a decimal string in USD
// per million tokens and leaves this layer as bigint atto-USD per Mtok.
import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { formatAttoAsUsd, parseUsdToAtto } from '../../common/money/index.js';
import { isStorableInstant, TIMESTAMP_RANGE_MESSAGE } from '../../common/validation/fields.js';
import {
  FEE_ATTO_MAX,
  FEE_DECIMALS_MAX,
  MODEL_NAME_LENGTH_MAX,
  MODEL_NAME_PATTERN,
  PRICE_ATTO_PER_MTOK_MAX,
  PRICE_DECIMALS_MAX,
  PRICE_TIERS_MAX,
  PRICE_VARIANT_PATTERN,
  PRICE_WIRE_NAMES,
  TOKEN_THRESHOLD_MAX,
} from './price-rules.js';

/** A history import names at most this many models (the LiteLLM catalog has about 3,000). */
export const GENAI_IMPORT_MODELS_MAX = 20_000;
import { DEFAULT_PRICE_VARIANT } from './pricing.types.js';

const requiredOr = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);

export const modelNameSchema = z
  .string({ error: requiredOr('must be a string') })
  .min(1)
  .max(MODEL_NAME_LENGTH_MAX)
  .regex(MODEL_NAME_PATTERN, 'must be printable characters without whitespace');

/** A decimal USD string with at most `decimalsMax` decimals and at most `max` atto -> bigint atto. */
function usdAmountSchema(example: string, decimalsMax: number, max: bigint, unit: string) {
  return z
    .string({ error: requiredOr(`must be a decimal string such as "${example}" (a JSON number is not accepted)`) })
    .transform((text, ctx): bigint => {
      let atto: bigint;
      try {
        atto = parseUsdToAtto(text, { decimalsMax });
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
      if (atto > max) {
        ctx.addIssue({ code: 'custom', message: `must be at most ${formatAttoAsUsd(max)} ${unit}` });
        return z.NEVER;
      }
      return atto;
    });
}

/** "2.5" -> 2.5e18 atto per Mtok. A JSON number is refused, never rounded. */
export const usdPerMtokSchema = usdAmountSchema('2.5', PRICE_DECIMALS_MAX, PRICE_ATTO_PER_MTOK_MAX, 'USD per million tokens');

/**
 * RFC 3339 with an explicit offset. At most millisecond precision: a Date holds milliseconds, and
 * silently truncating microseconds could make two distinct versions collide.
 */
export const rfc3339Schema = z
  .string({ error: requiredOr('must be a string') })
  .pipe(z.iso.datetime({ offset: true, error: 'must be an RFC 3339 timestamp such as "2026-11-29T10:00:00Z"' }))
  .refine((text) => !/\.\d{4,}/.test(text), 'must have at most millisecond precision')
  .refine(isStorableInstant, TIMESTAMP_RANGE_MESSAGE)
  .transform((text) => new Date(text));

/** Fees (per search call, per request) in USD with at most 12 decimals. */
export const feeUsdSchema = usdAmountSchema('0.01', FEE_DECIMALS_MAX, FEE_ATTO_MAX, 'USD');

export const priceVariantSchema = z
  .string({ error: requiredOr('must be a string') })
  .regex(PRICE_VARIANT_PATTERN, 'must be 1-64 characters of lowercase letters, digits, ".", "_" or "-"');

/** The optional per-Mtok prices, by their wire name (a tier may list any of these and input/output). */
const optionalPriceShape = {
  cached_input_usd_per_mtok: usdPerMtokSchema.optional(),
  cache_write_5m_usd_per_mtok: usdPerMtokSchema.optional(),
  cache_write_1h_usd_per_mtok: usdPerMtokSchema.optional(),
  input_audio_usd_per_mtok: usdPerMtokSchema.optional(),
  cached_input_audio_usd_per_mtok: usdPerMtokSchema.optional(),
  output_audio_usd_per_mtok: usdPerMtokSchema.optional(),
  input_image_usd_per_mtok: usdPerMtokSchema.optional(),
  output_image_usd_per_mtok: usdPerMtokSchema.optional(),
  reasoning_usd_per_mtok: usdPerMtokSchema.optional(),
};

export const priceTierSchema = z
  .object({
    above_input_tokens: z.number({ error: requiredOr('must be an integer') }).int().min(0).max(TOKEN_THRESHOLD_MAX),
    inclusive: z.boolean().default(false),
    input_usd_per_mtok: usdPerMtokSchema.optional(),
    output_usd_per_mtok: usdPerMtokSchema.optional(),
    ...optionalPriceShape,
  })
  .strict()
  .refine((tier) => PRICE_WIRE_NAMES.some((name) => tier[name] !== undefined), 'a tier must list at least one *_usd_per_mtok price');

export const createPriceSchema = z
  .object({
    model: modelNameSchema,
    variant: priceVariantSchema.default(DEFAULT_PRICE_VARIANT),
    effective_from: rfc3339Schema.optional(),
    // Required, except on a version priced only by image or audio on that side (gpt-image-1 has an
    // output image price and no text output price): a version needs a price only for the kinds
    // an event uses (pricing.md).
    input_usd_per_mtok: usdPerMtokSchema.optional(),
    output_usd_per_mtok: usdPerMtokSchema.optional(),
    ...optionalPriceShape,
    tiers: z.array(priceTierSchema).max(PRICE_TIERS_MAX).optional(),
    web_search_usd_per_call: feeUsdSchema.optional(),
    web_search_billing: z.enum(['per_call', 'per_request']).optional(),
    request_usd: feeUsdSchema.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.input_usd_per_mtok === undefined && body.input_image_usd_per_mtok === undefined && body.input_audio_usd_per_mtok === undefined) {
      ctx.addIssue({ code: 'custom', path: ['input_usd_per_mtok'], message: 'is required (only a version priced by input_image_usd_per_mtok or input_audio_usd_per_mtok may omit it)' });
    }
    if (body.output_usd_per_mtok === undefined && body.output_image_usd_per_mtok === undefined && body.output_audio_usd_per_mtok === undefined) {
      ctx.addIssue({ code: 'custom', path: ['output_usd_per_mtok'], message: 'is required (only a version priced by output_image_usd_per_mtok or output_audio_usd_per_mtok may omit it)' });
    }
    if (body.web_search_billing !== undefined && body.web_search_usd_per_call === undefined) {
      ctx.addIssue({ code: 'custom', path: ['web_search_billing'], message: 'needs web_search_usd_per_call' });
    }
    const seen = new Set<string>();
    body.tiers?.forEach((tier, index) => {
      const key = `${tier.above_input_tokens}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['tiers', index, 'above_input_tokens'], message: 'two tiers with the same above_input_tokens' });
      seen.add(key);
    });
  });
export type CreatePriceBody = z.output<typeof createPriceSchema>;
export class CreatePriceDto extends createZodDto(createPriceSchema) {}

export const listPricesQuerySchema = z.object({ model: modelNameSchema.optional() }).strict();
export class ListPricesQueryDto extends createZodDto(listPricesQuerySchema) {}

export const importPricesQuerySchema = z.object({ effective_from: rfc3339Schema.optional() }).strict();
export class ImportPricesQueryDto extends createZodDto(importPricesQuerySchema) {}

// Response shapes (documentation; the controller builds them).
const nullablePrice = z.string().nullable().describe('USD per million tokens; null = billed at the parent kind\'s price');
export const priceTierResponseSchema = z.object({
  above_input_tokens: z.number().int(),
  inclusive: z.boolean(),
  input_usd_per_mtok: z.string().optional(),
  output_usd_per_mtok: z.string().optional(),
  cached_input_usd_per_mtok: z.string().optional(),
  cache_write_5m_usd_per_mtok: z.string().optional(),
  cache_write_1h_usd_per_mtok: z.string().optional(),
  input_audio_usd_per_mtok: z.string().optional(),
  cached_input_audio_usd_per_mtok: z.string().optional(),
  output_audio_usd_per_mtok: z.string().optional(),
  input_image_usd_per_mtok: z.string().optional(),
  output_image_usd_per_mtok: z.string().optional(),
  reasoning_usd_per_mtok: z.string().optional(),
});
export const priceResponseSchema = z.object({
  id: z.string().describe('bigint as a decimal string'),
  model: z.string(),
  variant: z.string().describe('"standard" unless named (flex, batch, priority, us, fast, eu, low, medium, high, ...)'),
  input_usd_per_mtok: nullablePrice.describe('USD per million text input tokens; null only on image/audio-only versions (events using text input are unpriced)'),
  output_usd_per_mtok: nullablePrice.describe('USD per million text output tokens; null only on image/audio-only versions (events using text output are unpriced)'),
  cached_input_usd_per_mtok: nullablePrice,
  cache_write_5m_usd_per_mtok: nullablePrice,
  cache_write_1h_usd_per_mtok: nullablePrice,
  input_audio_usd_per_mtok: nullablePrice,
  cached_input_audio_usd_per_mtok: nullablePrice,
  output_audio_usd_per_mtok: nullablePrice,
  input_image_usd_per_mtok: nullablePrice,
  output_image_usd_per_mtok: nullablePrice,
  reasoning_usd_per_mtok: nullablePrice,
  tiers: z.array(priceTierResponseSchema).describe('context tiers, ascending; the highest one the prompt passes prices the whole request'),
  web_search_usd_per_call: z.string().nullable(),
  web_search_billing: z.enum(['per_call', 'per_request']).nullable(),
  request_usd: z.string().nullable(),
  effective_from: z.string(),
  source: z.string().describe('"api" or the importer ("litellm", ...)'),
  created_at: z.string(),
});
export type PriceJson = z.infer<typeof priceResponseSchema>;
export class PriceResponseDto extends createZodDto(priceResponseSchema) {}

export const priceListResponseSchema = z.object({
  data: z.array(priceResponseSchema.extend({ next: priceResponseSchema.nullable() })),
  upcoming: z.array(priceResponseSchema).describe('models whose first version is still in the future'),
});
export class PriceListResponseDto extends createZodDto(priceListResponseSchema) {}

export const priceVersionsResponseSchema = z.object({ data: z.array(priceResponseSchema) });
export class PriceVersionsResponseDto extends createZodDto(priceVersionsResponseSchema) {}

const omissionCodeSchema = z
  .enum(['precision', 'not_token_priced', 'zero_priced', 'unknown_field', 'unsupported', 'invalid', 'not_a_model', 'conflict'])
  .describe('why it was left out (docs/pricing.md, "What is left out, and why")');
const importSkippedSchema = z.object({
  model: z.string(),
  variant: z.string().optional().describe('absent: the whole model (every variant) was skipped'),
  code: omissionCodeSchema,
  reason: z.string(),
});
const importDroppedSchema = z.object({ model: z.string(), field: z.string(), code: omissionCodeSchema, reason: z.string() });
const importCountsSchema = z
  .object({
    models: z.number().int(),
    versions: z.number().int(),
    variants: z.record(z.string(), z.number().int()).describe('versions per variant'),
    tiers: z.number().int(),
    versions_with_tiers: z.number().int(),
    skipped_models: z.number().int(),
    skipped_variants: z.number().int(),
    skipped_by_code: z.record(z.string(), z.number().int()),
    dropped_by_code: z.record(z.string(), z.number().int()),
  })
  .describe('what the catalog holds, whether or not it was new');

export const priceImportResponseSchema = z.object({
  effective_from: z.string(),
  imported: z.number().int().describe('versions created'),
  unchanged: z.number().int().describe('versions whose (model, variant) already had these terms in force at effective_from'),
  skipped: z.array(importSkippedSchema),
  dropped: z.array(importDroppedSchema).describe('price-changing fields of imported models that were not imported'),
  catalog: importCountsSchema,
});
export class PriceImportResponseDto extends createZodDto(priceImportResponseSchema) {}

export const importGenaiPricesSchema = z
  .object({
    models: z
      .array(modelNameSchema)
      .min(1)
      .max(GENAI_IMPORT_MODELS_MAX)
      .optional()
      .describe('names to import the history of; default: every model priced here'),
  })
  .strict();
export class ImportGenaiPricesDto extends createZodDto(importGenaiPricesSchema) {}

export const genaiPricesImportResponseSchema = z.object({
  models_requested: z.number().int(),
  models_matched: z.number().int().describe('names genai-prices prices (its own name matching)'),
  imported: z.number().int().describe('dated versions created'),
  unchanged: z.number().int(),
  superseded: z.number().int().describe('versions dated at or after the model\'s earliest version from another source'),
  skipped: z.array(importSkippedSchema),
  dropped: z.array(importDroppedSchema),
  catalog: importCountsSchema,
});
export class GenaiPricesImportResponseDto extends createZodDto(genaiPricesImportResponseSchema) {}
