// One LiteLLM entry's fields sorted out: per-token prices by service tier and context tier, the
// special fields (fees, multipliers, ranges) kept raw for later, and every field this service
// cannot use recorded with a reason. Values are read exactly (litellm-fields.ts). Pure.
import { isLosslessNumber } from 'lossless-json';
import { REQUIRED_PRICE_KINDS, type DroppedField, type CatalogKindPrices, type OmissionCode } from './catalog-price-body.js';
import { classifyField, readPerTokenPrice, type KindField, type ServiceTierSuffix, type SpecialField } from './litellm-fields.js';

export const REASON_LENGTH_MAX = 200;

/** Other names of a price (litellm-fields.ts): cache_read_input_token_cost and cache_read_input_audio_token_cost win over them. */
const READ_LAST_ALIASES: ReadonlySet<string> = new Set(['input_cost_per_token_cache_hit', 'cache_creation_input_audio_token_cost']);

export type BucketKey = ServiceTierSuffix | '';
export interface Bucket {
  prices: CatalogKindPrices;
  tiers: Map<number, CatalogKindPrices>;
  /** "200000|cached_input" -> the field it came from, to name it when it is dropped. */
  tierFields: Map<string, string>;
}
export interface Failure {
  code: OmissionCode;
  reason: string;
}

/** What one entry's fields say, before versions are assembled. */
export interface EntryFields {
  model: string;
  /** litellm_provider, which gives search fees their meaning. */
  provider: string | undefined;
  buckets: Map<BucketKey, Bucket>;
  failures: Map<BucketKey, Failure>;
  /** Non-zero prices per image, second, query...: the reason a model without token prices is skipped. */
  notTokenPriced: string[];
  special: Partial<Record<SpecialField, unknown>>;
  dropped: DroppedField[];
}

export function readEntryFields(model: string, entry: Record<string, unknown>): EntryFields {
  const provider = typeof entry.litellm_provider === 'string' ? entry.litellm_provider : undefined;
  const fields: EntryFields = { model, provider, buckets: new Map(), failures: new Map(), notTokenPriced: [], special: {}, dropped: [] };
  // Aliases are read last so the canonical field wins when both are there.
  const names = Object.keys(entry).sort((a, b) => Number(READ_LAST_ALIASES.has(a)) - Number(READ_LAST_ALIASES.has(b)));
  for (const name of names) {
    const value = entry[name];
    const fieldClass = classifyField(name);
    switch (fieldClass.type) {
      case 'ignored':
        break;
      case 'special':
        fields.special[fieldClass.name] = value;
        break;
      case 'not_token_priced':
        if (!isZero(value)) fields.notTokenPriced.push(name);
        break;
      case 'unsupported':
        if (!isZero(value)) drop(fields, name, 'unsupported', fieldClass.reason);
        break;
      case 'unknown':
        // A flag or a note (a string, a boolean) is not a price, whatever its name says.
        if ((isLosslessNumber(value) || typeof value === 'object') && value !== null && !isZero(value)) drop(fields, name, 'unknown_field', 'not a LiteLLM price field this importer knows');
        break;
      case 'kind':
        readKindField(fields, name, value, fieldClass.field);
        break;
    }
  }
  dropOrphanTierPrices(fields);
  return fields;
}

/**
 * A context-tier price for a kind that has no base price of its own is dropped: below the
 * threshold that kind bills at its parent, so the tier would make long prompts cheaper (LiteLLM
 * lists Gemini's cache price above 200k as cache_creation_input_token_cost_above_200k_tokens).
 */
function dropOrphanTierPrices(fields: EntryFields): void {
  const standard = fields.buckets.get('')?.prices ?? {};
  for (const [key, bucket] of fields.buckets) {
    const base = { ...standard, ...bucket.prices };
    for (const [threshold, prices] of bucket.tiers) {
      for (const kind of Object.keys(prices) as (keyof CatalogKindPrices)[]) {
        if (base[kind] !== undefined) continue;
        delete prices[kind];
        const name = bucket.tierFields.get(`${threshold}|${kind}`) ?? `${kind} above ${threshold}${key}`;
        drop(fields, name, 'invalid', `no base ${kind} price below the threshold, so the tier price would bill long prompts differently than the parent`);
      }
      if (Object.keys(prices).length === 0) bucket.tiers.delete(threshold);
    }
  }
}

function readKindField(fields: EntryFields, name: string, value: unknown, field: KindField): void {
  const key: BucketKey = field.serviceTier ?? '';
  const read = readPerTokenPrice(name, value);
  if (!read.ok) {
    if (!fields.failures.has(key)) fields.failures.set(key, { code: read.code, reason: read.reason });
    return;
  }
  const isRequiredBase = field.aboveInputTokens === null && REQUIRED_PRICE_KINDS.includes(field.kind);
  if (read.value === 0n && !isRequiredBase) {
    const fallback = field.aboveInputTokens === null ? 'its parent price applies' : 'the base price applies above the threshold';
    drop(fields, name, 'zero_priced', `0 is taken as not listed (${fallback}), never as free`);
    return;
  }
  const bucket = fields.buckets.get(key) ?? emptyBucket();
  fields.buckets.set(key, bucket);
  let target = bucket.prices;
  if (field.aboveInputTokens !== null) {
    target = bucket.tiers.get(field.aboveInputTokens) ?? {};
    bucket.tiers.set(field.aboveInputTokens, target);
    bucket.tierFields.set(`${field.aboveInputTokens}|${field.kind}`, name);
  }
  const existing = target[field.kind];
  if (existing !== undefined && existing !== read.value) {
    drop(fields, name, 'invalid', `differs from the ${field.kind} price given by another field, which is used`);
    return;
  }
  target[field.kind] = read.value;
}

export function drop(fields: { model: string; dropped: DroppedField[] }, field: string, code: OmissionCode, reason: string): void {
  fields.dropped.push({ model: fields.model.slice(0, REASON_LENGTH_MAX), field: field.slice(0, REASON_LENGTH_MAX), code, reason: reason.slice(0, REASON_LENGTH_MAX) });
}

export function emptyBucket(): Bucket {
  return { prices: {}, tiers: new Map(), tierFields: new Map() };
}

function isZero(value: unknown): boolean {
  return isLosslessNumber(value) && /^-?0(\.0*)?([eE][+-]?\d+)?$/.test(value.value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !isLosslessNumber(value);
}
