import { timestampSchema } from './fields.js';
import { rfc3339Schema } from '../../modules/pricing/pricing.schemas.js';

describe('timestamps Postgres can store', () => {
  it.each(['2026-11-29T10:00:00Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2026-11-29T10:00:00+14:00'])('accepts %s', (text) => {
    expect(timestampSchema.safeParse(text).success).toBe(true);
    expect(rfc3339Schema.safeParse(text).success).toBe(true);
  });

  // Year 0 or 10000 once converted to UTC: Postgres refuses the ISO text (these were 500s).
  it.each(['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:00:00-05:00'])('refuses %s with a clear message', (text) => {
    const result = timestampSchema.safeParse(text);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/between the years 1 and 9999/);
    expect(rfc3339Schema.safeParse(text).success).toBe(false);
  });
});

describe('request amounts', () => {
  it('accepts up to a trillion USD in magnitude and refuses more', async () => {
    const { usdAmountSchema, REQUEST_AMOUNT_USD_MAX } = await import('./fields.js');
    const signed = usdAmountSchema({ allowNegative: true });
    expect(signed.parse('1000000000000')).toBe(REQUEST_AMOUNT_USD_MAX * 10n ** 18n);
    expect(signed.parse('-1000000000000')).toBe(-REQUEST_AMOUNT_USD_MAX * 10n ** 18n);
    expect(signed.safeParse('1000000000000.000000000000000001').error?.issues[0]?.message).toMatch(/at most 1000000000000 USD/);
    expect(signed.safeParse('-99999999999999999999.9').success).toBe(false);
  });
});

describe('ids (api.md "Conventions", Ids)', () => {
  const realistic = ['alice+x@example.com', 'Jane Doe', 'josé@example.com', 'acme/team', '北京-用户', '👩‍💻 dev', 'resp_' + 'a'.repeat(232), 'x'.repeat(256), '🙂'.repeat(256), ' padded ', '%41', '1744536634', 'gw:1'];
  it.each(realistic)('accepts %j as sent', async (id) => {
    const { idSchema } = await import('./fields.js');
    expect(idSchema.parse(id)).toBe(id);
  });

  it.each([
    ['', /empty/],
    ['x'.repeat(257), /at most 256 characters/],
    ['🙂'.repeat(257), /at most 256 characters/],
    ['a\u0000b', /control characters/],
    ['a\u001fb', /control characters/],
    ['line\nbreak', /control characters/],
    ['del\u007f', /control characters/],
    ['c1\u0085', /control characters/],
    ['c1\u009f', /control characters/],
    ['lone\ud800', /lone surrogate/],
  ])('refuses %j naming why', async (id, message) => {
    const { idSchema } = await import('./fields.js');
    const result = idSchema.safeParse(id);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(message);
  });

  it('refuses a non-string with the rule', async () => {
    const { idSchema } = await import('./fields.js');
    expect(idSchema.safeParse(5).error?.issues[0]?.message).toMatch(/must be a string: 1 to 256 characters/);
  });

  it('property: any text of 1 to 256 code points without Cc characters or lone surrogates is an id, kept exactly', async () => {
    const { idSchema, idProblem } = await import('./fields.js');
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 256 }), (text) => {
        const ok = [...text].length <= 256 && !/\p{Cc}/u.test(text);
        expect(idProblem(text) === null).toBe(ok);
        if (ok) expect(idSchema.parse(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
