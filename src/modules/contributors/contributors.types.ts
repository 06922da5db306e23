// Shapes of the contributor registry, shared with the usage and settlement modules.
import type { Address } from 'viem';

export const CONTRIBUTOR_TIERS = ['standard', 'premium'] as const;
export type ContributorTier = (typeof CONTRIBUTOR_TIERS)[number];

export const CONTRIBUTOR_STATUSES = ['active', 'suspended'] as const;
export type ContributorStatus = (typeof CONTRIBUTOR_STATUSES)[number];

export interface Contributor {
  id: string;
  /** The tier in force now; the history (which tier at which instant) is in the tier book. */
  tier: ContributorTier;
  /** EIP-55 checksummed. */
  payoutAddress: Address;
  status: ContributorStatus;
  flaggedReason: string | null;
  /** When the current payout address was proven by its own signature; null: unproven. */
  payoutAddressProvenAt: Date | null;
  /** When the payout address last changed (null: never changed since first set): the cool-down starts here. */
  payoutAddressChangedAt: Date | null;
  /** Set while the usage audit holds this contributor's payouts (USAGE_AUDIT_HOLD) until a review. */
  underReviewSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What the payout sender re-reads (locked) when it sends a contributor's line. */
export type PayeeState = Pick<
  Contributor,
  'id' | 'status' | 'payoutAddress' | 'flaggedReason' | 'payoutAddressProvenAt' | 'payoutAddressChangedAt' | 'underReviewSince'
>;

/** One row of contributor_tiers: `tier` applies from effectiveFrom on. */
export interface TierVersion {
  id: bigint;
  contributorId: string;
  tier: ContributorTier;
  effectiveFrom: Date;
}

/** An immutable view of every contributor's tier history. */
export interface TierBook {
  /** The tier in force at `at`; null when the contributor is unknown (not registered). */
  tierAt(contributorId: string, at: Date): ContributorTier | null;
  readonly contributorCount: number;
}
