import fc from 'fast-check';
import { parseMultiplier, parseUsdToAtto } from '../../common/money/index.js';
import { NO_EXTRA_PRICES, type PriceBook, type PriceVersion } from '../pricing/pricing.types.js';
import { normalizeEvent } from './usage-event.js';
import { planEvent, rollupDeltas, usageJournalDraft, type Multipliers } from './usage-planner.js';
import type { PlannedEvent } from './usage.types.js';

const multipliers: Multipliers = {
  userMarkup: parseMultiplier('1.3'),
  payoutByTier: { standard: parseMultiplier('1.1'), premium: parseMultiplier('1.2') },
};
const perMtok = (usd: string) => parseUsdToAtto(usd, { decimalsMax: 6 });
const gpt4o: PriceVersion = {
  id: 7n,
  model: 'openai/gpt-4o',
  inputAttoPerMtok: perMtok('2.5'),
  outputAttoPerMtok: perMtok('10'),
  cachedInputAttoPerMtok: perMtok('1.25'),
  ...NO_EXTRA_PRICES,
  variant: 'standard',
  effectiveFrom: new Date('2026-01-01T00:00:00Z'),
};
const book = (price: PriceVersion | null): PriceBook => ({ priceAt: (model, at) => (price && model === price.model && at >= price.effectiveFrom ? price : null) });
const tiers = (tier: 'standard' | 'premium' | null) => ({ tierAt: () => tier });
const now = new Date('2026-11-29T12:00:00Z');

function apiExample(overrides: Record<string, unknown> = {}) {
  return normalizeEvent(
    {
      event_id: 'gw1-req-123',
      user_id: 'u_42',
      contributor_id: 'c_7',
      model: 'openai/gpt-4o',
      occurred_at: '2026-11-29T10:00:00Z',
      usage: { prompt_tokens: 1200, completion_tokens: 350, cached_tokens: 200, reasoning_tokens: 0 },
      hold_id: 'h_1',
      metadata: { stream_id: 's' },
      ...overrides,
    } as never,
    { now, source: 'api' },
  );
}

describe('planEvent: the api.md example at 2.5 / 10 / 1.25 USD per Mtok', () => {
  it.each([
    ['standard', '0.006875', '0.00125'],
    ['premium', '0.0075', '0.000625'],
  ] as const)('prices a %s contributor exactly', (tier, payout, margin) => {
    const plan = planEvent(apiExample(), { prices: book(gpt4o), tiers: tiers(tier) }, multipliers)!;
    expect(plan.amounts).toEqual({
      officialAtto: parseUsdToAtto('0.00625'),
      chargeAtto: parseUsdToAtto('0.008125'),
      payoutAtto: parseUsdToAtto(payout),
      marginAtto: parseUsdToAtto(margin),
    });
    expect(plan.priceId).toBe(7n);
    expect(plan.payoutMultiplierText).toBe(tier === 'standard' ? '1.1' : '1.2');
  });

  it('bills cached tokens at the input price when the model has no cached price', () => {
    const plan = planEvent(apiExample(), { prices: book({ ...gpt4o, cachedInputAttoPerMtok: null }), tiers: tiers('standard') }, multipliers)!;
    // 1200 prompt at 2.5 + 350 completion at 10, per million
    expect(plan.amounts!.officialAtto).toBe(parseUsdToAtto('0.0065'));
  });

  it('marks the event unpriced when no price is in force, and unknown contributors as null', () => {
    expect(planEvent(apiExample({ occurred_at: '2025-12-31T23:59:59Z' }), { prices: book(gpt4o), tiers: tiers('standard') }, multipliers)!.amounts).toBeNull();
    expect(planEvent(apiExample(), { prices: book(gpt4o), tiers: tiers(null) }, multipliers)).toBeNull();
  });
});

describe('journal and rollups', () => {
  it('one balanced transaction per priced event; charge == payout + margin for any usage', () => {
    const usageArb = fc
      .record({ prompt: fc.integer({ min: 0, max: 2 ** 31 - 1 }), completion: fc.integer({ min: 0, max: 2 ** 31 - 1 }) })
      .chain(({ prompt, completion }) =>
        fc.record({
          prompt_tokens: fc.constant(prompt),
          completion_tokens: fc.constant(completion),
          cached_tokens: fc.integer({ min: 0, max: prompt }),
          reasoning_tokens: fc.integer({ min: 0, max: completion }),
        }),
      );
    const priceArb = fc.record({
      input: fc.bigInt({ min: 0n, max: 10n ** 12n }),
      output: fc.bigInt({ min: 0n, max: 10n ** 12n }),
      cached: fc.option(fc.bigInt({ min: 0n, max: 10n ** 12n })),
    });
    fc.assert(
      fc.property(usageArb, priceArb, fc.constantFrom('standard' as const, 'premium' as const), (usage, p, tier) => {
        // prices with at most 6 decimals per Mtok: micro-USD per Mtok * 10^12 atto
        const price = { ...gpt4o, inputAttoPerMtok: p.input * 10n ** 12n, outputAttoPerMtok: p.output * 10n ** 12n, cachedInputAttoPerMtok: p.cached === null ? null : p.cached * 10n ** 12n };
        const plan = planEvent(apiExample({ usage }), { prices: book(price), tiers: tiers(tier) }, multipliers)!;
        const a = plan.amounts!;
        expect(a.chargeAtto * 10n).toBe(a.officialAtto * 13n);
        expect(a.payoutAtto * 10n).toBe(a.officialAtto * (tier === 'standard' ? 11n : 12n));
        expect(a.chargeAtto).toBe(a.payoutAtto + a.marginAtto);
        const draft = usageJournalDraft(plan)!;
        expect(draft.postings.reduce((s, x) => s + x.amountAtto, 0n)).toBe(0n);
      }),
    );
  });

  it('sums priced events per contributor, UTC day and model', () => {
    const plans = ['2026-11-29T23:59:59Z', '2026-11-29T00:00:00Z', '2026-11-30T00:00:00Z'].map((at, i) =>
      planEvent(apiExample({ event_id: `e${i}`, occurred_at: at }), { prices: book(gpt4o), tiers: tiers('standard') }, multipliers)!,
    );
    const deltas = rollupDeltas(plans);
    expect(deltas.map((d) => [d.day, d.events])).toEqual([
      ['2026-11-29', 2n],
      ['2026-11-30', 1n],
    ]);
    expect(deltas[0]!.earnedAtto).toBe(2n * parseUsdToAtto('0.006875'));
  });
});

describe('normalizeEvent', () => {
  it('hashes only what was sent: a replay without occurred_at matches, a changed field does not', () => {
    const a = normalizeEvent({ event_id: 'e', user_id: 'u', contributor_id: 'c', model: 'm', usage: { prompt_tokens: 1, completion_tokens: 2, cached_tokens: 0, reasoning_tokens: 0 } }, { now, source: 'api' });
    const b = normalizeEvent({ event_id: 'e', user_id: 'u', contributor_id: 'c', model: 'm', usage: { prompt_tokens: 1, completion_tokens: 2, cached_tokens: 0, reasoning_tokens: 0 } }, { now: new Date(), source: 'queue' });
    const c = normalizeEvent({ event_id: 'e', user_id: 'u', contributor_id: 'c', model: 'm', usage: { prompt_tokens: 1, completion_tokens: 3, cached_tokens: 0, reasoning_tokens: 0 } }, { now, source: 'api' });
    expect(a.requestHash).toBe(b.requestHash);
    expect(a.requestHash).not.toBe(c.requestHash);
    expect(a.occurredAt).toEqual(now);
  });

  it('treats the same instant in another offset as the same payload', () => {
    const base = { event_id: 'e', user_id: 'u', contributor_id: 'c', model: 'm', usage: { prompt_tokens: 1, completion_tokens: 2, cached_tokens: 0, reasoning_tokens: 0 } };
    const utc = normalizeEvent({ ...base, occurred_at: '2026-11-29T10:00:00Z' }, { now, source: 'api' });
    const cet = normalizeEvent({ ...base, occurred_at: '2026-11-29T11:00:00+01:00' }, { now, source: 'api' });
    expect(utc.requestHash).toBe(cet.requestHash);
  });
});

describe('rollupDeltas', () => {
  // The straightforward version (bigint sums, day text per event), as a reference.
  function reference(plans: PlannedEvent[]) {
    const byKey = new Map<string, Record<string, unknown>>();
    for (const p of plans) {
      if (!p.amounts) continue;
      const day = p.event.occurredAt.toISOString().slice(0, 10);
      const key = `${p.event.contributorId}\u0000${day}\u0000${p.event.model}`;
      const d = (byKey.get(key) ?? { contributorId: p.event.contributorId, day, model: p.event.model, events: 0n, promptTokens: 0n, completionTokens: 0n, cachedTokens: 0n, cacheWriteTokens: 0n, audioTokens: 0n, officialAtto: 0n, earnedAtto: 0n, chargeAtto: 0n, marginAtto: 0n }) as Record<string, any>;
      d.events += 1n;
      d.promptTokens += BigInt(p.event.usage.promptTokens);
      d.completionTokens += BigInt(p.event.usage.completionTokens);
      d.cachedTokens += BigInt(p.event.usage.cachedTokens);
      d.cacheWriteTokens += BigInt(p.event.usage.cacheWrite5mTokens + p.event.usage.cacheWrite1hTokens);
      d.audioTokens += BigInt(p.event.usage.promptAudioTokens + p.event.usage.completionAudioTokens);
      d.officialAtto += p.amounts.officialAtto;
      d.earnedAtto += p.amounts.payoutAtto;
      d.chargeAtto += p.amounts.chargeAtto;
      d.marginAtto += p.amounts.marginAtto;
      byKey.set(key, d);
    }
    return [...byKey.values()];
  }

  it('equals the straightforward sums for any mix of days, contributors, models and unpriced events', () => {
    const eventArb = fc.record({
      at: fc.date({ min: new Date('1950-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
      contributor: fc.constantFrom('c1', 'c2', 'c3'),
      model: fc.constantFrom('openai/gpt-4o', 'other'),
      prompt: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      completion: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    });
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), (events) => {
        const plans = events.map((e, i) =>
          planEvent(
            apiExample({ event_id: `e${i}`, contributor_id: e.contributor, model: e.model, occurred_at: e.at.toISOString(), usage: { prompt_tokens: e.prompt, completion_tokens: e.completion, cached_tokens: 0, reasoning_tokens: 0 } }),
            { prices: book({ ...gpt4o, effectiveFrom: new Date('1900-01-01T00:00:00Z') }), tiers: tiers('standard') },
            multipliers,
          )!,
        );
        if (plans.length > 0) plans[0] = { ...plans[0]!, amounts: null };
        expect(rollupDeltas(plans)).toEqual(reference(plans));
      }),
    );
  });
});
