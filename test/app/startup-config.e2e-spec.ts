// Issue 14 items 4 and 10: configurations that booted but could never work are refused at start-up.
import { createHttpApp } from '../../src/http-app.js';
import { ConfigError } from '../../src/config/index.js';
import { testAppForSuite } from '../support/test-app.js';
import { createTestDatabase } from '../support/test-db.js';

describe('start-up refuses a configuration that cannot work', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase('startup_config');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it.each([
    [{ USER_MARKUP: '1.1' }, /PAYOUT_PREMIUM: must not exceed USER_MARKUP/],
    [{ USER_MARKUP: '0' }, /USER_MARKUP: must be positive/],
    [{ PAYOUT_STANDARD: '0' }, /PAYOUT_STANDARD: must be positive/],
    [{ ADMIN_API_KEY: 'change me please, 16+' }, /ADMIN_API_KEY: must be at most 512 of the characters/],
  ])('%j', async (env, message) => {
    const boot = createHttpApp({ DATABASE_URL: db.url, ADMIN_API_KEY: 'startup-admin-key-0123456789', LOG_LEVEL: 'error', ...env });
    await expect(boot).rejects.toThrow(ConfigError);
    await expect(createHttpApp({ DATABASE_URL: db.url, ADMIN_API_KEY: 'startup-admin-key-0123456789', LOG_LEVEL: 'error', ...env })).rejects.toThrow(message);
  });

  describe('an ADMIN_API_KEY of every character the Bearer parser reads', () => {
    const key = 'Az09_-.~+/=Az09_-.~+/=k';
    const t = testAppForSuite('startup_config_key', { ADMIN_API_KEY: key });

    it('boots and signs in', async () => {
      const me = await t.http.get('/v1/me').set('Authorization', `Bearer ${key}`).expect(200);
      expect(me.body.role).toBe('admin');
    });
  });
});
