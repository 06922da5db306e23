// LiteLLM's model_prices_and_context_window.json -> price versions, exactly. The document is parsed
// with lossless-json so every number keeps its decimal text ("2.5e-06"); that text is converted with
// bigint maths. Pure: no Nest, no I/O.
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { ATTO_PER_USD } from '../../common/money/index.js';
import { DecimalTextError, decimalTextToScaled } from './decimal-text.js';
import { DEFAULT_PRICE_VARIANT, NO_EXTRA_PRICES, type PriceTerms } from './pricing.types.js';
import { isValidModelName, PRICE_ATTO_PER_MTOK_MAX, PRICE_DECIMALS_MAX, PRICE_USD_PER_MTOK_MAX } from './price-rules.js';

/** LiteLLM's documentation entry, not a model. */
export const LITELLM_SAMPLE_SPEC_KEY = 'sample_spec';
/** The real catalog lists a few thousand models; far more is not a price catalog. */
export const IMPORT_MODELS_MAX = 20_000;
const REASON_LENGTH_MAX = 200;

/** USD per token with 12 decimals is USD per Mtok with 6: convert at scale 12 (micro-USD per Mtok). */
const PER_TOKEN_SCALE = 6 + PRICE_DECIMALS_MAX;
const ATTO_PER_MICRO_USD = ATTO_PER_USD / 10n ** BigInt(PRICE_DECIMALS_MAX);

/** A version to import: the same shape POST /v1/admin/prices stores (see price-terms.ts). */
export interface ImportedPrice extends PriceTerms {
  model: string;
  variant: string;
}

export interface SkippedModel {
  model: string;
  reason: string;
}

export interface LitellmImportPlan {
  prices: ImportedPrice[];
  skipped: SkippedModel[];
}

export class LitellmDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LitellmDocumentError';
  }
}

/** Parses without binary floats: numbers stay LosslessNumber (their decimal text). */
export function parseLitellmDocument(text: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = parseLossless(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    // Includes RangeError from absurd nesting: still just a bad document.
    throw new LitellmDocumentError(`not valid JSON: ${(error as Error).message}`.slice(0, REASON_LENGTH_MAX));
  }
  // A bare number parses to a LosslessNumber, which is an object too.
  if (document === null || typeof document !== 'object' || Array.isArray(document) || isLosslessNumber(document)) {
    throw new LitellmDocumentError('must be a JSON object keyed by model name');
  }
  const entries = document as Record<string, unknown>;
  if (Object.keys(entries).length > IMPORT_MODELS_MAX) {
    throw new LitellmDocumentError(`lists more than ${IMPORT_MODELS_MAX} models`);
  }
  return entries;
}

/** Every key ends up either in prices or in skipped, so nothing disappears silently. */
export function planLitellmImport(document: Record<string, unknown>): LitellmImportPlan {
  const prices: ImportedPrice[] = [];
  const skipped: SkippedModel[] = [];
  for (const [model, entry] of Object.entries(document)) {
    const result = priceOfEntry(model, entry);
    if (typeof result === 'string') skipped.push({ model: model.slice(0, REASON_LENGTH_MAX), reason: result });
    else prices.push(result);
  }
  return { prices, skipped };
}

/** A price, or the reason the entry is skipped. */
function priceOfEntry(model: string, entry: unknown): ImportedPrice | string {
  if (model === LITELLM_SAMPLE_SPEC_KEY) return 'documentation entry, not a model';
  if (!isValidModelName(model)) return 'model name must be 1..200 printable characters without whitespace';
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return 'entry is not an object';
  const fields = entry as Record<string, unknown>;
  if (fields.input_cost_per_token === undefined || fields.output_cost_per_token === undefined) {
    return 'no per-token input and output price';
  }
  const input = perTokenField(fields, 'input_cost_per_token');
  if (typeof input === 'string') return input;
  const output = perTokenField(fields, 'output_cost_per_token');
  if (typeof output === 'string') return output;
  let cachedInput: bigint | null = null;
  if (fields.cache_read_input_token_cost !== undefined && fields.cache_read_input_token_cost !== null) {
    // Skipping the whole model beats importing it without its cache price (that would overcharge).
    const cached = perTokenField(fields, 'cache_read_input_token_cost');
    if (typeof cached === 'string') return cached;
    cachedInput = cached;
  }
  return {
    ...NO_EXTRA_PRICES,
    model,
    variant: DEFAULT_PRICE_VARIANT,
    inputAttoPerMtok: input,
    outputAttoPerMtok: output,
    cachedInputAttoPerMtok: cachedInput,
  };
}

function perTokenField(fields: Record<string, unknown>, name: string): bigint | string {
  const value = fields[name];
  if (!isLosslessNumber(value)) return `${name} is not a JSON number`;
  try {
    return perTokenTextToAttoPerMtok(value.value);
  } catch (error) {
    if (error instanceof DecimalTextError || error instanceof RangeError) return `${name} ${error.message}`.slice(0, REASON_LENGTH_MAX);
    throw error;
  }
}

/**
 * "2.5e-06" USD per token -> 2.5 USD per Mtok in atto (2.5e18). Throws DecimalTextError when the
 * per-Mtok price would need more than 6 decimals, RangeError when negative or above the sane max.
 */
export function perTokenTextToAttoPerMtok(text: string): bigint {
  let microUsdPerMtok: bigint;
  try {
    microUsdPerMtok = decimalTextToScaled(text, PER_TOKEN_SCALE);
  } catch (error) {
    if (error instanceof DecimalTextError && error.problem === 'inexact') {
      throw new DecimalTextError('inexact', `${text} needs more than ${PRICE_DECIMALS_MAX} decimals per million tokens`);
    }
    throw error;
  }
  const attoPerMtok = microUsdPerMtok * ATTO_PER_MICRO_USD;
  if (attoPerMtok < 0n) throw new RangeError(`${text} is negative`);
  if (attoPerMtok > PRICE_ATTO_PER_MTOK_MAX) {
    throw new RangeError(`${text} is above ${PRICE_USD_PER_MTOK_MAX} USD per million tokens`);
  }
  return attoPerMtok;
}

