// The body of POST /v1/integrations/litellm as LiteLLM's generic_api logger writes it
// (litellm/integrations/generic_api/generic_api_callback.py `async_send_batch`): `json_array`
// (its default) is one JSON array of payloads, `single` one payload object per request, `ndjson`
// the payloads joined by "\n"; the Content-Type is application/json whatever the format. Pure.
import { isUtf8 } from 'node:buffer';
import { LONG_STRING_BYTES_MIN, skeletonOf } from './litellm-body-skeleton.js';
import { SelectiveJsonReader, type CompiledSelection } from './litellm-json-selection.js';

export { LONG_STRING_BYTES_MIN, skeletonOf };

/** An NDJSON line that is not JSON: that entry alone is rejected. */
export const UNREADABLE_LINE = Symbol('unreadable NDJSON line');

/**
 * The payloads of a body, in order, or null when it is neither JSON nor NDJSON (a 400). Long
 * string literals (the messages and the response text) are never decoded: they read as "".
 * With a selection (the fields the mapping reads), a JSON array or object builds only those
 * fields and reads past the rest (messages, choices...), its grammar still checked; without one,
 * or for NDJSON, JSON.parse builds the body with its long strings cut out (skeletonOf).
 */
export function parseLitellmBody(bytes: Buffer, selection?: CompiledSelection): unknown[] | null {
  if (!isUtf8(bytes)) return null;
  const start = firstNonBlank(bytes);
  if (start === -1) return [];
  const head = bytes[start];
  if (head !== 0x5b && head !== 0x7b) return null;
  if (selection !== undefined) {
    const read = SelectiveJsonReader.readDocument(bytes, LONG_STRING_BYTES_MIN, selection, head === 0x5b ? 'array-of' : 'object');
    if (read !== null) return head === 0x5b ? (read.value as unknown[]) : [read.value];
    if (head === 0x5b) return null;
    // Not one object: NDJSON (below).
  }
  const text = skeletonOf(bytes).toString('utf8');
  if (head === 0x5b) {
    const parsed = tryParse(text);
    return Array.isArray(parsed) ? parsed : null;
  }
  const whole = selection === undefined ? tryParse(text) : UNREADABLE_LINE;
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

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return UNREADABLE_LINE;
  }
}

function firstNonBlank(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i += 1) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
  }
  return -1;
}
