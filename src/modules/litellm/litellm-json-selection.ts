// A JSON reader that builds only the selected parts of a document and reads past the rest. Pure.
// The structure of the whole document (brackets, commas, colons, numbers, literals) is checked as
// JSON.parse checks it; the string literals of the parts read past are only delimited, never
// decoded or checked (nothing reads them), and what is built is decoded by JSON.parse's rules, a
// string literal of more than `longBytes` bytes reading as "" (as skeletonOf cuts it). Used by the
// LiteLLM push: a 5.5 KB payload is mostly messages and response choices that the mapping never
// reads, and building them with JSON.parse cost more than the rest of the request.
import { closingQuoteAt, skeletonOf } from './litellm-body-skeleton.js';

/** The parts of an object to build: a key maps to true (its whole value) or to a selection of its own keys. */
export interface Selection {
  readonly [key: string]: true | Selection;
}

/** A selection made ready for matching key bytes (no decoding of keys that are not selected). */
export interface CompiledSelection {
  /** Index: a key's length in bytes (an array, not a Map: one is looked up for every key of a payload). */
  readonly byLength: ReadonlyArray<ReadonlyArray<{ name: string; bytes: Buffer; next: CompiledSelection | true }> | undefined>;
  readonly byName: ReadonlyMap<string, CompiledSelection | true>;
  /** Longest raw key that may still name a selected key once decoded (each character as a \uXXXX escape). */
  readonly escapedKeyBytesMax: number;
}

/** The selection of these dotted paths ("response.usage"); a path that is a prefix of another selects the whole value. */
export function selectionOfPaths(paths: readonly string[]): Selection {
  const root: Record<string, true | Record<string, unknown>> = Object.create(null) as Record<string, true | Record<string, unknown>>;
  for (const path of paths) {
    let node: Record<string, true | Record<string, unknown>> = root;
    const keys = path.split('.');
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i]!;
      const existing = node[key];
      if (existing === true) break;
      if (i === keys.length - 1) {
        node[key] = true;
        break;
      }
      if (existing === undefined) node[key] = Object.create(null) as Record<string, unknown>;
      node = node[key] as Record<string, true | Record<string, unknown>>;
    }
  }
  return root as Selection;
}

export function compileSelection(selection: Selection): CompiledSelection {
  const lengths = new Map<number, Array<{ name: string; bytes: Buffer; next: CompiledSelection | true }>>();
  const byName = new Map<string, CompiledSelection | true>();
  for (const name of Object.keys(selection)) {
    const sub = selection[name]!;
    const next = sub === true ? true : compileSelection(sub);
    const bytes = Buffer.from(name, 'utf8');
    lengths.set(bytes.length, [...(lengths.get(bytes.length) ?? []), { name, bytes, next }]);
    byName.set(name, next);
  }
  const longest = Math.max(0, ...[...byName.keys()].map((name) => name.length));
  // Made whole at once: no hole (a holey array reads slower), as long as the longest key.
  const byLength = Array.from({ length: Math.max(-1, ...lengths.keys()) + 1 }, (_, length) => lengths.get(length));
  return { byLength, byName, escapedKeyBytesMax: longest * '\\uXXXX'.length };
}

/** Thrown inside the reader when the document is not JSON; never leaves this module. */
class NotJson extends Error {}
const NOT_JSON = new NotJson('not JSON');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Bytes of a string scanned one by one before its closing quote is searched natively. */
const SCAN_BYTES_BEFORE_JUMP = 64;

function growStack(stack: Uint8Array): Uint8Array {
  const grown = new Uint8Array(stack.length * 2);
  grown.set(stack);
  return grown;
}

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');
const isDigit = (c: number | undefined) => c !== undefined && c >= DIGIT_0 && c <= DIGIT_9;
const isBlank = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Reads one JSON document of `bytes` (already known to be UTF-8). Objects where a selection is
 * given keep only the selected keys; an array where an object was selected is read as [] (the
 * selected keys cannot be in it); whole values are parsed by JSON.parse of their (skeleton) text.
 */
export class SelectiveJsonReader {
  private at = 0;
  /** Of the last string literal scanned: its content bytes, and whether it is plain (printable ASCII, no escape: decoded as it is). */
  private stringStart = 0;
  private stringEnd = 0;
  private stringPlain = true;
  /** The containers skipValue is inside, by their opening byte (reused: it never recurses). */
  private open: Uint8Array = new Uint8Array(64);

  constructor(
    private readonly bytes: Buffer,
    private readonly longBytes: number,
  ) {}

  /**
   * The document when it is exactly one JSON value (blanks around it allowed), else null.
   * 'array-of': an array, `selection` applying to each element; 'object': one object.
   */
  static readDocument(bytes: Buffer, longBytes: number, selection: CompiledSelection, topLevel: 'array-of' | 'object'): { value: unknown } | null {
    const reader = new SelectiveJsonReader(bytes, longBytes);
    try {
      reader.skipBlanks();
      const value = topLevel === 'array-of' ? reader.readArrayOf(selection) : reader.readSelected(selection);
      reader.skipBlanks();
      return reader.at === bytes.length ? { value } : null;
    } catch (error) {
      if (error instanceof NotJson) return null;
      throw error;
    }
  }

  /**
   * The elements of a JSON array that is the whole of `bytes` (blanks around it allowed), one at a
   * time, each built as readDocument builds it, in one pass: NOT_READ for an element whose read
   * fields are not JSON text (its structure is still checked). Throws NOT_JSON_BODY, while
   * iterated, when the body is not one JSON array: whoever iterates writes nothing before the end.
   */
  static *readArrayElements(bytes: Buffer, longBytes: number, selection: CompiledSelection): Generator<unknown> {
    const reader = new SelectiveJsonReader(bytes, longBytes);
    try {
      reader.skipBlanks();
      if (bytes[reader.at] !== OPEN_ARRAY) throw NOT_JSON;
      reader.at += 1;
      if (!reader.closesAtOnce(CLOSE_ARRAY)) {
        for (;;) {
          const start = reader.at;
          let value: unknown;
          try {
            value = reader.readSelected(selection);
          } catch (error) {
            if (!(error instanceof NotJson)) throw error;
            // Broken structure throws again here; a read field that is not JSON text does not.
            reader.at = start;
            reader.skipValue();
            value = NOT_READ;
          }
          yield value;
          if (reader.closesAfterMember(CLOSE_ARRAY)) break;
        }
      }
      reader.skipBlanks();
      if (reader.at !== bytes.length) throw NOT_JSON;
    } catch (error) {
      throw error instanceof NotJson ? NOT_JSON_BODY : error;
    }
  }

  /** Whether `bytes` is exactly one JSON value (blanks around it allowed), its grammar checked. */
  static isOneValue(bytes: Buffer): boolean {
    const reader = new SelectiveJsonReader(bytes, Number.MAX_SAFE_INTEGER);
    try {
      reader.skipBlanks();
      if (reader.at === bytes.length) return false;
      reader.skipValue();
      reader.skipBlanks();
      return reader.at === bytes.length;
    } catch (error) {
      if (error instanceof NotJson) return false;
      throw error;
    }
  }

  private readArrayOf(element: CompiledSelection): unknown[] {
    const { bytes } = this;
    if (bytes[this.at] !== OPEN_ARRAY) throw NOT_JSON;
    this.at += 1;
    const values: unknown[] = [];
    if (this.closesAtOnce(CLOSE_ARRAY)) return values;
    for (;;) {
      values.push(this.readSelected(element));
      if (this.closesAfterMember(CLOSE_ARRAY)) return values;
    }
  }

  /** A value where an object with these keys is expected: an object keeps them only; other values are read whole. */
  private readSelected(selection: CompiledSelection): unknown {
    const c = this.bytes[this.at];
    if (c === OPEN_OBJECT) return this.readObject(selection);
    const start = this.at;
    this.skipValue();
    return c === OPEN_ARRAY ? [] : this.parseWhole(start, this.at);
  }

  private readObject(selection: CompiledSelection): Record<string, unknown> {
    this.at += 1;
    const object: Record<string, unknown> = {};
    if (this.closesAtOnce(CLOSE_OBJECT)) return object;
    for (;;) {
      this.skipKey();
      // skipKey leaves the key's bounds (stringStart/stringEnd/stringPlain) for matchKey.
      const match = this.matchKey(selection);
      if (match === null) {
        this.skipValue();
      } else {
        const start = this.at;
        let value: unknown;
        if (match.next === true) {
          this.skipValue();
          value = this.parseWhole(start, this.at);
        } else {
          value = this.readSelected(match.next);
        }
        // As JSON.parse: the last of duplicate keys wins, and "__proto__" is an own property.
        if (match.name === '__proto__') Object.defineProperty(object, match.name, { value, enumerable: true, writable: true, configurable: true });
        else object[match.name] = value;
      }
      if (this.closesAfterMember(CLOSE_OBJECT)) return object;
    }
  }

  /** Just inside `[` or `{`: past the blanks, and past `close` (true) when the container is empty. */
  private closesAtOnce(close: number): boolean {
    this.skipBlanks();
    if (this.bytes[this.at] !== close) return false;
    this.at += 1;
    return true;
  }

  /** After an element or member: past `close` (true), or past the comma and the blanks before the next one (false). */
  private closesAfterMember(close: number): boolean {
    this.skipBlanks();
    const c = this.bytes[this.at];
    this.at += 1;
    if (c === close) return true;
    if (c !== COMMA) throw NOT_JSON;
    this.skipBlanks();
    return false;
  }

  /** The selected key the string just scanned names: compared byte by byte, decoded only when it has escapes. */
  private matchKey(selection: CompiledSelection): { name: string; next: CompiledSelection | true } | null {
    const { bytes, stringStart } = this;
    const length = this.stringEnd - stringStart;
    if (!this.stringPlain) {
      // No selected key is long (a long one reads as ""), and one that is not JSON names nothing.
      if (length > selection.escapedKeyBytesMax) return null;
      const name = tryJsonParse(bytes.toString('utf8', stringStart - 1, this.stringEnd + 1));
      const next = typeof name === 'string' ? selection.byName.get(name) : undefined;
      return next === undefined ? null : { name: name as string, next };
    }
    const candidates = length < selection.byLength.length ? selection.byLength[length] : undefined;
    if (candidates === undefined) return null;
    for (const candidate of candidates) {
      let i = 0;
      while (i < length && bytes[stringStart + i] === candidate.bytes[i]) i += 1;
      if (i === length) return candidate;
    }
    return null;
  }

  /** A whole value just read past, by JSON.parse's rules; long strings in it read as "" (never decoded). */
  private parseWhole(start: number, end: number): unknown {
    const { bytes } = this;
    const c = bytes[start];
    if (c === QUOTE) {
      if (this.stringEnd - this.stringStart > this.longBytes) return '';
      if (this.stringPlain) return bytes.toString('latin1', this.stringStart, this.stringEnd);
    } else if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) {
      // A number or a literal, its grammar already checked.
      if (c === 0x74) return true;
      if (c === 0x66) return false;
      if (c === 0x6e) return null;
      return Number(bytes.toString('latin1', start, end));
    }
    // Only a value longer than longBytes can hold a long string.
    const text = end - start > this.longBytes ? skeletonOf(bytes.subarray(start, end), this.longBytes).toString('utf8') : bytes.toString('utf8', start, end);
    const value = tryJsonParse(text);
    if (value === NOT_PARSED) throw NOT_JSON;
    return value;
  }

  private skipBlanks(): void {
    const { bytes } = this;
    let at = this.at;
    while (isBlank(bytes[at])) at += 1;
    this.at = at;
  }

  /**
   * Reads past one value, checking its grammar; iterative, so any nesting depth is fine. The unread
   * parts are most of a payload: read on a local position by the module's functions below, stored
   * once. A string alone is scanned by skipString, which keeps its bounds for parseWhole.
   */
  private skipValue(): void {
    const { bytes } = this;
    if (bytes[this.at] === QUOTE) return this.skipString();
    let open = this.open;
    let depth = 0;
    let at = this.at;
    for (;;) {
      // A value starts here.
      let c = bytes[at];
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        at = blanksEnd(bytes, at + 1);
        if (bytes[at] === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
          at += 1;
        } else {
          if (depth === open.length) open = this.open = growStack(open);
          open[depth] = c;
          depth += 1;
          if (c === OPEN_OBJECT) at = keyEnd(bytes, at);
          continue;
        }
      } else if (c === QUOTE) {
        at = stringEnd(bytes, at);
      } else {
        at = scalarEnd(bytes, at);
      }
      // After a value: close what ends here, or move to the next element or member.
      for (;;) {
        if (depth === 0) {
          this.at = at;
          return;
        }
        at = blanksEnd(bytes, at);
        c = bytes[at];
        at += 1;
        const container = open[depth - 1];
        if (c === COMMA) {
          at = blanksEnd(bytes, at);
          if (container === OPEN_OBJECT) at = keyEnd(bytes, at);
          break;
        }
        if (c !== (container === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) throw NOT_JSON;
        depth -= 1;
      }
    }
  }

  /** `"key" :` and the blanks after it. */
  private skipKey(): void {
    if (this.bytes[this.at] !== QUOTE) throw NOT_JSON;
    this.skipString();
    this.skipBlanks();
    if (this.bytes[this.at] !== COLON) throw NOT_JSON;
    this.at += 1;
    this.skipBlanks();
  }

  /**
   * Reads past a string literal (at its opening quote): it ends at the first quote after an even
   * run of backslashes (as skeletonOf finds it). Nothing is decoded or checked here. Its first
   * bytes are scanned here (short keys and ids end there), the end of a longer one found natively.
   */
  private skipString(): void {
    const { bytes } = this;
    const start = this.at + 1;
    let at = start;
    // Printable ASCII without escapes: decoded as it is.
    let plain = true;
    let end = -1;
    const scanUntil = Math.min(bytes.length, start + SCAN_BYTES_BEFORE_JUMP);
    while (at < scanUntil) {
      const c = bytes[at]!;
      if (c === QUOTE) {
        end = at;
        break;
      }
      if (c === BACKSLASH) break;
      if (c < 0x20 || c >= 0x80) plain = false;
      at += 1;
    }
    if (end === -1) {
      plain = false;
      // `at` is never inside an escape: the scan stopped before a backslash or at a plain byte.
      end = closingQuoteAt(bytes, at);
      if (end === -1) throw NOT_JSON;
    }
    this.stringStart = start;
    this.stringEnd = end;
    this.stringPlain = plain;
    this.at = end + 1;
  }
}

function blanksEnd(bytes: Buffer, at: number): number {
  while (isBlank(bytes[at])) at += 1;
  return at;
}

/** Past the string literal at `at` (its opening quote), delimited as skipString delimits it; nothing decoded. */
function stringEnd(bytes: Buffer, at: number): number {
  let i = at + 1;
  const scanUntil = Math.min(bytes.length, i + SCAN_BYTES_BEFORE_JUMP);
  while (i < scanUntil) {
    const c = bytes[i];
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) break;
    i += 1;
  }
  // `i` is never inside an escape: the scan stopped before a backslash or at a plain byte.
  const end = closingQuoteAt(bytes, i);
  if (end === -1) throw NOT_JSON;
  return end + 1;
}

/** Past `"key" :` at `at` and the blanks after it. */
function keyEnd(bytes: Buffer, at: number): number {
  if (bytes[at] !== QUOTE) throw NOT_JSON;
  at = blanksEnd(bytes, stringEnd(bytes, at));
  if (bytes[at] !== COLON) throw NOT_JSON;
  return blanksEnd(bytes, at + 1);
}

/** Past the number or literal at `at`, its grammar checked. */
function scalarEnd(bytes: Buffer, at: number): number {
  const c = bytes[at];
  if (c === 0x74) return literalEnd(bytes, at, TRUE);
  if (c === 0x66) return literalEnd(bytes, at, FALSE);
  if (c === 0x6e) return literalEnd(bytes, at, NULL);
  // -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
  if (c === MINUS) at += 1;
  if (bytes[at] === DIGIT_0) at += 1;
  else if (isDigit(bytes[at])) while (isDigit(bytes[at])) at += 1;
  else throw NOT_JSON;
  if (bytes[at] === DOT) {
    at += 1;
    if (!isDigit(bytes[at])) throw NOT_JSON;
    while (isDigit(bytes[at])) at += 1;
  }
  const e = bytes[at];
  if (e === 0x65 || e === 0x45) {
    at += 1;
    if (bytes[at] === PLUS || bytes[at] === MINUS) at += 1;
    if (!isDigit(bytes[at])) throw NOT_JSON;
    while (isDigit(bytes[at])) at += 1;
  }
  return at;
}

function literalEnd(bytes: Buffer, at: number, word: Uint8Array): number {
  for (let i = 0; i < word.length; i += 1) if (bytes[at + i] !== word[i]) throw NOT_JSON;
  return at + word.length;
}

const NOT_PARSED = Symbol('not parsed');
/** readArrayElements' element whose read fields are not JSON text. */
export const NOT_READ = Symbol('not read');
/** Thrown by readArrayElements when the body is not one JSON array. */
export class NotJsonBody extends Error {}
const NOT_JSON_BODY = new NotJsonBody('not one JSON array');

function tryJsonParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_PARSED;
  }
}
