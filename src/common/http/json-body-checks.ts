// Checks of JSON request bodies that no schema should have to repeat, for every JSON route:
// nesting depth, and text Postgres cannot store. Pure.
import type { FieldIssue } from '../errors/domain-error.js';

/** Deepest nesting a JSON body may have: far above any request of this API, far below the stack. */
export const JSON_DEPTH_MAX = 64;
const FIELD_NAME_LENGTH_MAX = 200;
// A UTF-16 code unit of a surrogate pair without its other half (JSON allows it as "\ud800").
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text Postgres can store: no NUL (refused in text columns), no lone surrogate (refused in jsonb). */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

const BACKSLASH = 0x5c;
const HEX_LOWER_CASE = 0x20;

/** `\u0000` or `\uD800`..`\uDFFF` has its four hex digits at `at`. */
function isSuspectEscape(bytes: Uint8Array, at: number): boolean {
  const h0 = (bytes[at] ?? 0) | HEX_LOWER_CASE;
  const h1 = (bytes[at + 1] ?? 0) | HEX_LOWER_CASE;
  if (h0 === 0x30) return h1 === 0x30 && bytes[at + 2] === 0x30 && bytes[at + 3] === 0x30; // 0000
  return h0 === 0x64 && ((h1 >= 0x38 && h1 <= 0x39) || (h1 >= 0x61 && h1 <= 0x66)); // d8..df
}

/**
 * May a string of this raw JSON body hold NUL or a lone surrogate? In valid UTF-8 JSON both can
 * only be written as \u escapes (raw control characters are not JSON), so a body without
 * `\u0000` or `\uD800`..`\uDFFF` (surrogate pairs included) needs no walk at all. Native
 * indexOf hops, so a 1000-event batch without such escapes costs microseconds.
 */
export function mayHoldUnstorableText(bytes: Buffer): boolean {
  for (let at = bytes.indexOf('\\u'); at !== -1; at = bytes.indexOf('\\u', at + 2)) {
    let backslashes = 1;
    while (at - backslashes >= 0 && bytes[at - backslashes] === BACKSLASH) backslashes += 1;
    // An odd run of backslashes ending here is an escape; an even one is an escaped backslash.
    if (backslashes % 2 === 1 && isSuspectEscape(bytes, at + 2)) return true;
  }
  return false;
}

/**
 * The first string or key of a parsed body Postgres cannot store (the write failed with a 500),
 * or a container nested deeper than JSON_DEPTH_MAX (recursive code such as JSON.stringify
 * overflows the stack near 10,000 levels), with the field it is in. Iterative. `text: false`
 * checks the nesting only (for a batch, whose entries check their own text).
 */
export function jsonBodyProblem(body: unknown, options: { text: boolean } = { text: true }): FieldIssue | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  const fieldName = (path: string) => (path || '(body)').slice(0, FIELD_NAME_LENGTH_MAX);
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (options.text && !isStorableText(value)) return { field: fieldName(path), message: 'must be valid Unicode text without NUL characters' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= JSON_DEPTH_MAX) return { field: fieldName(path), message: `nested deeper than ${JSON_DEPTH_MAX} levels` };
    for (const [key, child] of Object.entries(value)) {
      if (options.text && !isStorableText(key)) return { field: fieldName(path), message: 'field names must be valid Unicode text without NUL characters' };
      stack.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}

/** A JSON number's value as (digits without leading or trailing zeros, power of ten), or 0. */
function decimalValue(text: string): string {
  const match = /^-?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const [, whole = '', fraction = '', exponent = '0'] = match;
  let digits = (whole + fraction).replace(/^0+/, '');
  let power = BigInt(exponent) - BigInt(fraction.length);
  const trimmed = digits.replace(/0+$/, '');
  power += BigInt(digits.length - trimmed.length);
  digits = trimmed;
  if (digits === '') return '0';
  return `${text.startsWith('-') ? '-' : ''}${digits}e${power}`;
}

/** Does JSON.parse keep this number literal's value exactly (as the shortest text of its double says)? */
export function isExactJsonNumber(literal: string): boolean {
  // At most 15 significant digits and no exponent: always kept (a double holds 15 decimal digits).
  if (literal.length <= 15 && !/[eE]/.test(literal)) return true;
  const parsed = Number(literal);
  return Number.isFinite(parsed) && decimalValue(String(parsed)) === decimalValue(literal);
}

// JSON strings (removed before looking for numbers: their digits are not numbers).
const JSON_STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/g;
// A number literal that may be inexact: 16+ characters of digits, or with an exponent.
const LONG_OR_EXPONENT_NUMBER = /-?\d[\d.]{15,}(?:[eE][+-]?\d+)?|-?\d[\d.]*[eE][+-]?\d+/g;
// Only a number of 16+ characters or with an exponent can be inexact, and a number follows ':', ','
// or '[': most bodies have none (digits and hex inside strings rarely follow one), so no scan.
const MAY_HOLD_INEXACT_NUMBER = /[:,[]\s*-?(?:[\d.]{16}|\d+(?:\.\d+)?[eE])/;

/**
 * The first number of a JSON text whose value JSON.parse does not keep (9007199254740993,
 * 100.00000000000000001, 1e400), or null. Such a payload would be stored and hashed as a
 * different number than was sent: two payloads differing only there replayed as 200 instead of
 * 409. Call on text that JSON.parse accepted.
 */
export function inexactJsonNumber(text: string): string | null {
  if (!MAY_HOLD_INEXACT_NUMBER.test(text)) return null;
  const outsideStrings = text.replace(JSON_STRING, '""');
  for (const match of outsideStrings.matchAll(LONG_OR_EXPONENT_NUMBER)) {
    if (!isExactJsonNumber(match[0])) return match[0];
  }
  return null;
}
