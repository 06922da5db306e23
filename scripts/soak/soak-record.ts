// The soak's own record of what it did and what the service answered, and its own arithmetic
// (bigint, never the service's code): the prices it set, every event it sent with the instant it
// occurred, the credits and refunds the service accepted, every payout address it gave a
// contributor. The invariants compare the database and the chain with this record.
import type { Address } from 'viem';
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { CONTRIBUTORS, type PlannedUsage } from './soak-schedule.js';

const TOKENS_PER_MTOK = 1_000_000n;
const USER_MARKUP = { num: 13n, den: 10n };
const PAYOUT_BY_TIER = { standard: { num: 11n, den: 10n }, premium: { num: 12n, den: 10n } } as const;

export const usdToAtto = (usd: string): bigint => parseUsdToAtto(usd, { allowNegative: true });
export const formatAtto = formatAttoAsUsd;

export interface PriceVersion {
  effectiveFromMs: number;
  inputAttoPerMtok: bigint;
  outputAttoPerMtok: bigint;
  cachedAttoPerMtok: bigint;
}

export type EventPath = 'single' | 'batch' | 'stream' | 'response' | 'queue' | 'litellm_push' | 'litellm_pull' | 'sdk' | 'hold';

export interface EventRecord {
  event_id: string;
  user_id: string;
  contributor_id: string;
  model: string;
  occurredAt: string;
  occurredMs: number;
  usage: PlannedUsage;
  path: EventPath;
  /** accepted: the service (or the SDK outbox, the queue, LiteLLM's table) took it; must be billed. */
  state: 'accepted' | 'unknown' | 'refused';
  acceptedStep: number;
  holdId?: string;
  /** The end user's key the event names (budget_holds only). */
  keyId?: string;
  /**
   * The instant it was priced at: occurred_at, or the receipt time when occurred_at was ahead of
   * the server's clock (api.md's future skew; usage-event.ts occurredAtAsPriced). Set from the
   * stored receipt time when its journal entry is seen.
   */
  pricedAtMs?: number;
  /** litellm_pull: the pull's count of completed runs once the row was due (soak-litellm-pull.ts). */
  sweepRunsWhenDue?: number;
}

/** A credit grant the service confirmed (its id is the credit's reference). */
export interface GrantRecord {
  grantId: string;
  userId: string;
  amountAtto: bigint;
  expiresAtMs: number;
}

/** A PUT the soak sent (auto top-up settings or balance thresholds), with when it was sent and answered. */
export interface SpendSetting {
  userId: string;
  sentMs: number;
  /** Infinity until answered (an unknown answer may still have been applied). */
  doneMs: number;
  /** false: the service refused it (nothing applied). */
  applied: boolean;
  /** Auto top-up (null for thresholds). */
  topup: { belowAtto: bigint; amountAtto: bigint; maxPerMonthAtto: bigint; enabled: boolean } | null;
  /** Balance thresholds (null for auto top-up). */
  thresholdsAtto: bigint[] | null;
}

export interface Expected {
  officialAtto: bigint;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
}

export interface DrainWait {
  step: number;
  final: boolean;
  wait_s: number;
  pull_runs: number;
  longest_still_s: number;
  load: string;
}

export class SoakRecord {
  readonly prices = new Map<string, PriceVersion[]>();
  readonly events = new Map<string, EventRecord>();
  /** Credits the service confirmed, per user (atto). */
  readonly credits = new Map<string, bigint>();
  /** Refunded total per event (atto), as the soak asked and the service confirmed. */
  readonly refunded = new Map<string, bigint>();
  readonly addresses = new Map<string, Address[]>();
  /** The latest instant any event was planned to occur at: a new price version starts after it. */
  maxOccurredMs = 0;
  latePriceStep: number | null = null;
  /** The last step whose reprice completed after the late price was set. */
  repricedAfterLateStep: number | null = null;
  settlementIds = new Set<string>();
  /** The charge of every event whose usage journal entry the invariants saw (billed_exactly_once checked it). */
  readonly billedCharge = new Map<string, bigint>();
  /** Credit grants the service confirmed, by grant id. */
  readonly grants = new Map<string, GrantRecord>();
  /** Credits the service confirmed, by reference (a conflicting replay names one of them). */
  readonly confirmedCredits = new Map<string, { user_id: string; amount_usd: string; grant?: { expires_at: string; name: string } }>();
  /** Auto top-up and balance threshold PUTs, in the order sent (those ops run alone). */
  readonly spendSettings: SpendSetting[] = [];
  /** Top-up requests the soak answered (credited or failed), by request id. */
  readonly answeredTopups = new Map<string, 'credit' | 'fail'>();
  /** Invalid credits refused (400), conflicting replays refused (409). */
  readonly refusedCredits = { invalid: 0, conflict: 0 };
  /** budget_holds: holds let through, refused for a budget (402 budget_exceeded), refused otherwise. */
  readonly budgetHolds = { taken: 0, budget_exceeded: 0, other: 0 };
  /** Each drain's wait: seconds, completed pull runs meanwhile, the longest spell without progress, the load. */
  readonly drainWaits: DrainWait[] = [];

  addPrice(model: string, version: PriceVersion): void {
    const list = this.prices.get(model) ?? [];
    list.push(version);
    list.sort((a, b) => a.effectiveFromMs - b.effectiveFromMs);
    this.prices.set(model, list);
  }

  priceAt(model: string, atMs: number): PriceVersion | null {
    const list = this.prices.get(model) ?? [];
    let found: PriceVersion | null = null;
    for (const v of list) if (v.effectiveFromMs <= atMs) found = v;
    return found;
  }

  /** charge = official x 1.3, payout = official x tier, exact to the atto; null = no price in force. */
  expected(event: EventRecord): Expected | null {
    const price = this.priceAt(event.model, event.pricedAtMs ?? event.occurredMs);
    if (price === null) return null;
    const u = event.usage;
    const scaled = BigInt(u.prompt - u.cached) * price.inputAttoPerMtok + BigInt(u.cached) * price.cachedAttoPerMtok + BigInt(u.completion) * price.outputAttoPerMtok;
    if (scaled % TOKENS_PER_MTOK !== 0n) throw new Error(`soak oracle: price of ${event.model} not exact per token`);
    const officialAtto = scaled / TOKENS_PER_MTOK;
    const tier = CONTRIBUTORS.find((c) => c.id === event.contributor_id)!.tier;
    const chargeAtto = exactRatio(officialAtto, USER_MARKUP);
    const payoutAtto = exactRatio(officialAtto, PAYOUT_BY_TIER[tier]);
    return { officialAtto, chargeAtto, payoutAtto, marginAtto: chargeAtto - payoutAtto };
  }

  addCredit(userId: string, atto: bigint): void {
    this.credits.set(userId, (this.credits.get(userId) ?? 0n) + atto);
  }

  addGrant(grant: GrantRecord): void {
    this.grants.set(grant.grantId, grant);
  }

  /** Clawback of a refund total: floor(refunded x payout / charge) (api.md). */
  static clawback(refundedAtto: bigint, e: Expected): bigint {
    return e.chargeAtto === 0n ? 0n : (refundedAtto * e.payoutAtto) / e.chargeAtto;
  }
}

function exactRatio(value: bigint, ratio: { num: bigint; den: bigint }): bigint {
  const scaled = value * ratio.num;
  if (scaled % ratio.den !== 0n) throw new Error(`soak oracle: ${value} x ${ratio.num}/${ratio.den} is not exact`);
  return scaled / ratio.den;
}
