import { parse } from 'lossless-json';
import { formatMicroUsdPerMtok, formatPicoUsd } from './catalog-price-body.js';
import { classifyField, parseKindField, readFee, readMultiplier, readPerTokenPrice, readTokenCount } from './litellm-fields.js';

/** A JSON number as lossless-json keeps it (its decimal text). */
const number = (text: string): unknown => parse(text);

describe('readPerTokenPrice', () => {
  it.each([
    ['2.5e-06', '2.5'],
    ['1e-05', '10'],
    ['1.25e-06', '1.25'],
    ['3.625e-09', '0.003625'],
    ['2.8e-09', '0.0028'],
    ['0.00015', '150'],
    ['0.0', '0'],
    ['1e-12', '0.000001'],
    ['1', '1000000'],
  ])('%s USD per token is %s USD per Mtok', (text, perMtok) => {
    const read = readPerTokenPrice('f', number(text));
    expect(read.ok && formatMicroUsdPerMtok(read.value)).toBe(perMtok);
  });

  it.each([
    ['1.5e-13', 'precision', 'f 1.5e-13 needs more than 6 decimals'],
    ['2.9999900000000002e-06', 'precision', 'f 2.9999900000000002e-06 needs more than 6 decimals'],
    ['-1e-06', 'invalid', 'f -1e-06 is negative'],
    ['1.000001', 'invalid', 'f 1.000001 is above 1000000 USD per Mtok'],
  ])('refuses %s (%s)', (text, code, reason) => {
    expect(readPerTokenPrice('f', number(text))).toEqual({ ok: false, code, reason });
  });

  it('refuses a string, a boolean and null', () => {
    for (const value of ['1e-06', true, null]) expect(readPerTokenPrice('f', value)).toEqual({ ok: false, code: 'invalid', reason: 'f is not a JSON number' });
  });
});

describe('readFee, readMultiplier, readTokenCount', () => {
  it('reads fees per call or per thousand, multipliers and token counts exactly', () => {
    const fee = readFee('f', number('0.035'));
    expect(fee.ok && formatPicoUsd(fee.value)).toBe('0.035');
    const perThousand = readFee('f', number('12'), 1000);
    expect(perThousand.ok && formatPicoUsd(perThousand.value)).toBe('0.012');
    expect(readFee('f', number('1e-13'))).toMatchObject({ ok: false, code: 'precision' });
    expect(readMultiplier('m', number('1.1'))).toEqual({ ok: true, value: 1_100_000n });
    expect(readMultiplier('m', number('0'))).toMatchObject({ ok: false, code: 'invalid' });
    expect(readTokenCount('r', number('256000.0'))).toBe(256000);
    expect(readTokenCount('r', number('256000.5'))).toMatch(/not a whole number/);
  });
});

describe('the field grammar', () => {
  it.each([
    ['input_cost_per_token', { kind: 'input', aboveInputTokens: null, serviceTier: null }],
    ['cache_creation_input_token_cost_above_1hr', { kind: 'cache_write_1h', aboveInputTokens: null, serviceTier: null }],
    ['cache_creation_input_token_cost_above_1hr_above_200k_tokens', { kind: 'cache_write_1h', aboveInputTokens: 200000, serviceTier: null }],
    ['cache_read_input_token_cost_above_272k_tokens_priority', { kind: 'cached_input', aboveInputTokens: 272000, serviceTier: 'priority' }],
    ['output_cost_per_token_batches', { kind: 'output', aboveInputTokens: null, serviceTier: 'batches' }],
    ['input_cost_per_token_cache_hit', { kind: 'cached_input', aboveInputTokens: null, serviceTier: null }],
    ['input_cost_per_audio_token_priority', { kind: 'input_audio', aboveInputTokens: null, serviceTier: 'priority' }],
  ])('%s', (field, parsed) => {
    expect(parseKindField(field)).toEqual(parsed);
  });

  it.each([
    ['input_cost_per_image', 'not_token_priced'],
    ['input_cost_per_video_per_second_above_8s_interval', 'not_token_priced'],
    ['output_cost_per_second_1080p', 'not_token_priced'],
    ['ocr_cost_per_page', 'not_token_priced'],
    ['cache_creation_input_audio_token_cost', 'kind'],
    ['search_context_cost_per_query', 'special'],
    ['max_input_tokens', 'ignored'],
    ['supports_service_tier', 'ignored'],
    ['input_cost_per_thought_token', 'unknown'],
  ])('%s is %s', (field, type) => {
    expect(classifyField(field).type).toBe(type);
  });
});
