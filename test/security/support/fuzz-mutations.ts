// Building blocks of the bad-input fuzz: the request shape, mutations of a JSON body (field values,
// missing and unknown fields, duplicate keys, the whole body) and of the bytes on the wire
// (truncation, invalid UTF-8, content types, literals JSON cannot hold), and path encoding.
import fc from 'fast-check';
import { badValue, deepArray, deepObject, INVALID_UTF8_SEQUENCES, RawJson, serialize, WRONG_CONTENT_TYPES, type FieldKind } from './fuzz-values.js';

export type Caller = 'admin' | 'gateway';

export interface FuzzRequest {
  route: string;
  /** What was done to the valid request, for reports. */
  mutation: string;
  method: 'POST' | 'PUT' | 'DELETE';
  /** Already URL-encoded. */
  path: string;
  caller: Caller;
  contentType: string | null;
  body: Buffer | null;
  /** Replaying an accepted request must not change state again (false: api-keys, by design). */
  idempotent: boolean;
}

/** The object holding the dotted path's last key (null when a step on the way is not an object). */
function parentOf(target: unknown, dotted: string): { node: Record<string, unknown>; key: string } | null {
  const keys = dotted.split('.');
  let node = target as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!next || typeof next !== 'object') return null;
    node = next as Record<string, unknown>;
  }
  return { node, key: keys.at(-1)! };
}

function setPath(target: unknown, dotted: string, value: unknown): void {
  const parent = parentOf(target, dotted);
  if (parent) parent.node[parent.key] = value;
}

function deletePath(target: unknown, dotted: string): void {
  const parent = parentOf(target, dotted);
  if (parent) delete parent.node[parent.key];
}

export const describeValue = (value: unknown): string => {
  const text = value instanceof RawJson ? value.text : typeof value === 'string' ? JSON.stringify(value) : serialize(value);
  return text.length > 40 ? `${text.slice(0, 30)}...(${text.length} chars)` : text;
};

type BodyMutation = { label: string; apply: (body: Record<string, unknown>) => Record<string, unknown> | RawJson };

export function fieldMutations(fields: Record<string, FieldKind>): fc.Arbitrary<BodyMutation> {
  const names = Object.keys(fields);
  const setOne = fc
    .constantFrom(...names)
    .chain((field) => badValue(fields[field]!).map((value) => ({ field, value })))
    .map(({ field, value }) => ({
      label: `${field} = ${describeValue(value)}`,
      apply: (body: Record<string, unknown>) => {
        setPath(body, field, value);
        return body;
      },
    }));
  const removeOne = fc.constantFrom(...names).map((field) => ({
    label: `without ${field}`,
    apply: (body: Record<string, unknown>) => {
      deletePath(body, field);
      return body;
    },
  }));
  const unknownField = fc
    .tuple(fc.constantFrom('extra', '__proto__', 'constructor', 'isAdmin', 'role', 'contributor_id', ''), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant({ polluted: true })))
    .map(([key, value]) => ({
      label: `extra field ${JSON.stringify(key)}`,
      apply: (body: Record<string, unknown>) => new RawJson(serialize(body).replace(/}$/, `,${JSON.stringify(key)}:${serialize(value)}}`)),
    }));
  const several = fc.array(setOne, { minLength: 2, maxLength: 4 }).map((list) => ({
    label: list.map((m) => m.label).join('; '),
    apply: (body: Record<string, unknown>) => list.reduce<Record<string, unknown>>((b, m) => m.apply(b) as Record<string, unknown>, body),
  }));
  const wholeBody = fc
    .oneof(fc.jsonValue({ maxDepth: 5 }), fc.constantFrom<unknown>(null, [], 'x', 0, true, deepArray(), deepObject(), deepArray(100_000)))
    .map((value) => ({ label: `body = ${describeValue(value)}`, apply: () => new RawJson(serialize(value)) }));
  const duplicateKey = fc
    .tuple(fc.constantFrom(...names.filter((n) => !n.includes('.'))), fc.constantFrom(...names.filter((n) => !n.includes('.'))).chain((f) => badValue(fields[f]!)), fc.boolean())
    .map(([field, value, badFirst]) => ({
      label: `duplicate key ${field} (${badFirst ? 'bad first' : 'bad last'}) = ${describeValue(value)}`,
      apply: (body: Record<string, unknown>) => {
        const text = serialize(body);
        const dup = `${JSON.stringify(field)}:${serialize(value)}`;
        return new RawJson(badFirst ? text.replace(/^{/, `{${dup},`) : text.replace(/}$/, `,${dup}}`));
      },
    }));
  return fc.oneof(
    { weight: 6, arbitrary: setOne },
    { weight: 2, arbitrary: several },
    { weight: 2, arbitrary: removeOne },
    { weight: 1, arbitrary: unknownField },
    { weight: 1, arbitrary: wholeBody },
    { weight: 1, arbitrary: duplicateKey },
  );
}

type WireMutation = { label: string; contentType?: string | null; bytes: (text: string) => Buffer };

/** Mutations of the bytes on the wire (after serialization) and of the content type. */
export const wireMutations: fc.Arbitrary<WireMutation> = fc.oneof(
  fc.nat().map((k) => ({ label: `truncated (${k})`, bytes: (text: string) => Buffer.from(text).subarray(0, k % Math.max(1, Buffer.byteLength(text))) })),
  fc.constant({ label: 'empty body', bytes: () => Buffer.alloc(0) }),
  fc.tuple(fc.constantFrom(...INVALID_UTF8_SEQUENCES), fc.nat()).map(([bad, k]) => ({
    label: `invalid UTF-8 ${bad.toString('hex')} in a string`,
    bytes: (text: string) => {
      const buffer = Buffer.from(text);
      const quotes = [...buffer.entries()].filter(([, b]) => b === 0x22).map(([i]) => i);
      const at = quotes.length > 0 ? quotes[k % quotes.length]! + 1 : 0;
      return Buffer.concat([buffer.subarray(0, at), bad, buffer.subarray(at)]);
    },
  })),
  fc.constantFrom(...WRONG_CONTENT_TYPES).map((contentType) => ({ label: `content-type ${String(contentType)}`, contentType, bytes: (text: string) => Buffer.from(text) })),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', 'undefined', '1e999999', "'single'", '0x1F').map((literal) => ({
    label: `literal ${literal} in the JSON`,
    bytes: (text: string) => Buffer.from(text.replace(/:("[^"]*"|-?\d[^,}\]]*|true|false|null)/, `:${literal}`)),
  })),
  fc.constantFrom('\uFEFF', '\u0000', '//c\n', '/*c*/').map((prefix) => ({ label: `prefix ${JSON.stringify(prefix)}`, bytes: (text: string) => Buffer.from(prefix + text) })),
  fc.constant({ label: 'trailing garbage', bytes: (text: string) => Buffer.from(`${text}}{"x":1}`) }),
  fc.constant({ label: 'over the body limit (3 MiB)', bytes: (text: string) => Buffer.from(text.replace(/}$/, `,"pad":"${'x'.repeat(3 * 1024 * 1024)}"}`)) }),
);

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD's bytes). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function encodeSegment(segment: { text: string; raw: boolean }): string {
  return segment.raw ? segment.text : percentEncode(segment.text);
}
