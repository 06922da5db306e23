import { parseBearer } from '../modules/auth/api-key.js';
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

  it('listens on loopback unless HOST says otherwise (api.md "Operations")', () => {
    expect(parseEnv({}).HOST).toBe('127.0.0.1');
    expect(parseEnv({ HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
    expect(() => parseEnv({ HOST: ' ' })).toThrow(/HOST/);
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

  it('reads the LiteLLM variables with their operations.md defaults and names a bad one', () => {
    const env = parseEnv({});
    expect(env.LITELLM_USER_FIELDS).toEqual(['metadata.user_api_key_user_id', 'metadata.user_api_key_team_id', 'metadata.user_api_key_hash']);
    expect(env.LITELLM_BODY_LIMIT_BYTES).toBe(64 * 1024 * 1024);
    expect([env.LITELLM_MAX_PAYLOADS, env.LITELLM_BACKFILL_LATE_SECONDS]).toEqual([20_000, 21_600]);
    expect([env.LITELLM_DATABASE_URL, env.LITELLM_BACKFILL_SECONDS, env.LITELLM_BACKFILL_OVERLAP_SECONDS, env.LITELLM_BACKFILL_FROM]).toEqual([undefined, 60, 600, undefined]);
    expect(parseEnv({ LITELLM_USER_FIELDS: ' end_user , metadata.user_api_key_hash' }).LITELLM_USER_FIELDS).toEqual(['end_user', 'metadata.user_api_key_hash']);
    expect(() => parseEnv({ LITELLM_USER_FIELDS: 'metadata..x' })).toThrow(/LITELLM_USER_FIELDS/);
    expect(() => parseEnv({ LITELLM_BACKFILL_FROM: 'yesterday' })).toThrow(/LITELLM_BACKFILL_FROM/);
    expect(() => parseEnv({ LITELLM_DATABASE_URL: 'not a url' })).toThrow(/LITELLM_DATABASE_URL/);
  });

  it('names the bad variable', () => {
    expect(() => parseEnv({ USER_MARKUP: '1.33333' })).toThrow(/USER_MARKUP/);
    expect(() => parseEnv({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => parseEnv({ USDC_ADDRESS: '0x12' })).toThrow(/USDC_ADDRESS/);
    expect(() => parseEnv({ NODE_ENV: 'production' })).toThrow(ConfigError);
  });

  // Issue 14 item 4: USER_MARKUP=1.1 booted and gave premium events (1.2) a negative margin.
  it.each([
    [{ USER_MARKUP: '1.1' }, /PAYOUT_PREMIUM: must not exceed USER_MARKUP/],
    [{ USER_MARKUP: '1.15', PAYOUT_PREMIUM: '1.1501' }, /PAYOUT_PREMIUM: must not exceed USER_MARKUP/],
    [{ USER_MARKUP: '0' }, /USER_MARKUP: must be positive/],
    [{ PAYOUT_STANDARD: '0' }, /PAYOUT_STANDARD: must be positive/],
    [{ PAYOUT_PREMIUM: '0.0000' }, /PAYOUT_PREMIUM: must be positive/],
    [{ PAYOUT_STANDARD: '1.4' }, /PAYOUT_STANDARD: must not exceed USER_MARKUP/],
  ])('refuses a payout multiplier that is not positive or above the user markup: %j', (env, message) => {
    expect(() => parseEnv(env)).toThrow(ConfigError);
    expect(() => parseEnv(env)).toThrow(message);
  });

  it('accepts payouts up to the user markup (a zero margin)', () => {
    expect(parseEnv({ USER_MARKUP: '1.2', PAYOUT_STANDARD: '1.2', PAYOUT_PREMIUM: '1.2' }).PAYOUT_PREMIUM.text).toBe('1.2');
    expect(parseEnv({ USER_MARKUP: '1.0001', PAYOUT_STANDARD: '0.0001', PAYOUT_PREMIUM: '1.0001' }).USER_MARKUP.text).toBe('1.0001');
  });

  // Issue 14 item 10: a key the Bearer parser refuses booted and could never sign in.
  it.each(['change me please 16+', 'abcdefghijklmnop\u00e9', 'abcdefghijklmnop\t', 'abcdefghijklmnop,q', `${'k'.repeat(513)}`])('refuses an ADMIN_API_KEY the Bearer parser cannot read: %j', (key) => {
    expect(() => parseEnv({ ADMIN_API_KEY: key })).toThrow(/ADMIN_API_KEY: must be at most 512 of the characters/);
  });

  it('accepts every ADMIN_API_KEY the Bearer parser reads, and the parser reads it back', () => {
    const key = 'Az09_-.~+/=Az09_-.~+/=';
    expect(parseEnv({ ADMIN_API_KEY: key }).ADMIN_API_KEY).toBe(key);
    expect(parseBearer(`Bearer ${key}`)).toBe(key);
  });
});
