// Writes usage the way the ingestion writer does, straight into a test database: usage_events
// rows, the per contributor/day/model rollup and one journal entry per priced event (through the
// real LedgerService, so stored balances stay equal to postings), all in one transaction.
// Use it where a test needs many events at chosen past times and tiers, faster than HTTP.
import { parseMultiplier, parseUsdToAtto } from '../../src/common/money/index.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { contributorPayable, PLATFORM_REVENUE, userAccount } from '../../src/modules/ledger/account-codes.js';
import type { JournalDraft } from '../../src/modules/ledger/journal-draft.js';
import { LedgerService } from '../../src/modules/ledger/ledger.service.js';
import { priceUsage, type PricedAmounts } from '../../src/modules/pricing/pricing-math.js';
import { DEFAULT_PRICE_VARIANT, NO_EXTRA_PRICES, NO_EXTRA_USAGE, type PriceVersion } from '../../src/modules/pricing/pricing.types.js';
import type { TestApp } from '../support/test-app.js';

export type Tier = 'standard' | 'premium';
const USER_MARKUP = parseMultiplier('1.3');
export const PAYOUT_MULTIPLIERS: Record<Tier, ReturnType<typeof parseMultiplier>> = {
  standard: parseMultiplier('1.1'),
  premium: parseMultiplier('1.2'),
};

export interface SeedEvent {
  eventId: string;
  userId: string;
  contributorId: string;
  model: string;
  occurredAt: Date;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
}

export interface WrittenEvent extends SeedEvent {
  tier: Tier;
  priceId: bigint | null;
  /** null when no price was in force (stored as unpriced). */
  amounts: PricedAmounts | null;
}

export interface SeedContributor {
  id: string;
  /** Tier history, oldest first; the last one is the current tier. */
  tiers: Array<{ tier: Tier; effectiveFrom: Date }>;
  payoutAddress?: string;
  status?: 'active' | 'suspended';
}


export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export class UsageFactory {
  private readonly db: DatabaseService;
  private readonly ledger: LedgerService;
  private readonly prices: PriceVersion[] = [];
  private readonly tiers = new Map<string, SeedContributor['tiers']>();

  constructor(t: TestApp) {
    this.db = t.app.get(DatabaseService, { strict: false });
    this.ledger = t.app.get(LedgerService, { strict: false });
  }

  async price(input: { model: string; inputUsdPerMtok: string; outputUsdPerMtok: string; cachedInputUsdPerMtok?: string; effectiveFrom: Date }): Promise<PriceVersion> {
    const perMtok = (text: string) => parseUsdToAtto(text, { decimalsMax: 6 });
    const version = {
      ...NO_EXTRA_PRICES,
      model: input.model,
      variant: DEFAULT_PRICE_VARIANT,
      inputAttoPerMtok: perMtok(input.inputUsdPerMtok),
      outputAttoPerMtok: perMtok(input.outputUsdPerMtok),
      cachedInputAttoPerMtok: input.cachedInputUsdPerMtok === undefined ? null : perMtok(input.cachedInputUsdPerMtok),
      effectiveFrom: input.effectiveFrom,
    };
    const result = await this.db.pool.query<{ id: string }>(
      `INSERT INTO prices (model, input_atto_per_mtok, output_atto_per_mtok, cached_input_atto_per_mtok, effective_from, source)
       VALUES ($1, $2, $3, $4, $5, 'test') RETURNING id`,
      [version.model, version.inputAttoPerMtok.toString(), version.outputAttoPerMtok.toString(), version.cachedInputAttoPerMtok?.toString() ?? null, version.effectiveFrom],
    );
    const price = { id: BigInt(result.rows[0]!.id), ...version };
    this.prices.push(price);
    return price;
  }

  async contributor(input: SeedContributor): Promise<void> {
    const current = input.tiers.at(-1)!;
    await this.db.pool.query(
      `INSERT INTO contributors (id, tier, payout_address, status) VALUES ($1, $2, $3, $4)`,
      [input.id, current.tier, input.payoutAddress ?? `0x${'ab'.repeat(20)}`, input.status ?? 'active'],
    );
    for (const tier of input.tiers) {
      await this.db.pool.query('INSERT INTO contributor_tiers (contributor_id, tier, effective_from) VALUES ($1, $2, $3)', [input.id, tier.tier, tier.effectiveFrom]);
    }
    this.tiers.set(input.id, input.tiers);
  }

  tierAt(contributorId: string, at: Date): Tier {
    const history = this.tiers.get(contributorId);
    if (!history) throw new Error(`factory: unknown contributor ${contributorId}`);
    const inForce = history.filter((h) => h.effectiveFrom.getTime() <= at.getTime()).at(-1);
    if (!inForce) throw new Error(`factory: ${contributorId} has no tier at ${at.toISOString()}`);
    return inForce.tier;
  }

  priceAt(model: string, at: Date): PriceVersion | null {
    const versions = this.prices.filter((p) => p.model === model && p.effectiveFrom.getTime() <= at.getTime());
    versions.sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
    return versions.at(-1) ?? null;
  }

  /** Prices and writes events like the ingestion writer, in one transaction. */
  async events(seeds: SeedEvent[]): Promise<WrittenEvent[]> {
    const written = seeds.map((seed) => this.plan(seed));
    await this.db.transaction(async (client) => {
      await client.query(
        `INSERT INTO usage_events (event_id, request_hash, user_id, contributor_id, model, occurred_at, prompt_tokens,
           completion_tokens, cached_tokens, reasoning_tokens, source, status, price_id, contributor_tier, user_markup,
           payout_multiplier, official_atto, charge_atto, payout_atto, margin_atto, priced_at)
         SELECT event_id, 'factory', user_id, contributor_id, model, occurred_at, prompt_tokens, completion_tokens, cached_tokens,
           reasoning_tokens, 'test', status, price_id, contributor_tier, user_markup, payout_multiplier, official_atto, charge_atto,
           payout_atto, margin_atto, CASE WHEN status = 'priced' THEN now() END
         FROM json_to_recordset($1::json) AS x(event_id text, user_id text, contributor_id text, model text, occurred_at timestamptz,
           prompt_tokens int, completion_tokens int, cached_tokens int, reasoning_tokens int, status text, price_id bigint,
           contributor_tier text, user_markup text, payout_multiplier text, official_atto numeric, charge_atto numeric,
           payout_atto numeric, margin_atto numeric)`,
        [JSON.stringify(written.map(toEventRow))],
      );
      await this.upsertRollups(client, written);
      await this.ledger.post(client, written.map(journalDraft).filter((d): d is JournalDraft => d !== null));
    });
    return written;
  }

  private plan(seed: SeedEvent): WrittenEvent {
    const tier = this.tierAt(seed.contributorId, seed.occurredAt);
    const price = this.priceAt(seed.model, seed.occurredAt);
    const amounts = price
      ? priceUsage({
          usage: { ...NO_EXTRA_USAGE, promptTokens: seed.promptTokens, completionTokens: seed.completionTokens, cachedTokens: seed.cachedTokens, reasoningTokens: seed.reasoningTokens },
          price,
          userMarkup: USER_MARKUP,
          payoutMultiplier: PAYOUT_MULTIPLIERS[tier],
        })
      : null;
    return { ...seed, tier, priceId: price?.id ?? null, amounts };
  }

  private async upsertRollups(client: Parameters<Parameters<DatabaseService['transaction']>[0]>[0], events: WrittenEvent[]): Promise<void> {
    const byKey = new Map<string, { contributor_id: string; day: string; model: string; events: number; pt: bigint; ct: bigint; cached: bigint; o: bigint; e: bigint; c: bigint; m: bigint }>();
    for (const ev of events) {
      if (!ev.amounts) continue;
      const key = `${ev.contributorId}\u0000${utcDay(ev.occurredAt)}\u0000${ev.model}`;
      const row = byKey.get(key) ?? { contributor_id: ev.contributorId, day: utcDay(ev.occurredAt), model: ev.model, events: 0, pt: 0n, ct: 0n, cached: 0n, o: 0n, e: 0n, c: 0n, m: 0n };
      row.events += 1;
      row.pt += BigInt(ev.promptTokens);
      row.ct += BigInt(ev.completionTokens);
      row.cached += BigInt(ev.cachedTokens);
      row.o += ev.amounts.officialAtto;
      row.e += ev.amounts.payoutAtto;
      row.c += ev.amounts.chargeAtto;
      row.m += ev.amounts.marginAtto;
      byKey.set(key, row);
    }
    const rows = [...byKey.values()].map((r) => ({ ...r, pt: r.pt.toString(), ct: r.ct.toString(), cached: r.cached.toString(), o: r.o.toString(), e: r.e.toString(), c: r.c.toString(), m: r.m.toString() }));
    await client.query(
      `INSERT INTO contributor_usage_daily AS r (contributor_id, day, model, events, prompt_tokens, completion_tokens, cached_tokens, official_atto, earned_atto, charge_atto, margin_atto)
       SELECT contributor_id, day, model, events, pt, ct, cached, o, e, c, m
       FROM json_to_recordset($1::json) AS x(contributor_id text, day date, model text, events bigint, pt bigint, ct bigint, cached bigint, o numeric, e numeric, c numeric, m numeric)
       ORDER BY contributor_id, day, model
       ON CONFLICT (contributor_id, day, model) DO UPDATE SET
         events = r.events + excluded.events, prompt_tokens = r.prompt_tokens + excluded.prompt_tokens,
         completion_tokens = r.completion_tokens + excluded.completion_tokens, cached_tokens = r.cached_tokens + excluded.cached_tokens, official_atto = r.official_atto + excluded.official_atto,
         earned_atto = r.earned_atto + excluded.earned_atto, charge_atto = r.charge_atto + excluded.charge_atto,
         margin_atto = r.margin_atto + excluded.margin_atto`,
      [JSON.stringify(rows)],
    );
  }
}

function toEventRow(ev: WrittenEvent) {
  const a = ev.amounts;
  return {
    event_id: ev.eventId,
    user_id: ev.userId,
    contributor_id: ev.contributorId,
    model: ev.model,
    occurred_at: ev.occurredAt.toISOString(),
    prompt_tokens: ev.promptTokens,
    completion_tokens: ev.completionTokens,
    cached_tokens: ev.cachedTokens,
    reasoning_tokens: ev.reasoningTokens,
    status: a ? 'priced' : 'unpriced',
    price_id: ev.priceId?.toString() ?? null,
    contributor_tier: a ? ev.tier : null,
    user_markup: a ? USER_MARKUP.text : null,
    payout_multiplier: a ? PAYOUT_MULTIPLIERS[ev.tier].text : null,
    official_atto: a?.officialAtto.toString() ?? null,
    charge_atto: a?.chargeAtto.toString() ?? null,
    payout_atto: a?.payoutAtto.toString() ?? null,
    margin_atto: a?.marginAtto.toString() ?? null,
  };
}

/** One journal transaction per priced event, exactly as usage ingestion posts it. */
function journalDraft(ev: WrittenEvent): JournalDraft | null {
  if (!ev.amounts) return null;
  return {
    kind: 'usage',
    ref: ev.eventId,
    postings: [
      { accountCode: userAccount(ev.userId), amountAtto: -ev.amounts.chargeAtto },
      { accountCode: contributorPayable(ev.contributorId), amountAtto: ev.amounts.payoutAtto },
      { accountCode: PLATFORM_REVENUE, amountAtto: ev.amounts.marginAtto },
    ],
  };
}

/** Random events over the given days (uniform time within each day). */
export function randomEvents(
  random: () => number,
  input: { count: number; prefix: string; contributors: readonly string[]; models: readonly string[]; users: readonly string[]; days: readonly Date[] },
): SeedEvent[] {
  return Array.from({ length: input.count }, (_, i) => {
    const day = pick(random, input.days);
    const promptTokens = Math.floor(random() * 5000);
    const completionTokens = Math.floor(random() * 2000);
    return {
      eventId: `${input.prefix}-${i}`,
      userId: pick(random, input.users),
      contributorId: pick(random, input.contributors),
      model: pick(random, input.models),
      occurredAt: new Date(day.getTime() + Math.floor(random() * 86_400_000)),
      promptTokens,
      completionTokens,
      cachedTokens: Math.floor(random() * (promptTokens + 1) * (random() < 0.5 ? 0 : 1)),
      reasoningTokens: Math.floor(random() * (completionTokens + 1) * (random() < 0.5 ? 0 : 1)),
    };
  });
}
