// The body of POST /v1/integrations/litellm as LiteLLM's generic_api logger writes it
// (litellm/integrations/generic_api/generic_api_callback.py `async_send_batch`): `json_array`
// (its default) is one JSON array of payloads, `single` one payload object per request, `ndjson`
// the payloads joined by "\n"; the Content-Type is application/json whatever the format. Pure.
import { isUtf8 } from 'node:buffer';

/** An NDJSON line that is not JSON: that entry alone is rejected. */
export const UNREADABLE_LINE = Symbol('unreadable NDJSON line');

/**
 * String literals longer than this are read past, never decoded: only prompts and responses are
 * that long (ids, models and user ids the ledger reads are at most 200 characters).
 */
export const LONG_STRING_BYTES_MIN = 1024;

/**
 * The payloads of a body, in order, or null when it is neither JSON nor NDJSON (a 400). Long
 * string literals (the messages and the response text) are cut out of the bytes before anything
 * is decoded, so JSON.parse builds only the small skeleton the mapping reads: the texts are never
 * copied into JavaScript strings, and a 500-payload batch costs what its ids and counts cost.
 */
export function parseLitellmBody(bytes: Buffer): unknown[] | null {
  if (!isUtf8(bytes)) return null;
  const text = skeletonOf(bytes).toString('utf8');
  const start = firstNonBlank(text);
  if (start === -1) return [];
  const head = text[start];
  if (head === '[') {
    const parsed = tryParse(text);
    return Array.isArray(parsed) ? parsed : null;
  }
  if (head !== '{') return null;
  const whole = tryParse(text);
  if (whole !== UNREADABLE_LINE) return [whole];
  // Several objects, one a line: NDJSON. A bad line is its own rejected entry.
  const entries: unknown[] = [];
  let readable = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const value = tryParse(line);
    if (value !== UNREADABLE_LINE) readable += 1;
    entries.push(value);
  }
  return readable === 0 ? null : entries;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The body with every string literal of more than LONG_STRING_BYTES_MIN bytes replaced by "".
 * Outside a string a quote always opens one (JSON has no other use for it), and inside one a
 * quote closes it unless an odd run of backslashes precedes it; Buffer.indexOf jumps from quote
 * to quote natively. An unterminated string leaves the body as it is (JSON.parse then refuses it).
 * Slices are views: only the kept parts are copied, once.
 */
export function skeletonOf(bytes: Buffer, longBytes = LONG_STRING_BYTES_MIN): Buffer {
  const kept: Buffer[] = [];
  let from = 0;
  let at = bytes.indexOf(QUOTE);
  while (at !== -1) {
    let end = bytes.indexOf(QUOTE, at + 1);
    for (;;) {
      if (end === -1) return bytes;
      let backslashes = 0;
      while (bytes[end - 1 - backslashes] === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) break;
      end = bytes.indexOf(QUOTE, end + 1);
    }
    if (end - at - 1 > longBytes) {
      kept.push(bytes.subarray(from, at + 1));
      from = end;
    }
    at = bytes.indexOf(QUOTE, end + 1);
  }
  if (kept.length === 0) return bytes;
  kept.push(bytes.subarray(from));
  return Buffer.concat(kept);
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return UNREADABLE_LINE;
  }
}

function firstNonBlank(text: string): number {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
  }
  return -1;
}
