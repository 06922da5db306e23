// Property against the real stack: for random sequences of holds (with and without a key),
// usage events that capture them, releases and refunds, a gateway that holds before every call
// never sees a block budget's spent + held pass its limit, whatever was refused on the way.
import fc from 'fast-check';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { testAppForSuite } from '../support/test-app.js';

const MODEL = 'acme/seq-model';
/** A non-negative USD decimal string in atto-USD: an exact comparison without floats. */
const atto = (usd: string) => {
  const [whole, fraction = ''] = usd.split('.');
  return BigInt(whole! + fraction.padEnd(18, '0'));
};

describe('budgets under random sequences (real Postgres)', () => {
  const t = testAppForSuite('budget_sequences');
  beforeAll(async () => {
    await seedBilling(t);
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: MODEL, input_usd_per_mtok: '1', output_usd_per_mtok: '1', effective_from: '2024-01-01T00:00:00Z' }).expect(201);
  });

  const step = fc.oneof(
    fc.record({ kind: fc.constant('hold' as const), cents: fc.integer({ min: 2, max: 6 }), key: fc.constantFrom(null, 'k1', 'k2') }),
    fc.record({ kind: fc.constant('capture' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('refund' as const), pick: fc.nat() }),
  );

  it('spent + held <= limit for every block budget after every step', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 25 }), async (steps) => {
        run += 1;
        const user = `u_seq_${run}`;
        await t.admin(t.http.post(`/v1/admin/users/${user}/credits`)).send({ amount_usd: '100', reference: `seq-${run}` }).expect(201);
        await t.admin(t.http.put(`/v1/admin/users/${user}/budgets/all`)).send({ limit_usd: '0.1', period: 'day', action: 'block' }).expect(201);
        await t.admin(t.http.put(`/v1/admin/users/${user}/budgets/k1`)).send({ limit_usd: '0.05', period: 'total', key_id: 'k1', action: 'block' }).expect(201);
        const active: Array<{ id: string; key: string | null }> = [];
        const events: string[] = [];
        let n = 0;
        for (const s of steps) {
          n += 1;
          if (s.kind === 'hold') {
            const res = await t.admin(t.http.post('/v1/holds')).send({ hold_id: `${user}-h${n}`, user_id: user, amount_usd: `0.0${s.cents}`, ...(s.key ? { key_id: s.key } : {}) });
            expect([201, 402]).toContain(res.status);
            if (res.status === 201) active.push({ id: `${user}-h${n}`, key: s.key });
            else expect(res.body.error.code).toBe('budget_exceeded');
          } else if (s.kind === 'capture' && active.length > 0) {
            // The gateway's call completed: its event (charge 0.0013 USD, under any hold) captures the hold.
            const [hold] = active.splice(s.pick % active.length, 1);
            const res = await t.admin(t.http.post('/v1/usage-events')).send({
              event_id: `${user}-e${n}`, user_id: user, contributor_id: 'c_std', model: MODEL, hold_id: hold!.id,
              ...(hold!.key ? { key_id: hold!.key } : {}),
              usage: { prompt_tokens: 1000, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 },
            }).expect(201);
            expect(res.body.charge_usd).toBe('0.0013');
            events.push(`${user}-e${n}`);
          } else if (s.kind === 'release' && active.length > 0) {
            const [hold] = active.splice(s.pick % active.length, 1);
            await t.admin(t.http.post(`/v1/holds/${hold!.id}/release`)).expect(200);
          } else if (s.kind === 'refund' && events.length > 0) {
            const [eventId] = events.splice(s.pick % events.length, 1);
            await t.admin(t.http.post(`/v1/admin/usage-events/${eventId}/refunds`)).send({ refund_id: `${eventId}-r`, reason: 'seq' }).expect(201);
          }
          const budgets = (await t.admin(t.http.get(`/v1/users/${user}/budgets`)).expect(200)).body.data as Array<{ spent_usd: string; held_usd: string; limit_usd: string }>;
          for (const b of budgets) {
            expect(atto(b.spent_usd) + atto(b.held_usd) <= atto(b.limit_usd)).toBe(true);
          }
        }
        for (const hold of active) await t.admin(t.http.post(`/v1/holds/${hold.id}/release`)).expect(200);
      }),
      { numRuns: 6 },
    );
    await expectLedgerClean(t);
  }, 240_000);
});
