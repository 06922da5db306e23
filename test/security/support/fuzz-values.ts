// Bad values by field kind, and raw JSON text that JSON.stringify cannot produce (1e400, NaN,
// 10,000 levels of nesting, duplicate keys), for the bad-input fuzz.
import fc from 'fast-check';

/** JSON text inserted verbatim where a value goes. */
export class RawJson {
  constructor(readonly text: string) {}
}

export const DEEP_NESTING_LEVELS = 10_000;
export const deepArray = (levels = DEEP_NESTING_LEVELS) => new RawJson(`${'['.repeat(levels)}1${']'.repeat(levels)}`);
export const deepObject = (levels = DEEP_NESTING_LEVELS) => new RawJson(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);

/** JSON.stringify, with RawJson values written verbatim. */
export function serialize(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `@@RAW_${raws.length - 1}@@`;
    }
    return v;
  });
  return (text ?? '').replace(/"@@RAW_(\d+)@@"/g, (_m, i: string) => raws[Number(i)]!);
}

export type FieldKind =
  | 'money' // non-negative USD decimal string
  | 'signedMoney' // USD decimal string, negative allowed
  | 'tokens' // non-negative integer <= 2^31-1
  | 'id' // internal id
  | 'extId' // gateway id (printable ASCII)
  | 'model'
  | 'timestamp'
  | 'address'
  | 'enum'
  | 'text'
  | 'bool'
  | 'int'
  | 'object'
  | 'array';

const WRONG_TYPES: unknown[] = [null, true, false, 0, -1, 1.5, '', 'x', [], {}, [1, 2], { a: 1 }];

const LONG_STRINGS = [129, 201, 501, 10_000, 100_000, 1_000_000].map((n) => 'x'.repeat(n));

const WEIRD_STRINGS = [
  '',
  ' ',
  'ü',
  '😀',
  '\u202Eevil',
  '\u0000',
  'a\u0000b',
  'a\nb',
  'a\tb',
  '\u007f',
  '\u200b',
  '\ud800',
  '\udfff\ud800',
  'a b',
  'a/b',
  '../../etc/passwd',
  '%2e%2e%2f',
  "' OR '1'='1",
  '"; DROP TABLE accounts; --',
  '__proto__',
  'constructor',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  'NaN',
  'Infinity',
  'null',
  ...LONG_STRINGS,
];

const BAD_MONEY: unknown[] = [
  12.5,
  1,
  0,
  -1,
  1e21,
  1e-7,
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('9007199254740993'),
  new RawJson('0.1e1'),
  'NaN',
  'Infinity',
  '-Infinity',
  '1e5',
  '1E-7',
  '0x10',
  '0b1',
  ' 1',
  '1 ',
  '1,5',
  '+1',
  '.5',
  '5.',
  '1.',
  '--1',
  '1-',
  '1_000',
  '１',
  '١',
  '1\u0000',
  '1.0000000000000000001',
  '9'.repeat(39),
  '9'.repeat(41),
  `0.${'0'.repeat(30)}1`,
  '99999999999999999999.999999999999999999',
  '',
  'abc',
];
const NEGATIVE_MONEY = ['-5', '-0.000001', '-0'];

const BAD_TOKENS: unknown[] = [
  -1,
  -2147483648,
  1.5,
  0.1,
  2147483648,
  4294967296,
  new RawJson('1e308'),
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('9007199254740993'),
  '10',
  'NaN',
  'Infinity',
  '1e3',
  null,
];

const BAD_TIMESTAMPS: unknown[] = [
  'not a date',
  '2026-13-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-11-29T10:00:00',
  '2026-11-29',
  '2026-11-29T25:00:00Z',
  '2026-11-29T10:00:00+25:00',
  '+275760-09-13T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '0000-01-01T10:00:00+14:00',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:00:00-05:00',
  '2999-01-01T00:00:00Z',
  '2026-11-29T10:00:00.123456789Z',
  '2026-11-29T10:00:00Z\u0000',
  1_700_000_000,
  0,
];

const BAD_ADDRESSES: unknown[] = [
  '0x123',
  `0x${'1'.repeat(39)}`,
  `0x${'1'.repeat(41)}`,
  `0x${'g'.repeat(40)}`,
  `0x${'0'.repeat(40)}`,
  '0xAbCdEf0123456789aBcDeF0123456789aBcDeF01',
  `${'1'.repeat(40)}`,
  `0X${'1'.repeat(40)}`,
  ` 0x${'1'.repeat(40)}`,
  123,
];

const BAD_ENUMS: unknown[] = ['Standard', 'PREMIUM', 'premium ', 'admin ', 'root', 'superuser', '', 1, null];

/** Values that break a field of the given kind (a few may turn out valid; the runner copes). */
export function badValue(kind: FieldKind): fc.Arbitrary<unknown> {
  const common = fc.constantFrom(...WRONG_TYPES, deepArray(), deepObject());
  const weird = fc.constantFrom(...WEIRD_STRINGS);
  const anyString = fc.string({ unit: 'binary', maxLength: 40 });
  switch (kind) {
    case 'money':
      return fc.oneof(fc.constantFrom(...BAD_MONEY, ...NEGATIVE_MONEY), fc.double(), fc.integer(), common, weird);
    case 'signedMoney':
      return fc.oneof(fc.constantFrom(...BAD_MONEY), fc.double(), fc.integer(), common, weird);
    case 'tokens':
      return fc.oneof(fc.constantFrom(...BAD_TOKENS), fc.integer({ max: -1 }), fc.double({ noInteger: true }), common);
    case 'id':
    case 'extId':
    case 'model':
      return fc.oneof(weird, anyString, common);
    case 'timestamp':
      return fc.oneof(fc.constantFrom(...BAD_TIMESTAMPS), anyString, common);
    case 'address':
      return fc.oneof(fc.constantFrom(...BAD_ADDRESSES), weird, common);
    case 'enum':
      return fc.oneof(fc.constantFrom(...BAD_ENUMS), weird, common);
    case 'text':
      return fc.oneof(fc.constantFrom(...LONG_STRINGS, '', '\u0000', '\ud800'), common);
    case 'bool':
      return fc.oneof(fc.constantFrom('true', 'false', 1, 0, 'yes', null, [], {}), weird);
    case 'int':
      return fc.oneof(fc.constantFrom(-1, 0, 1.5, 2 ** 31, 2 ** 53, new RawJson('1e400'), '60', 'NaN'), common);
    case 'object':
    case 'array':
      return fc.oneof(common, weird, fc.jsonValue({ maxDepth: 4 }));
  }
}

/** A path segment (URL-encoded by the caller unless `raw`). */
export const badPathSegment: fc.Arbitrary<{ text: string; raw: boolean }> = fc.oneof(
  fc.constantFrom(...WEIRD_STRINGS.filter((s) => s.length > 0 && s.length <= 10_000)).map((text) => ({ text, raw: false })),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map((text) => ({ text, raw: false })),
  // Hand-written bytes on the wire: broken percent-encodings, encoded NUL and slash, dot segments.
  fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%2F', '%2e%2e', '..', '.', '%FF%FE', '%ED%A0%80', 'x%0Ay').map((text) => ({ text, raw: true })),
);

export const WRONG_CONTENT_TYPES: Array<string | null> = [
  null,
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/jsonx',
  'json',
  '*/*',
  '',
];

export const INVALID_UTF8_SEQUENCES = [
  Buffer.from([0xff]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0x80, 0x80, 0x80]),
];
