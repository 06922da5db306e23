// user.balance_low of a grant's expiry (docs/spend-controls.md "Credit grants", "Breakage"): the
// balance counts an expired grant as 0 from expires_at on, so the expiry alone can take it below
// USER_LOW_BALANCE_USD; the sweep's breakage announces that crossing, once, in its transaction.
// Real Postgres; the outbox rows are read (an endpoint subscribed to the type makes them stored).
import { parseUsdToAtto } from '../../src/common/money/index.js';
import { GrantsService } from '../../src/modules/spend/grants.service.js';
import { SpendClock } from '../../src/modules/spend/spend-clock.js';
import { WEBHOOK_EVENT_SCHEMAS } from '../../src/modules/webhooks/webhook-event-types.js';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';
import { testAppForSuite } from '../support/test-app.js';

const HOUR = 3_600_000;
const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });

describe('user.balance_low when a grant expires', () => {
  const t = testAppForSuite('grants_breakage_low', { USER_LOW_BALANCE_USD: '1', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const sql = suiteSql(t);
  const expiresAt = new Date(Date.now() + HOUR);
  const afterExpiry = new Date(expiresAt.getTime() + HOUR);

  const credit = (userId: string, body: Record<string, unknown>) => t.admin(t.http.post(`/v1/admin/users/${userId}/credits`)).send(body).expect(201);
  const grant = (userId: string, reference: string, amountUsd: string) =>
    credit(userId, { amount_usd: amountUsd, reference, grant: { expires_at: expiresAt.toISOString(), name: 'Trial' } });
  const balanceAtto = async (userId: string) => atto((await t.admin(t.http.get(`/v1/users/${userId}/balance`)).expect(200)).body.balance_usd);
  const lows = async (userId: string) => {
    const r = await sql.query<{ data: Record<string, string> }>(`SELECT data FROM webhook_events WHERE type = 'user.balance_low' AND data->>'user_id' = $1 ORDER BY id`, [userId]);
    for (const row of r.rows) expect(WEBHOOK_EVENT_SCHEMAS['user.balance_low'].safeParse(row.data).success).toBe(true);
    return r.rows.map((row) => row.data);
  };

  beforeAll(async () => {
    await seedBilling(t);
    await t.admin(t.http.post('/v1/admin/webhooks')).send({ url: 'http://127.0.0.1:9/hook', events: ['user.balance_low'] }).expect(201);
    // 0.30 purchased + 5.00 granted: the expiry takes the balance 5.30 -> 0.30, below 1.00.
    await credit('u_bx1', { amount_usd: '0.3', reference: 'buy-u_bx1' });
    await grant('u_bx1', 'grant-u_bx1', '5');
    // 1.50 purchased: above 1.00 without the grant too.
    await credit('u_bx2', { amount_usd: '1.5', reference: 'buy-u_bx2' });
    await grant('u_bx2', 'grant-u_bx2', '5');
    // Two grants expiring at the same instant: 4.30 -> 0.30, one crossing for the two breakages.
    await credit('u_bx3', { amount_usd: '0.3', reference: 'buy-u_bx3' });
    await grant('u_bx3', 'grant-u_bx3-a', '2');
    await grant('u_bx3', 'grant-u_bx3-b', '2');
  });
  afterEach(() => expectLedgerClean(t));
  afterAll(() => t.app.get(SpendClock).standAt(null));

  it('the expiry crossing is announced once, by the breakage; later and racing sweeps add none; a user staying above gets none', async () => {
    const grants = t.app.get(GrantsService);
    expect(await balanceAtto('u_bx1')).toBe(atto('5.3'));
    expect(await grants.breakDue(new Date())).toBe(0); // not due yet
    t.app.get(SpendClock).standAt(afterExpiry);
    // The balance already leaves the grant out (no write happened): nothing announced it.
    expect(await balanceAtto('u_bx1')).toBe(atto('0.3'));
    expect(await lows('u_bx1')).toEqual([]);

    // Two sweeps at once: 4 grants broken between them, each once.
    const [a, b] = await Promise.all([grants.breakDue(afterExpiry), grants.breakDue(afterExpiry)]);
    expect(a + b).toBe(4);
    expect(await lows('u_bx1')).toEqual([{ user_id: 'u_bx1', balance_usd: '0.3', previous_balance_usd: '5.3', threshold_usd: '1' }]);
    expect(await lows('u_bx2')).toEqual([]);
    expect(await lows('u_bx3')).toEqual([{ user_id: 'u_bx3', balance_usd: '0.3', previous_balance_usd: '2.3', threshold_usd: '1' }]);

    // The admin overview shows what the breakages moved to revenue, apart from revenue_usd.
    const overview = (await t.admin(t.http.get('/v1/admin/overview')).expect(200)).body;
    expect(overview).toMatchObject({ breakage_usd: '14', revenue_usd: '0' });

    // A second sweep: nothing due, nothing announced.
    expect(await grants.breakDue(afterExpiry)).toBe(0);
    expect(await lows('u_bx1')).toHaveLength(1);
    expect(await lows('u_bx3')).toHaveLength(1);
    expect(await balanceAtto('u_bx1')).toBe(atto('0.3'));
    expect(await balanceAtto('u_bx2')).toBe(atto('1.5'));
  });
});
