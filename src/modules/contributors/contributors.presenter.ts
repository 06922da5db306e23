// API body of a contributor (checksummed address as stored, instants as ISO strings).
import type { ContributorJson, PayoutAddressStateJson } from './contributors.schemas.js';
import type { Contributor } from './contributors.types.js';
import { payableFrom } from './payout-address-change.js';

export function toContributorJson(contributor: Contributor, cooldownHours: number): ContributorJson {
  return {
    id: contributor.id,
    tier: contributor.tier,
    payout_address: contributor.payoutAddress,
    status: contributor.status,
    flagged_reason: contributor.flaggedReason,
    ...payoutAddressState(contributor, cooldownHours),
    under_review_since: contributor.underReviewSince?.toISOString() ?? null,
    created_at: contributor.createdAt.toISOString(),
    updated_at: contributor.updatedAt.toISOString(),
  };
}

/** Proof and cool-down of the current payout address (the portal shows when it becomes payable). */
export function payoutAddressState(contributor: Contributor, cooldownHours: number): Omit<PayoutAddressStateJson, 'contributor_id' | 'payout_address'> {
  return {
    payout_address_proven: contributor.payoutAddressProvenAt !== null,
    payout_address_proven_at: contributor.payoutAddressProvenAt?.toISOString() ?? null,
    payout_address_changed_at: contributor.payoutAddressChangedAt?.toISOString() ?? null,
    payout_address_payable_from: payableFrom(contributor.payoutAddressChangedAt, cooldownHours)?.toISOString() ?? null,
  };
}
