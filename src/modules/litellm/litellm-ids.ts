// The ids a LiteLLM payload or spend-log row brings, as the ledger stores them (api.md
// "Conventions" Ids, "LiteLLM push, never losing a call"). Pure.
import { createHash } from 'node:crypto';

export const LITELLM_EVENT_ID_PREFIX = 'litellm:';
const HASHED_EVENT_ID_PREFIX = 'litellm:sha256:';
/** api.md: an id is 1 to 256 characters. Counted in UTF-16 units, as the id schemas count them. */
export const EVENT_ID_LENGTH_MAX = 256;

/**
 * `"litellm:" + id`, or `"litellm:sha256:" + hex(sha256(utf8(id)))` when that is too long for an
 * event id (OpenAI Responses ids run past 200 characters): the same on the push and the pull.
 */
export function litellmEventId(id: string): string {
  const plain = LITELLM_EVENT_ID_PREFIX + id;
  return plain.length <= EVENT_ID_LENGTH_MAX ? plain : hashedLitellmEventId(createHash('sha256').update(id, 'utf8').digest('hex'));
}

/** The event id of an id known only by its sha256 (the pull hashes ids too long to fetch). */
export function hashedLitellmEventId(sha256Hex: string): string {
  return HASHED_EVENT_ID_PREFIX + sha256Hex;
}

// C0 controls, DEL and C1 controls (api.md: no NUL, C0 or C1).
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why this text cannot be an id or a stored name, or null when it can: Postgres refuses NUL in
 * text and lone surrogates in jsonb (either failed a whole body with a 500), and api.md refuses
 * every control character.
 */
export function unstorableTextReason(text: string): string | null {
  if (CONTROL_CHARACTER.test(text)) return 'contains a control character (NUL, C0 or C1)';
  if (LONE_SURROGATE.test(text)) return 'is not well-formed Unicode (a lone surrogate)';
  return null;
}
