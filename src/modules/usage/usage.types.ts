import type { PricedAmounts } from '../pricing/pricing-math.js';
import type { TokenUsage } from '../pricing/pricing.types.js';
import type { RollupSums } from '../earnings/rollup-sums.js';
import type { NormalizedEvent, StreamDetails } from './usage-event.js';

export type ContributorTierName = 'standard' | 'premium';

/** What pricing decided for one event, before it is written. */
export interface PlannedEvent {
  event: NormalizedEvent;
  tier: ContributorTierName;
  priceId: bigint | null;
  userMarkupText: string | null;
  payoutMultiplierText: string | null;
  amounts: PricedAmounts | null;
  /** The payout goes to the contributor's pending account (PAYOUT_MATURITY_DAYS > 0). */
  payoutMaturing?: boolean;
}

/** A usage event as stored: every usage count it was billed on (TokenUsage), its variant and price version. */
export interface StoredEvent extends TokenUsage {
  id: bigint;
  eventId: string;
  requestHash: string;
  userId: string;
  contributorId: string;
  model: string;
  occurredAt: Date;
  receivedAt: Date;
  priceVariant: string;
  holdId: string | null;
  keyId: string | null;
  metadata: Record<string, unknown> | null;
  source: string;
  status: 'priced' | 'unpriced';
  priceId: bigint | null;
  contributorTier: ContributorTierName | null;
  userMarkup: string | null;
  payoutMultiplier: string | null;
  officialAtto: bigint | null;
  chargeAtto: bigint | null;
  payoutAtto: bigint | null;
  marginAtto: bigint | null;
  pricedAt: Date | null;
  stream: StreamDetails | null;
}

export type WriteOutcome =
  | { kind: 'created'; event: StoredEvent }
  | { kind: 'replayed'; event: StoredEvent }
  | { kind: 'conflict'; eventId: string }
  /** A replay of an event whose month was archived (same payload): docs/history.md, a 410 with its amounts. */
  | { kind: 'archived'; event: ArchivedEvent }
  | { kind: 'unknown_contributor'; eventId: string; contributorId: string };

/**
 * What is kept of an event after its month was archived (npm run archive): its key in
 * usage_event_keys and its journal entry, so a replay gets the original amounts.
 */
export interface ArchivedEvent {
  eventId: string;
  requestHash: string;
  occurredAt: Date;
  /** YYYY-MM */
  archivedMonth: string;
  userId: string | null;
  contributorId: string | null;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
  /** From usage_archived_events; null when unknown (see ARCHIVED_MODEL_UNKNOWN). */
  model: string | null;
}

/**
 * The model a refund of an archived event is summed under when it is not known: months archived
 * before usage_archived_events existed, where the contributor had several models that day.
 */
export const ARCHIVED_MODEL_UNKNOWN = 'unknown (archived)';

/**
 * What a refund needs of an event, whether its row is stored or its month was archived (then
 * read from its usage journal entry, key and usage_archived_events: docs/history.md).
 */
export interface RefundableEvent {
  eventId: string;
  status: 'priced' | 'unpriced';
  userId: string;
  contributorId: string;
  model: string;
  occurredAt: Date;
  chargeAtto: bigint | null;
  payoutAtto: bigint | null;
  /** YYYY-MM when the event's month was archived, else null. */
  archivedMonth: string | null;
}

/** What a set of priced events adds to one per contributor/UTC day/model row of the earnings rollup. */
export interface RollupDelta extends RollupSums {
  contributorId: string;
  day: string;
  model: string;
}
