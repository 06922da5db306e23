// API body of a contributor (checksummed address as stored, instants as ISO strings).
import type { ContributorJson } from './contributors.schemas.js';
import type { Contributor } from './contributors.types.js';

export function toContributorJson(contributor: Contributor): ContributorJson {
  return {
    id: contributor.id,
    tier: contributor.tier,
    payout_address: contributor.payoutAddress,
    status: contributor.status,
    flagged_reason: contributor.flaggedReason,
    created_at: contributor.createdAt.toISOString(),
    updated_at: contributor.updatedAt.toISOString(),
  };
}
