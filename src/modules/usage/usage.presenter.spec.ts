// The ingestion reply body: the api.md fields in the documented order, priced and unpriced (the
// body is built as two literals for speed; this pins that both say what the shared form said).
import { NO_EXTRA_USAGE } from '../pricing/pricing.types.js';
import { usageEventBody } from './usage.presenter.js';
import type { StoredEvent } from './usage.types.js';

const at = (iso: string) => new Date(iso);
const usage = { promptTokens: 1200, completionTokens: 300, cachedTokens: 100, reasoningTokens: 7, ...NO_EXTRA_USAGE };
const priced: StoredEvent = {
  id: 41n,
  eventId: 'evt-1',
  requestHash: 'ab'.repeat(32),
  userId: 'user-1',
  contributorId: 'contrib-1',
  model: 'openai/gpt-4o',
  occurredAt: at('2026-12-01T10:00:00.000Z'),
  receivedAt: at('2026-12-01T10:00:01.250Z'),
  ...usage,
  priceVariant: 'standard',
  holdId: null,
  keyId: null,
  metadata: null,
  source: 'api',
  status: 'priced',
  priceId: 7n,
  contributorTier: 'premium',
  userMarkup: '1.3',
  payoutMultiplier: '1.2',
  officialAtto: 6_000_000_000_000_000n,
  chargeAtto: 7_800_000_000_000_000n,
  payoutAtto: 7_200_000_000_000_000n,
  marginAtto: 600_000_000_000_000n,
  pricedAt: at('2026-12-01T10:00:01.250Z'),
  stream: null,
};

const expectedBase = {
  event_id: 'evt-1',
  status: 'priced',
  model: 'openai/gpt-4o',
  price_variant: 'standard',
  user_id: 'user-1',
  contributor_id: 'contrib-1',
  occurred_at: '2026-12-01T10:00:00.000Z',
  usage: { prompt_tokens: 1200, completion_tokens: 300, cached_tokens: 100, reasoning_tokens: 7 },
  hold_id: null as string | null,
  key_id: null as string | null,
};

describe('usageEventBody', () => {
  it('a priced event: every api.md field, in order, amounts as exact USD text', () => {
    const body = usageEventBody(priced);
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        ...expectedBase,
        official_usd: '0.006',
        charge_usd: '0.0078',
        payout_usd: '0.0072',
        margin_usd: '0.0006',
        contributor_tier: 'premium',
        price_id: '7',
        user_markup: '1.3',
        payout_multiplier: '1.2',
        priced_at: '2026-12-01T10:00:01.250Z',
        received_at: '2026-12-01T10:00:01.250Z',
      }),
    );
  });

  it('an unpriced event: no amounts, received_at last', () => {
    const unpriced: StoredEvent = { ...priced, status: 'unpriced', priceId: null, contributorTier: null, officialAtto: null, chargeAtto: null, payoutAtto: null, marginAtto: null, pricedAt: null, holdId: 'hold-9' };
    expect(JSON.stringify(usageEventBody(unpriced))).toBe(
      JSON.stringify({
        ...expectedBase,
        status: 'unpriced',
        hold_id: 'hold-9',
        received_at: '2026-12-01T10:00:01.250Z',
      }),
    );
  });

  it('each instant as its own text, whatever the reply before it said (the remembered millisecond)', () => {
    const times = ['2026-12-01T10:00:01.250Z', '2026-12-01T10:00:01.251Z', '2026-12-01T10:00:01.250Z', '1970-01-01T00:00:00.000Z'];
    for (const [i, time] of times.entries()) {
      const body = usageEventBody({ ...priced, occurredAt: at(times[(i + 1) % times.length]!), receivedAt: at(time), pricedAt: at(time) }) as Record<string, unknown>;
      expect([body.occurred_at, body.priced_at, body.received_at]).toEqual([times[(i + 1) % times.length], time, time]);
    }
    expect(() => usageEventBody({ ...priced, occurredAt: new Date(Number.NaN) })).toThrow(RangeError);
  });
});
