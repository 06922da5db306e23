// Pure: every contributor's tier history in memory, answering "which tier at this instant".
import type { ContributorTier, TierBook, TierVersion } from './contributors.types.js';
import { lastIndexAtOrBefore } from '../../common/collections/sorted-search.js';

interface TierHistory {
  tiers: readonly ContributorTier[];
  effectiveFromMs: readonly number[];
}

/**
 * Two rows of one contributor may share an instant (two changes within a millisecond): the later
 * row (greater id) wins, as it was written last.
 */
export function createTierBook(versions: readonly TierVersion[]): TierBook {
  const grouped = new Map<string, TierVersion[]>();
  for (const version of versions) {
    const list = grouped.get(version.contributorId);
    if (list) list.push(version);
    else grouped.set(version.contributorId, [version]);
  }
  const byContributor = new Map<string, TierHistory>();
  for (const [contributorId, list] of grouped) {
    list.sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    byContributor.set(contributorId, { tiers: list.map((v) => v.tier), effectiveFromMs: list.map((v) => v.effectiveFrom.getTime()) });
  }
  return Object.freeze({
    contributorCount: byContributor.size,
    tierAt: (contributorId: string, at: Date) => {
      const history = byContributor.get(contributorId);
      if (!history) return null;
      // Before its first row (1970, TIER_HISTORY_START) a registered contributor has its first tier:
      // an event that occurred before 1970 was refused as an unknown contributor.
      const index = lastIndexAtOrBefore(history.effectiveFromMs, at.getTime());
      return history.tiers[Math.max(index, 0)]!;
    },
  });
}

