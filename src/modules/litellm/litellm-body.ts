// The body of POST /v1/integrations/litellm as LiteLLM's generic_api logger writes it
// (litellm/integrations/generic_api/generic_api_callback.py `async_send_batch`): `json_array`
// (its default) is one JSON array of payloads, `single` one payload object per request, `ndjson`
// the payloads joined by "\n"; the Content-Type is application/json whatever the format. Pure.
import { isUtf8 } from 'node:buffer';

/** An NDJSON line that is not JSON: that entry alone is rejected. */
export const UNREADABLE_LINE = Symbol('unreadable NDJSON line');

/**
 * The payloads of a body, in order, or null when it is neither JSON nor NDJSON (a 400). The text
 * is decoded once and parsed once (per line for NDJSON); the caller drops it after mapping.
 */
export function parseLitellmBody(bytes: Buffer): unknown[] | null {
  if (!isUtf8(bytes)) return null;
  const text = bytes.toString('utf8');
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
