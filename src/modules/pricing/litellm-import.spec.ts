import { NO_EXTRA_PRICES } from './pricing.types.js';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatAttoAsUsd, formatScaledDecimal } from '../../common/money/index.js';
import { DecimalTextError } from './decimal-text.js';
import { LitellmDocumentError, parseLitellmDocument, perTokenTextToAttoPerMtok, planLitellmImport } from './litellm-import.js';

const FIXTURE_PATH = fileURLToPath(new URL('../../../test/fixtures/prices/model_prices_and_context_window.json', import.meta.url));
const ATTO = 10n ** 18n;

function usd(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(18, '0'));
}

describe('perTokenTextToAttoPerMtok', () => {
  it.each([
    ['2.5e-06', '2.5'],
    ['1e-05', '10'],
    ['1.25e-06', '1.25'],
    ['3.625e-09', '0.003625'],
    ['2.8e-09', '0.0028'],
    ['0.00015', '150'],
    ['0.0', '0'],
    ['0', '0'],
    ['1e-12', '0.000001'],
    ['1', '1000000'],
  ])('%s USD/token is %s USD/Mtok', (text, perMtok) => {
    expect(formatAttoAsUsd(perTokenTextToAttoPerMtok(text))).toBe(perMtok);
  });

  it('refuses prices needing more than 6 decimals per Mtok, negative or absurd ones', () => {
    expect(() => perTokenTextToAttoPerMtok('1.5e-13')).toThrow(DecimalTextError);
    expect(() => perTokenTextToAttoPerMtok('1.0000001e-06')).toThrow(/more than 6 decimals/);
    expect(() => perTokenTextToAttoPerMtok('-1e-06')).toThrow(/negative/);
    expect(() => perTokenTextToAttoPerMtok('1.000001')).toThrow(/above 1000000/);
  });

  it('is exact for every per-Mtok price with at most 6 decimals (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), (microUsdPerMtok) => {
        // The per-token text of a per-Mtok price with 6 decimals has 12 decimals.
        const perToken = formatScaledDecimal(microUsdPerMtok, 12);
        expect(perTokenTextToAttoPerMtok(perToken)).toBe(microUsdPerMtok * 10n ** 12n);
      }),
    );
  });
});

describe('parseLitellmDocument', () => {
  it('keeps the decimal text of numbers (no binary float)', () => {
    const document = parseLitellmDocument('{"m": {"input_cost_per_token": 1.0000000000000000001e-06}}');
    expect(document).toEqual({ m: { input_cost_per_token: expect.objectContaining({ value: '1.0000000000000000001e-06' }) } });
  });

  it.each([
    ['[]', /JSON object/],
    ['"x"', /JSON object/],
    ['null', /JSON object/],
    // lossless-json returns a number as a LosslessNumber object: it must not pass for a document.
    ['1', /JSON object/],
    ['2.5e-06', /JSON object/],
    ['{"a": 1,', /not valid JSON/],
    ['{"a": 1, "a": 2}', /not valid JSON/],
    ['['.repeat(200_000), /not valid JSON/],
  ])('refuses %s', (text, message) => {
    expect(() => parseLitellmDocument(text.slice(0, 200_000))).toThrow(LitellmDocumentError);
    expect(() => parseLitellmDocument(text.slice(0, 200_000))).toThrow(message);
  });
});

describe('planLitellmImport', () => {
  it('imports each priced model, skips the rest with a reason, and accounts for every key', () => {
    const document = parseLitellmDocument(
      JSON.stringify({
        sample_spec: { input_cost_per_token: 0, output_cost_per_token: 0 },
        ok: { input_cost_per_token: 2.5e-6, output_cost_per_token: 1e-5, cache_read_input_token_cost: 1.25e-6, mode: 'chat' },
        'no-cache': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 },
        'image-only': { input_cost_per_image_token: 1e-5 },
        'string-price': { input_cost_per_token: '1e-06', output_cost_per_token: 2e-6 },
        'too-fine': { input_cost_per_token: 1.5e-13, output_cost_per_token: 2e-6 },
        'bad-cache': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6, cache_read_input_token_cost: 1.5e-13 },
        'has space': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 },
        'not-object': 5,
      }),
    );
    const plan = planLitellmImport(document);
    expect(plan.prices).toEqual([
      { ...NO_EXTRA_PRICES, variant: 'standard', model: 'ok', inputAttoPerMtok: usd('2.5'), outputAttoPerMtok: 10n * ATTO, cachedInputAttoPerMtok: usd('1.25') },
      { ...NO_EXTRA_PRICES, variant: 'standard', model: 'no-cache', inputAttoPerMtok: ATTO, outputAttoPerMtok: 2n * ATTO, cachedInputAttoPerMtok: null },
    ]);
    expect(plan.skipped.map((s) => s.model)).toEqual(['sample_spec', 'image-only', 'string-price', 'too-fine', 'bad-cache', 'has space', 'not-object']);
    expect(plan.skipped.find((s) => s.model === 'too-fine')?.reason).toMatch(/input_cost_per_token .*more than 6 decimals/);
    expect(plan.skipped.find((s) => s.model === 'bad-cache')?.reason).toMatch(/cache_read_input_token_cost/);
    expect(plan.skipped.find((s) => s.model === 'string-price')?.reason).toBe('input_cost_per_token is not a JSON number');
  });

  it('imports the LiteLLM fixture exactly', () => {
    const document = parseLitellmDocument(readFileSync(FIXTURE_PATH, 'utf8'));
    const plan = planLitellmImport(document);
    expect(plan.prices.length + plan.skipped.length).toBe(Object.keys(document).length);
    expect(plan.prices).toHaveLength(215);
    expect(plan.skipped.map((s) => s.model).sort()).toEqual(['gpt-image-1', 'gpt-image-1-mini', 'gpt-realtime-whisper']);
    const byModel = new Map(plan.prices.map((p) => [p.model, p]));
    expect(byModel.get('gpt-4o')).toEqual({ ...NO_EXTRA_PRICES, variant: 'standard', model: 'gpt-4o', inputAttoPerMtok: usd('2.5'), outputAttoPerMtok: usd('10'), cachedInputAttoPerMtok: usd('1.25') });
    expect(byModel.get('gpt-4o-mini')).toEqual({ ...NO_EXTRA_PRICES, variant: 'standard', model: 'gpt-4o-mini', inputAttoPerMtok: usd('0.15'), outputAttoPerMtok: usd('0.6'), cachedInputAttoPerMtok: usd('0.075') });
    expect(byModel.get('o1-pro')).toEqual({ ...NO_EXTRA_PRICES, variant: 'standard', model: 'o1-pro', inputAttoPerMtok: usd('150'), outputAttoPerMtok: usd('600'), cachedInputAttoPerMtok: null });
    // Every imported price is a whole number of micro-USD per Mtok (6 decimals).
    for (const price of plan.prices) expect(price.inputAttoPerMtok % 10n ** 12n).toBe(0n);
  });
});
