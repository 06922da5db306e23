// The body of POST /v1/integrations/litellm as LiteLLM's generic_api logger writes it
// (litellm/integrations/generic_api/generic_api_callback.py `async_send_batch`): `json_array`
// (its default) is one JSON array of payloads, `single` one payload object per request, `ndjson`
// the payloads joined by "\n"; the Content-Type is application/json whatever the format. Pure.
//
// Bounded memory (api.md "LiteLLM push, never losing a call"): payloads are built one at a time,
// only the fields the mapping reads, and handed over as they are built (the push keeps only the
// small plan of each); its caller writes nothing before the last one was read, so a body that
// turns out not to be JSON, or to hold too many payloads, changes nothing.
import { isUtf8 } from 'node:buffer';
import { LONG_STRING_BYTES_MIN, skeletonOf } from './litellm-body-skeleton.js';
import { NOT_READ, NotJsonBody, SelectiveJsonReader, type CompiledSelection } from './litellm-json-selection.js';

export { LONG_STRING_BYTES_MIN, skeletonOf };

/** An NDJSON line that is not JSON, or a payload whose read fields are not JSON text: that entry alone is rejected. */
export const UNREADABLE_LINE = Symbol('unreadable payload');

/** Thrown while the payloads are iterated: the body is neither JSON nor NDJSON (400), or holds more than the cap (413). */
export class LitellmBodyRefused extends Error {
  constructor(readonly why: 'not_json' | 'too_many') {
    super(why === 'not_json' ? 'request body is neither JSON nor NDJSON' : 'request body holds too many payloads');
  }
}

const NEWLINE = 0x0a;

/**
 * The payloads of a body in order, built as they are iterated (long string literals, the messages
 * and the response text, are never decoded: they read as ""; only the `selection`'s fields are
 * built). Iterating throws LitellmBodyRefused when the body is neither JSON nor NDJSON, or as soon
 * as it passes `payloadsMax` payloads.
 */
export function* litellmBodyPayloads(bytes: Buffer, selection: CompiledSelection, payloadsMax: number): Generator<unknown> {
  const start = firstNonBlank(bytes, 0, bytes.length);
  if (start === -1) return;
  const head = bytes[start];
  if (head === 0x5b) {
    if (!isUtf8(bytes)) throw new LitellmBodyRefused('not_json');
    let count = 0;
    try {
      for (const value of SelectiveJsonReader.readArrayElements(bytes, LONG_STRING_BYTES_MIN, selection)) {
        count += 1;
        if (count > payloadsMax) throw new LitellmBodyRefused('too_many');
        yield value === NOT_READ ? UNREADABLE_LINE : value;
      }
    } catch (error) {
      throw error instanceof NotJsonBody ? new LitellmBodyRefused('not_json') : error;
    }
    return;
  }
  if (head !== 0x7b) throw new LitellmBodyRefused('not_json');
  const single = isUtf8(bytes) ? SelectiveJsonReader.readDocument(bytes, LONG_STRING_BYTES_MIN, selection, 'object') : null;
  if (single !== null) {
    yield single.value;
    return;
  }
  yield* ndjsonPayloads(bytes, selection, payloadsMax);
}

/**
 * Several objects, one a line. Lines are split on the raw newline byte before anything else (a
 * JSON text never holds one inside a string), so a torn line is its own rejected entry and never
 * reaches into the next; each line is checked as UTF-8 on its own. No readable line: not NDJSON.
 */
function* ndjsonPayloads(bytes: Buffer, selection: CompiledSelection, payloadsMax: number): Generator<unknown> {
  let count = 0;
  let readable = 0;
  let from = 0;
  while (from < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, from);
    const end = newline === -1 ? bytes.length : newline;
    const at = firstNonBlank(bytes, from, end);
    if (at !== -1) {
      count += 1;
      if (count > payloadsMax) throw new LitellmBodyRefused('too_many');
      const line = bytes.subarray(at, end);
      const read = isUtf8(line) ? SelectiveJsonReader.readDocument(line, LONG_STRING_BYTES_MIN, selection, 'object') : null;
      if (read !== null) readable += 1;
      yield read === null ? UNREADABLE_LINE : read.value;
    }
    from = end + 1;
  }
  if (readable === 0) throw new LitellmBodyRefused('not_json');
}

/**
 * Every payload of a body at once (tests): null when it is neither JSON nor NDJSON, or past
 * `payloadsMax`. Without a selection each payload is built whole by JSON.parse (long strings cut out first).
 */
export function parseLitellmBody(bytes: Buffer, selection?: CompiledSelection, payloadsMax = Number.MAX_SAFE_INTEGER): unknown[] | null {
  let values: unknown[];
  try {
    values = [...litellmBodyPayloads(bytes, selection ?? WHOLE, payloadsMax)];
  } catch (error) {
    if (error instanceof LitellmBodyRefused) return null;
    throw error;
  }
  if (selection !== undefined) return values;
  const head = bytes[firstNonBlank(bytes, 0, bytes.length)];
  if (head === 0x5b) return wholeJson(bytes) as unknown[];
  if (values.length <= 1 && SelectiveJsonReader.isOneValue(bytes)) return values.length === 0 ? [] : [wholeJson(bytes)];
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const value = wholeJson(Buffer.from(line, 'utf8'));
      return value === NOT_READ ? UNREADABLE_LINE : value;
    });
}

const WHOLE: CompiledSelection = { byLength: [], byName: new Map(), escapedKeyBytesMax: 0 };

function wholeJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(skeletonOf(bytes).toString('utf8')) as unknown;
  } catch {
    return NOT_READ;
  }
}

function firstNonBlank(bytes: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i += 1) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
  }
  return -1;
}
