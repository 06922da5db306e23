import { ConfigError, parseEnv } from './config.schema.js';

describe('parseEnv', () => {
  it('has local defaults and exact multipliers', () => {
    const env = parseEnv({});
    expect(env.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/ledger');
    expect(env.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(env.USER_MARKUP.numerator).toBe(13000n);
    expect(env.PAYOUT_STANDARD.text).toBe('1.1');
    expect(env.PAYOUT_PREMIUM.text).toBe('1.2');
    expect(env.SETTLEMENT_MIN_PAYOUT_ATTO).toBe(10n * 10n ** 18n);
  });

  it('reads the settlement limits from their _USD variables into keys that say atto', () => {
    const env = parseEnv({ SETTLEMENT_MIN_PAYOUT_USD: '0.5', SETTLEMENT_APPROVAL_THRESHOLD_USD: '7', SETTLEMENT_LINE_MAX_USD: '8', SETTLEMENT_TOTAL_MAX_USD: '9.000001' });
    expect(env).toMatchObject({
      SETTLEMENT_MIN_PAYOUT_ATTO: 5n * 10n ** 17n,
      SETTLEMENT_APPROVAL_THRESHOLD_ATTO: 7n * 10n ** 18n,
      SETTLEMENT_LINE_MAX_ATTO: 8n * 10n ** 18n,
      SETTLEMENT_TOTAL_MAX_ATTO: 9_000_001n * 10n ** 12n,
    });
    expect(Object.keys(env).filter((key) => key.startsWith('SETTLEMENT_') && key.endsWith('_USD'))).toEqual([]);
    expect(() => parseEnv({ SETTLEMENT_LINE_MAX_USD: '1.0000001' })).toThrow(/SETTLEMENT_LINE_MAX_USD/);
  });

  it('rate-limits ingestion far above the 25,000 events/s benchmark target by default', () => {
    const env = parseEnv({});
    expect(env.RATE_LIMIT_PER_MINUTE / 60).toBeGreaterThanOrEqual(4 * 25_000);
    expect(env.RATE_LIMIT_BURST).toBeGreaterThanOrEqual(25_000);
    expect(() => parseEnv({ RATE_LIMIT_BURST: '999' })).toThrow(/RATE_LIMIT_BURST/);
  });

  it('names the bad variable', () => {
    expect(() => parseEnv({ USER_MARKUP: '1.33333' })).toThrow(/USER_MARKUP/);
    expect(() => parseEnv({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => parseEnv({ USDC_ADDRESS: '0x12' })).toThrow(/USDC_ADDRESS/);
    expect(() => parseEnv({ NODE_ENV: 'production' })).toThrow(ConfigError);
  });
});
