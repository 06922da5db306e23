import type { PricedAmounts } from '../pricing/pricing-math.js';
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
}

/** A usage event as stored. */
export interface StoredEvent {
  id: bigint;
  eventId: string;
  requestHash: string;
  userId: string;
  contributorId: string;
  model: string;
  occurredAt: Date;
  receivedAt: Date;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  holdId: string | null;
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
  | { kind: 'unknown_contributor'; eventId: string; contributorId: string };
