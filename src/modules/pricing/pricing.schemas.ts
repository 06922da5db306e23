// Request and response shapes of the price catalog API. Money arrives as a decimal string in USD
// per million tokens and leaves this layer as bigint atto-USD per Mtok.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { formatAttoAsUsd, parseUsdToAtto } from '../../common/money/index.js';
import { isStorableInstant, TIMESTAMP_RANGE_MESSAGE } from '../../common/validation/fields.js';
import { MODEL_NAME_LENGTH_MAX, MODEL_NAME_PATTERN, PRICE_ATTO_PER_MTOK_MAX, PRICE_DECIMALS_MAX } from './price-rules.js';

const requiredOr = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);

export const modelNameSchema = z
  .string({ error: requiredOr('must be a string') })
  .min(1)
  .max(MODEL_NAME_LENGTH_MAX)
  .regex(MODEL_NAME_PATTERN, 'must be printable characters without whitespace');

/** "2.5" -> 2.5e18 atto per Mtok. A JSON number is refused, never rounded. */
export const usdPerMtokSchema = z
  .string({ error: requiredOr('must be a decimal string such as "2.5" (a JSON number is not accepted)') })
  .transform((text, ctx): bigint => {
    let atto: bigint;
    try {
      atto = parseUsdToAtto(text, { decimalsMax: PRICE_DECIMALS_MAX });
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
    if (atto > PRICE_ATTO_PER_MTOK_MAX) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${formatAttoAsUsd(PRICE_ATTO_PER_MTOK_MAX)} USD per million tokens` });
      return z.NEVER;
    }
    return atto;
  });

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

export const createPriceSchema = z
  .object({
    model: modelNameSchema,
    input_usd_per_mtok: usdPerMtokSchema,
    output_usd_per_mtok: usdPerMtokSchema,
    cached_input_usd_per_mtok: usdPerMtokSchema.optional(),
    effective_from: rfc3339Schema.optional(),
  })
  .strict();
export class CreatePriceDto extends createZodDto(createPriceSchema) {}

export const listPricesQuerySchema = z.object({ model: modelNameSchema.optional() }).strict();
export class ListPricesQueryDto extends createZodDto(listPricesQuerySchema) {}

export const importPricesQuerySchema = z.object({ effective_from: rfc3339Schema.optional() }).strict();
export class ImportPricesQueryDto extends createZodDto(importPricesQuerySchema) {}

// Response shapes (documentation; the controller builds them).
export const priceResponseSchema = z.object({
  id: z.string().describe('bigint as a decimal string'),
  model: z.string(),
  input_usd_per_mtok: z.string(),
  output_usd_per_mtok: z.string(),
  cached_input_usd_per_mtok: z.string().nullable(),
  effective_from: z.string(),
  source: z.string().describe('"api" or "litellm"'),
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

export const priceImportResponseSchema = z.object({
  effective_from: z.string(),
  imported: z.number().int(),
  unchanged: z.number().int().describe('models whose version in force at effective_from already has these prices'),
  skipped: z.array(z.object({ model: z.string(), reason: z.string() })),
});
export class PriceImportResponseDto extends createZodDto(priceImportResponseSchema) {}
