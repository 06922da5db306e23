import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LitellmDocumentError, parseLitellmDocument, planLitellmImport } from './litellm-import.js';
import { NO_EXTRA_PRICES } from './pricing.types.js';

const FIXTURE_PATH = fileURLToPath(new URL('../../../test/fixtures/prices/model_prices_and_context_window.json', import.meta.url));

function usd(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(18, '0'));
}

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
  it('hands over versions in the stored shape, validated like an operator body', () => {
    const plan = planLitellmImport(
      parseLitellmDocument(
        '{"ok": {"litellm_provider": "openai", "input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 1.25e-06, "input_cost_per_token_flex": 1.25e-06}}',
      ),
    );
    expect(plan.prices).toEqual([
      { ...NO_EXTRA_PRICES, model: 'ok', variant: 'standard', effectiveFrom: undefined, inputAttoPerMtok: usd('2.5'), outputAttoPerMtok: usd('10'), cachedInputAttoPerMtok: usd('1.25') },
      { ...NO_EXTRA_PRICES, model: 'ok', variant: 'flex', effectiveFrom: undefined, inputAttoPerMtok: usd('1.25'), outputAttoPerMtok: usd('10'), cachedInputAttoPerMtok: usd('1.25') },
    ]);
    expect(plan.counts).toMatchObject({ models: 1, versions: 2, variants: { standard: 1, flex: 1 } });
  });

  it('imports the LiteLLM fixture exactly', () => {
    const document = parseLitellmDocument(readFileSync(FIXTURE_PATH, 'utf8'));
    const plan = planLitellmImport(document);
    expect(plan.counts.models + plan.counts.skippedModels).toBe(Object.keys(document).length);
    expect(plan.counts).toMatchObject({ models: 214, versions: 407, tiers: 97, skippedModels: 4 });
    expect(plan.skipped.map((s) => [s.model, s.code]).sort()).toEqual([
      ['deepseek-v3-2-251201', 'zero_priced'],
      ['gemini-2.0-flash-exp-image-generation', 'not_token_priced'],
      ['gemini-flash-experimental', 'zero_priced'],
      ['gpt-realtime-whisper', 'not_token_priced'],
    ]);
    const byKey = new Map(plan.prices.map((p) => [`${p.model}|${p.variant}`, p]));
    expect(byKey.get('gpt-4o|standard')).toMatchObject({ inputAttoPerMtok: usd('2.5'), outputAttoPerMtok: usd('10'), cachedInputAttoPerMtok: usd('1.25') });
    expect(byKey.get('gpt-4o-mini|standard')).toMatchObject({ inputAttoPerMtok: usd('0.15'), outputAttoPerMtok: usd('0.6'), cachedInputAttoPerMtok: usd('0.075') });
    expect(byKey.get('o1-pro|standard')).toMatchObject({ inputAttoPerMtok: usd('150'), outputAttoPerMtok: usd('600'), cachedInputAttoPerMtok: null });
    // Every imported price is a whole number of micro-USD per Mtok (6 decimals).
    for (const price of plan.prices) expect((price.inputAttoPerMtok ?? 0n) % 10n ** 12n).toBe(0n);
  });
});
