// The usage event body, checked without zod's machinery when it is the common shape (issue 35:
// zod was ~8% of the API's busy time at batch 1000, and its output objects part of the GC there).
// Not a second set of rules: the fast check only *proves* a body valid for the plain cases (ASCII
// ids, integer counts, optional fields from a short list) and builds exactly what
// usageEventSchema would output; anything else, valid or not, goes to usageEventSchema itself, so
// every 400 and its details come from zod as before. Differentially tested against the schema
// (usage-event-parse.spec.ts).
import type { ZodSafeParseResult } from 'zod';
import { ID_LENGTH_MAX, isStorableInstant, TIMESTAMP_YEAR_MAX, TIMESTAMP_YEAR_MIN, TOKENS_MAX } from '../../common/validation/fields.js';
import { PRICE_VARIANT_PATTERN } from '../pricing/price-rules.js';
import { usageContainmentProblem } from '../pricing/pricing-math.js';
import { METADATA_BYTES_MAX, tokenUsageOf, USAGE_KINDS_AFTER_FIRST_FOUR, usageEventSchema, type UsageEventInput, type UsageInput } from './usage.schemas.js';

/** An id the rule accepts without looking further: 1 to 256 printable ASCII characters (no control character, no surrogate). */
const PLAIN_ID = /^[\x20-\x7E]+$/;
/** modelSchema: 1 to 200 printable ASCII characters without spaces. */
const PLAIN_MODEL = /^[\x21-\x7E]{1,200}$/;

/** toISOString's own form (UTC, milliseconds): what gateways and the LiteLLM mapping send. */
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A metadata key the record schema accepts as it is (1 to 100 printable ASCII characters). */
const PLAIN_METADATA_KEY = /^[\x20-\x7E]{1,100}$/;
/** A metadata string value that is storable text as it is (printable ASCII). */
const PLAIN_TEXT = /^[\x20-\x7E]*$/;
/** Flat metadata keys checked directly; more go to the schema (which bounds them by METADATA_BYTES_MAX). */
const PLAIN_METADATA_KEYS_MAX = 32;

const EVENT_KEYS = new Set(['event_id', 'user_id', 'contributor_id', 'model', 'occurred_at', 'price_variant', 'usage', 'hold_id', 'key_id', 'metadata']);
/** usageSchema's optional kinds, in its order (zod's output order). */
const OPTIONAL_KINDS = USAGE_KINDS_AFTER_FIRST_FOUR;
const USAGE_KEYS = new Set<string>(['prompt_tokens', 'completion_tokens', 'cached_tokens', 'reasoning_tokens', ...OPTIONAL_KINDS]);

const shape = usageEventSchema.shape;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Only keys of `allowed`, none of them holding undefined (zod keeps an explicit undefined; not worth copying). */
function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key) || value[key] === undefined) return false;
  }
  return true;
}

const isPlainId = (v: unknown): v is string => typeof v === 'string' && v.length <= ID_LENGTH_MAX && PLAIN_ID.test(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= TOKENS_MAX;

/** usageSchema's output for a plain usage object, or undefined when the fast check cannot prove it valid. */
function plainUsage(raw: unknown): UsageInput | undefined {
  if (!isPlainObject(raw) || !onlyKeys(raw, USAGE_KEYS)) return undefined;
  const { prompt_tokens, completion_tokens } = raw;
  // Absent = the schema's default 0 (null is no count: the schema refuses it).
  const cached = raw.cached_tokens === undefined ? 0 : raw.cached_tokens;
  const reasoning = raw.reasoning_tokens === undefined ? 0 : raw.reasoning_tokens;
  if (!isCount(prompt_tokens) || !isCount(completion_tokens) || !isCount(cached) || !isCount(reasoning)) return undefined;
  const usage: Record<string, number> = { prompt_tokens, completion_tokens, cached_tokens: cached, reasoning_tokens: reasoning };
  for (const kind of OPTIONAL_KINDS) {
    const n = raw[kind];
    if (n === undefined) continue;
    if (!isCount(n)) return undefined;
    usage[kind] = n;
  }
  const parsed = usage as UsageInput;
  return usageContainmentProblem(tokenUsageOf(parsed)) === null ? parsed : undefined;
}

/**
 * timestampSchema's output (the text itself) for a timestamp in toISOString's form that is a real
 * instant (it reads back to the same text: no 31 November, no hour 24) of a storable year, or
 * undefined when only the schema can tell.
 */
export function plainOccurredAt(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !ISO_MILLIS.test(raw)) return undefined;
  const at = new Date(raw);
  return !Number.isNaN(at.getTime()) && at.toISOString() === raw && isStorableInstant(raw) ? raw : undefined;
}

/**
 * metadataSchema's output (the object itself) for flat metadata: a plain object of at most
 * PLAIN_METADATA_KEYS_MAX printable-ASCII keys of 1-100 characters whose values are printable-ASCII
 * strings, finite numbers, booleans or null, at most METADATA_BYTES_MAX bytes of JSON (all ASCII:
 * its length is its size). Nothing nests, so no depth to check; printable ASCII holds no NUL and
 * no lone surrogate. Anything else: undefined, the schema decides.
 */
export function plainMetadata(raw: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(raw)) return undefined;
  let keys = 0;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key)) return undefined;
    keys += 1;
    if (keys > PLAIN_METADATA_KEYS_MAX || !PLAIN_METADATA_KEY.test(key)) return undefined;
    const value = raw[key];
    if (typeof value === 'string') {
      if (value.length > METADATA_BYTES_MAX || !PLAIN_TEXT.test(value)) return undefined;
    } else if (!(value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))) {
      return undefined;
    }
  }
  return JSON.stringify(raw).length <= METADATA_BYTES_MAX ? raw : undefined;
}

/** A field's output: its plain check's, else its own field schema's (the timestamp and metadata rules are the schema's), undefined when refused. */
function fieldOutput<T>(raw: unknown, plain: (raw: unknown) => T | undefined, schema: { safeParse(raw: unknown): { success: true; data: T } | { success: false } }): T | undefined {
  const proven = plain(raw);
  if (proven !== undefined) return proven;
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** usageEventSchema's output for a plain body, or undefined when only the schema can tell. */
export function plainUsageEvent(raw: unknown): UsageEventInput | undefined {
  if (!isPlainObject(raw) || !onlyKeys(raw, EVENT_KEYS)) return undefined;
  const { event_id, user_id, contributor_id, model, occurred_at, price_variant, hold_id, key_id, metadata } = raw;
  if (!isPlainId(event_id) || !isPlainId(user_id) || !isPlainId(contributor_id)) return undefined;
  if (typeof model !== 'string' || !PLAIN_MODEL.test(model)) return undefined;
  if (price_variant !== undefined && (typeof price_variant !== 'string' || !PRICE_VARIANT_PATTERN.test(price_variant))) return undefined;
  if ((hold_id !== undefined && !isPlainId(hold_id)) || (key_id !== undefined && !isPlainId(key_id))) return undefined;
  const usage = plainUsage(raw.usage);
  if (usage === undefined) return undefined;
  // In the schema's key order, only the keys sent (as zod outputs them).
  const event: Record<string, unknown> = { event_id, user_id, contributor_id, model };
  if (occurred_at !== undefined) {
    const at = fieldOutput(occurred_at, plainOccurredAt, shape.occurred_at);
    if (at === undefined) return undefined;
    event.occurred_at = at;
  }
  if (price_variant !== undefined) event.price_variant = price_variant;
  event.usage = usage;
  if (hold_id !== undefined) event.hold_id = hold_id;
  if (key_id !== undefined) event.key_id = key_id;
  if (metadata !== undefined) {
    const checked = fieldOutput(metadata, plainMetadata, shape.metadata);
    if (checked === undefined) return undefined;
    event.metadata = checked;
  }
  return event as UsageEventInput;
}

/**
 * The parts of an event another module built from fields it already checked (the LiteLLM push):
 * occurred_at as toISOString() wrote it, with the instant it was written from, and flat metadata.
 */
export interface UsageEventParts {
  event_id: string;
  user_id: string;
  contributor_id: string;
  model: string;
  occurred_at: string;
  /** The instant occurred_at was written from: the event's time is read once, by its maker. */
  occurredAt: Date;
  price_variant?: string;
  usage: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/**
 * An event proven valid by ProvenUsageEvent.of without a second parse of its body: `input` is what
 * usageEventSchema outputs for the body of those parts (same values, same key order), and
 * `occurredAt` its occurred_at already read. Only `of` makes one, so an instance is a proof.
 */
export class ProvenUsageEvent {
  private constructor(
    readonly input: UsageEventInput,
    readonly occurredAt: Date,
  ) {}

  /**
   * The parts proven by the plain checks of plainUsageEvent (ids, model, variant, usage,
   * metadata), the timestamp by formatting its instant instead of parsing its text: a text that
   * is the toISOString() of a valid instant reads back as that instant. Undefined when only the
   * schema can tell: the caller then sends the body as any other.
   */
  static of(parts: UsageEventParts): ProvenUsageEvent | undefined {
    const { event_id, user_id, contributor_id, model, occurred_at, occurredAt, price_variant } = parts;
    if (!isPlainId(event_id) || !isPlainId(user_id) || !isPlainId(contributor_id) || !PLAIN_MODEL.test(model)) return undefined;
    if (price_variant !== undefined && !PRICE_VARIANT_PATTERN.test(price_variant)) return undefined;
    const ms = occurredAt.getTime();
    if (Number.isNaN(ms) || !ISO_MILLIS.test(occurred_at) || occurredAt.toISOString() !== occurred_at) return undefined;
    const year = occurredAt.getUTCFullYear();
    if (year < TIMESTAMP_YEAR_MIN || year > TIMESTAMP_YEAR_MAX) return undefined;
    const usage = plainUsage(parts.usage);
    const metadata = plainMetadata(parts.metadata);
    if (usage === undefined || metadata === undefined) return undefined;
    // In the schema's key order (as zod outputs them).
    const input: Record<string, unknown> = { event_id, user_id, contributor_id, model, occurred_at };
    if (price_variant !== undefined) input.price_variant = price_variant;
    input.usage = usage;
    input.metadata = metadata;
    return new ProvenUsageEvent(input as UsageEventInput, occurredAt);
  }
}

/** usageEventSchema.safeParse, with the plain bodies checked directly (same output, same errors). */
export function parseUsageEvent(raw: unknown): ZodSafeParseResult<UsageEventInput> {
  const plain = plainUsageEvent(raw);
  return plain === undefined ? usageEventSchema.safeParse(raw) : { success: true, data: plain };
}
