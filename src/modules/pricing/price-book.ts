// The in-memory price catalog: every version of every model, answering "which price was in force
// at this instant" with a binary search. Pure: built from rows, never touches the database.
import { assert } from '../../common/errors/index.js';
import type { PriceBook, PriceVersion } from './pricing.types.js';
import { lastIndexAtOrBefore } from '../../common/collections/sorted-search.js';

export interface PriceCatalog<V extends PriceVersion = PriceVersion> extends PriceBook {
  /** The version with the greatest effective_from <= at, or null (no price in force then). */
  priceAt(model: string, at: Date): V | null;
  /** Every version of the model, oldest first; empty for an unknown model. */
  versionsOf(model: string): readonly V[];
  /** Model names, sorted. */
  models(): readonly string[];
  readonly versionCount: number;
}

interface ModelVersions<V> {
  versions: readonly V[];
  /** effective_from of versions[i] in epoch ms, for the search without Date allocations. */
  effectiveFromMs: readonly number[];
}

export function createPriceBook<V extends PriceVersion>(versions: readonly V[]): PriceCatalog<V> {
  const grouped = new Map<string, V[]>();
  for (const version of versions) {
    const list = grouped.get(version.model);
    if (list) list.push(version);
    else grouped.set(version.model, [version]);
  }
  const byModel = new Map<string, ModelVersions<V>>();
  for (const [model, list] of grouped) {
    list.sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
    const effectiveFromMs = list.map((v) => v.effectiveFrom.getTime());
    for (let i = 1; i < effectiveFromMs.length; i += 1) {
      // The table's unique (model, effective_from) makes two versions at one instant impossible.
      assert(effectiveFromMs[i - 1]! < effectiveFromMs[i]!, `two price versions of ${model} at the same effective_from`);
    }
    byModel.set(model, { versions: Object.freeze(list), effectiveFromMs });
  }
  const models = Object.freeze([...byModel.keys()].sort());
  return Object.freeze({
    versionCount: versions.length,
    priceAt: (model: string, at: Date) => {
      const entry = byModel.get(model);
      if (!entry) return null;
      const index = lastIndexAtOrBefore(entry.effectiveFromMs, at.getTime());
      return index < 0 ? null : entry.versions[index]!;
    },
    versionsOf: (model: string) => byModel.get(model)?.versions ?? [],
    models: () => models,
  });
}


export interface CurrentPrice<V> {
  current: V;
  /** The earliest version scheduled after `now`, if any. */
  next: V | null;
}

export interface CatalogSummary<V> {
  /** One entry per model with a version in force at `now`. */
  inForce: CurrentPrice<V>[];
  /** Models whose first version is still in the future: that first version. */
  upcoming: V[];
}

export function summarizeCatalog<V extends PriceVersion>(book: PriceCatalog<V>, now: Date): CatalogSummary<V> {
  const inForce: CurrentPrice<V>[] = [];
  const upcoming: V[] = [];
  for (const model of book.models()) {
    const versions = book.versionsOf(model);
    const current = book.priceAt(model, now);
    const next = versions.find((v) => v.effectiveFrom.getTime() > now.getTime()) ?? null;
    if (current) inForce.push({ current, next });
    else if (next) upcoming.push(next);
  }
  return { inForce, upcoming };
}
