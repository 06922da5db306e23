// The in-memory price catalog: every version of every (model, variant), answering "which price was
// in force at this instant" with a binary search. Pure: built from rows, never touches the database.
import { assert } from '../../common/errors/index.js';
import { DEFAULT_PRICE_VARIANT, type PriceBook, type PriceVersion } from './pricing.types.js';
import { lastIndexAtOrBefore } from '../../common/collections/sorted-search.js';

export interface PriceCatalog<V extends PriceVersion = PriceVersion> extends PriceBook {
  /**
   * The version of (model, variant) with the greatest effective_from <= at, or null (no price in
   * force then). Never another variant's: an event of a variant without a version is unpriced.
   */
  priceAt(model: string, at: Date, variant?: string): V | null;
  /** Every version of the model, all variants, ordered by variant then oldest first; empty for an unknown model. */
  versionsOf(model: string): readonly V[];
  /** Model names, sorted. */
  models(): readonly string[];
  /** The model's variants, sorted. */
  variantsOf(model: string): readonly string[];
  readonly versionCount: number;
}

interface VariantVersions<V> {
  versions: readonly V[];
  /** effective_from of versions[i] in epoch ms, for the search without Date allocations. */
  effectiveFromMs: readonly number[];
}

/** The lookup key of a (model, variant); the NUL cannot occur in either. */
const keyOf = (model: string, variant: string) => (variant === DEFAULT_PRICE_VARIANT ? model : `${model}\u0000${variant}`);

export function createPriceBook<V extends PriceVersion>(versions: readonly V[]): PriceCatalog<V> {
  const grouped = new Map<string, V[]>();
  const variantsByModel = new Map<string, Set<string>>();
  for (const version of versions) {
    const key = keyOf(version.model, version.variant);
    const list = grouped.get(key);
    if (list) list.push(version);
    else grouped.set(key, [version]);
    let variants = variantsByModel.get(version.model);
    if (!variants) variantsByModel.set(version.model, (variants = new Set()));
    variants.add(version.variant);
  }
  const byKey = new Map<string, VariantVersions<V>>();
  for (const [key, list] of grouped) {
    list.sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime());
    const effectiveFromMs = list.map((v) => v.effectiveFrom.getTime());
    for (let i = 1; i < effectiveFromMs.length; i += 1) {
      // The table's unique (model, variant, effective_from) makes two versions at one instant impossible.
      assert(effectiveFromMs[i - 1]! < effectiveFromMs[i]!, `two price versions of ${list[0]!.model} (${list[0]!.variant}) at the same effective_from`);
    }
    byKey.set(key, { versions: Object.freeze(list), effectiveFromMs });
  }
  const variantsOf = new Map<string, readonly string[]>();
  const versionsOf = new Map<string, readonly V[]>();
  for (const [model, variants] of variantsByModel) {
    const sorted = Object.freeze([...variants].sort());
    variantsOf.set(model, sorted);
    versionsOf.set(model, Object.freeze(sorted.flatMap((variant) => byKey.get(keyOf(model, variant))!.versions)));
  }
  const models = Object.freeze([...variantsByModel.keys()].sort());
  return Object.freeze({
    versionCount: versions.length,
    priceAt: (model: string, at: Date, variant: string = DEFAULT_PRICE_VARIANT) => {
      const entry = byKey.get(keyOf(model, variant));
      if (!entry) return null;
      const index = lastIndexAtOrBefore(entry.effectiveFromMs, at.getTime());
      return index < 0 ? null : entry.versions[index]!;
    },
    versionsOf: (model: string) => versionsOf.get(model) ?? [],
    variantsOf: (model: string) => variantsOf.get(model) ?? [],
    models: () => models,
  });
}

export interface CurrentPrice<V> {
  current: V;
  /** The earliest version of the same (model, variant) scheduled after `now`, if any. */
  next: V | null;
}

export interface CatalogSummary<V> {
  /** One entry per (model, variant) with a version in force at `now`. */
  inForce: CurrentPrice<V>[];
  /** (model, variant)s whose first version is still in the future: that first version. */
  upcoming: V[];
}

export function summarizeCatalog<V extends PriceVersion>(book: PriceCatalog<V>, now: Date): CatalogSummary<V> {
  const inForce: CurrentPrice<V>[] = [];
  const upcoming: V[] = [];
  for (const model of book.models()) {
    const versions = book.versionsOf(model);
    for (const variant of book.variantsOf(model)) {
      const current = book.priceAt(model, now, variant);
      const next = versions.find((v) => v.variant === variant && v.effectiveFrom.getTime() > now.getTime()) ?? null;
      if (current) inForce.push({ current, next });
      else if (next) upcoming.push(next);
    }
  }
  return { inForce, upcoming };
}
