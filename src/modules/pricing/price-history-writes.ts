// Which versions of a price-history import (genai-prices) to write, against the catalog as it is.
// History only fills in the past: a version at or after the (model, variant)'s earliest version
// from another source (an operator, a LiteLLM import) is superseded and not written. A version
// identical to the one it would follow changes nothing and is not written either. Pure.
import type { SkippedEntry } from './catalog-price-body.js';
import type { PriceCatalog } from './price-book.js';
import { samePriceTerms, type PriceVersionDraft } from './price-terms.js';
import type { PriceRecord } from './pricing.repository.js';
import type { PriceTerms } from './pricing.types.js';

export interface DatedDraft extends PriceVersionDraft {
  effectiveFrom: Date;
}

export interface HistoryWrites {
  insert: DatedDraft[];
  /** Already there at that instant, or the same terms as the version it would follow. */
  unchanged: number;
  /** At or after the earliest version from another source: that source wins from its date on. */
  superseded: number;
  /** A different version already starts at that instant (versions are immutable). */
  conflicts: SkippedEntry[];
}

export function planHistoryWrites(input: { planned: readonly DatedDraft[]; book: PriceCatalog<PriceRecord>; source: string }): HistoryWrites {
  const result: HistoryWrites = { insert: [], unchanged: 0, superseded: 0, conflicts: [] };
  const planned = [...input.planned].sort((a, b) => a.model.localeCompare(b.model) || a.variant.localeCompare(b.variant) || a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
  const accepted = new Map<string, DatedDraft[]>();
  for (const draft of planned) {
    const key = `${draft.model}\u0000${draft.variant}`;
    const existing = input.book.versionsOf(draft.model).filter((v) => v.variant === draft.variant);
    const cutoff = Math.min(...existing.filter((v) => v.source !== input.source).map((v) => v.effectiveFrom.getTime()));
    if (draft.effectiveFrom.getTime() >= cutoff) {
      result.superseded += 1;
      continue;
    }
    const same = existing.find((v) => v.effectiveFrom.getTime() === draft.effectiveFrom.getTime());
    if (same) {
      if (samePriceTerms(same, draft)) result.unchanged += 1;
      else result.conflicts.push({ model: draft.model, variant: draft.variant, code: 'conflict', reason: `a different version already starts at ${draft.effectiveFrom.toISOString()} (versions are immutable)` });
      continue;
    }
    const previous = latestBefore([...existing, ...(accepted.get(key) ?? [])], draft.effectiveFrom);
    if (previous && samePriceTerms(previous, draft)) {
      result.unchanged += 1;
      continue;
    }
    result.insert.push(draft);
    accepted.set(key, [...(accepted.get(key) ?? []), draft]);
  }
  return result;
}

function latestBefore<V extends PriceTerms & { effectiveFrom: Date }>(versions: readonly V[], at: Date): V | undefined {
  let latest: V | undefined;
  for (const version of versions) {
    if (version.effectiveFrom.getTime() < at.getTime() && (!latest || version.effectiveFrom.getTime() > latest.effectiveFrom.getTime())) latest = version;
  }
  return latest;
}
