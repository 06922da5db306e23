import type request from 'supertest';
import { testAppForSuite, type TestApp } from './test-app.js';

export const GPT4O = 'openai/gpt-4o';

/** Admin set-up through the public API: a price, contributors, a funded user. */
export async function seedBilling(t: TestApp, options: { userCreditUsd?: string } = {}) {
  await t.admin(t.http.post('/v1/admin/prices')).send({
    model: GPT4O,
    input_usd_per_mtok: '2.5',
    output_usd_per_mtok: '10',
    cached_input_usd_per_mtok: '1.25',
    effective_from: '2026-01-01T00:00:00Z',
  }).expect(201);
  await t.admin(t.http.put('/v1/admin/contributors/c_std')).send({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }).expect(201);
  await t.admin(t.http.put('/v1/admin/contributors/c_prem')).send({ tier: 'premium', payout_address: '0x2222222222222222222222222222222222222222' }).expect(201);
  await t.admin(t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: options.userCreditUsd ?? '100', reference: 'seed-u42' }).expect(201);
}

/** For the enclosing describe: a test app seeded for billing (seedBilling, with `options`) in its beforeAll. */
export function billingSuite(label: string, options: { userCreditUsd?: string } = {}): TestApp {
  const t = testAppForSuite(label);
  beforeAll(() => seedBilling(t, options));
  return t;
}

/**
 * For the enclosing describe: a test app seeded for billing (seedBilling, with `options`) and a
 * gateway API key, both made in its beforeAll (the suite's own beforeAll hooks run after it).
 * `gw` sends a request as that gateway.
 */
export function billingSuiteWithGateway(label: string, options: { userCreditUsd?: string } = {}): { t: TestApp; gw: (req: request.Test) => request.Test } {
  const t = billingSuite(label, options);
  let gatewayKey: string | null = null;
  beforeAll(async () => {
    gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201)).body.key;
  });
  return { t, gw: (req) => req.set('Authorization', `Bearer ${gatewayKey}`) };
}

export function exampleEvent(overrides: Record<string, unknown> = {}) {
  return {
    event_id: 'gw1-req-123',
    user_id: 'u_42',
    contributor_id: 'c_std',
    model: GPT4O,
    occurred_at: '2026-11-29T10:00:00Z',
    usage: { prompt_tokens: 1200, completion_tokens: 350, cached_tokens: 200, reasoning_tokens: 0 },
    metadata: { stream_id: 's-1' },
    ...overrides,
  };
}

export async function expectLedgerClean(t: TestApp) {
  const check = await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200);
  if (!check.body.ok) throw new Error(`ledger check failed: ${JSON.stringify(check.body)}`);
  return check.body;
}
