// The body of POST /v1/integrations/litellm as LiteLLM's generic_api logger writes it
// (litellm/integrations/generic_api/generic_api_callback.py `async_send_batch`): `json_array`
// (its default) is one JSON array of payloads, `single` one payload object per request, `ndjson`
// the payloads joined by "\n"; the Content-Type is application/json whatever the format. Pure.
//
// Bounded memory (api.md "LiteLLM push, never losing a call"): the body's bytes are located first
// (its grammar checked to the end, no value built: a body that is not JSON changes nothing), then
// its payloads are built a group at a time, only the fields the mapping reads, so the heap holds
// one group whatever the size or the count of the payloads.
import { isUtf8 } from 'node:buffer';
import { LONG_STRING_BYTES_MIN, skeletonOf } from './litellm-body-skeleton.js';
import { NOT_READ, SelectiveJsonReader, type CompiledSelection } from './litellm-json-selection.js';

export { LONG_STRING_BYTES_MIN, skeletonOf };

/** An NDJSON line that is not JSON, or a payload whose read fields are not JSON text: that entry alone is rejected. */
export const UNREADABLE_LINE = Symbol('unreadable payload');

const NEWLINE = 0x0a;

/** Where each payload of a body is: array elements by offset, NDJSON lines by their bounds. */
export interface LitellmBody {
  readonly count: number;
  /** The payloads in order, `groupSize` at a time (the last group may be smaller). */
  groups(groupSize: number): Generator<unknown[]>;
}

/**
 * The payloads of a body, located; null when it is neither JSON nor NDJSON (a 400); 'too_many'
 * past `payloadsMax` (a 413). Long string literals (the messages and the response text) are
 * never decoded: they read as "". A payload is built with the `selection`'s fields only (the
 * fields the mapping reads), its grammar still checked.
 */
export function locateLitellmBody(bytes: Buffer, selection: CompiledSelection, payloadsMax: number): LitellmBody | 'too_many' | null {
  const start = firstNonBlank(bytes, 0, bytes.length);
  if (start === -1) return { count: 0, *groups() {} };
  const head = bytes[start];
  if (head === 0x5b) {
    if (!isUtf8(bytes)) return null;
    const offsets = SelectiveJsonReader.locateArrayElements(bytes, payloadsMax);
    if (offsets === null || offsets === 'too_many') return offsets;
    return located(offsets.length, (i) => SelectiveJsonReader.readSelectedAt(bytes, LONG_STRING_BYTES_MIN, offsets[i]!, selection));
  }
  if (head !== 0x7b) return null;
  if (isUtf8(bytes) && SelectiveJsonReader.isOneValue(bytes)) {
    return located(1, () => SelectiveJsonReader.readSelectedAt(bytes, LONG_STRING_BYTES_MIN, start, selection));
  }
  return locateNdjson(bytes, selection, payloadsMax);
}

/**
 * Several objects, one a line. Lines are split on the raw newline byte before anything else (a
 * JSON text never holds one inside a string), so a torn line is its own rejected entry and never
 * reaches into the next; each line is checked as UTF-8 on its own.
 */
function locateNdjson(bytes: Buffer, selection: CompiledSelection, payloadsMax: number): LitellmBody | 'too_many' | null {
  const starts: number[] = [];
  const ends: number[] = [];
  let readable = 0;
  let from = 0;
  while (from < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, from);
    const end = newline === -1 ? bytes.length : newline;
    if (firstNonBlank(bytes, from, end) !== -1) {
      if (starts.length === payloadsMax) return 'too_many';
      const line = bytes.subarray(from, end);
      const ok = isUtf8(line) && SelectiveJsonReader.isOneValue(line);
      if (ok) readable += 1;
      // A line that is not JSON is kept as a negative start: its entry is UNREADABLE_LINE.
      starts.push(ok ? from : -1);
      ends.push(end);
    }
    from = end + 1;
  }
  if (readable === 0) return null;
  return located(starts.length, (i) => {
    const at = starts[i]!;
    if (at < 0) return UNREADABLE_LINE;
    const line = bytes.subarray(at, ends[i]);
    return SelectiveJsonReader.readSelectedAt(line, LONG_STRING_BYTES_MIN, firstNonBlank(line, 0, line.length), selection);
  });
}

function located(count: number, read: (index: number) => unknown): LitellmBody {
  return {
    count,
    *groups(groupSize: number) {
      for (let from = 0; from < count; from += groupSize) {
        const group: unknown[] = [];
        for (let i = from; i < Math.min(count, from + groupSize); i += 1) {
          const value = read(i);
          group.push(value === NOT_READ ? UNREADABLE_LINE : value);
        }
        yield group;
      }
    },
  };
}

/**
 * Every payload of a body at once (tests, small bodies): null when it is neither JSON nor NDJSON.
 * Without a selection each payload is built whole by JSON.parse (long strings cut out first).
 */
export function parseLitellmBody(bytes: Buffer, selection?: CompiledSelection, payloadsMax = Number.MAX_SAFE_INTEGER): unknown[] | null {
  const body = locateLitellmBody(bytes, selection ?? WHOLE, payloadsMax);
  if (body === null || body === 'too_many') return null;
  if (selection !== undefined) return [...body.groups(Math.max(1, body.count))].flat();
  const head = bytes[firstNonBlank(bytes, 0, bytes.length)];
  if (head === 0x5b) return wholeJson(bytes) as unknown[];
  if (body.count <= 1 && SelectiveJsonReader.isOneValue(bytes)) return body.count === 0 ? [] : [wholeJson(bytes)];
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const value = wholeJson(Buffer.from(line, 'utf8'));
      return value === NOT_READ ? UNREADABLE_LINE : value;
    });
}

const WHOLE: CompiledSelection = { byLength: new Map(), byName: new Map(), escapedKeyBytesMax: 0 };

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
