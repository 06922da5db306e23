// The hand-over from a catalog planner to the price store: each planned body is validated by the
// same schema as POST /v1/admin/prices and turned into the version the service stores, so an
// imported version can never hold what an operator could not enter. Pure.
import { countCatalogPlan, toPriceBody, type CatalogPlan, type CatalogPlanCounts, type DroppedField, type SkippedEntry } from './catalog-price-body.js';
import { REASON_LENGTH_MAX } from './litellm-entry-fields.js';
import { priceDraftFromBody, type PriceVersionDraft } from './price-terms.js';
import { createPriceSchema } from './pricing.schemas.js';

export interface CatalogDrafts {
  prices: PriceVersionDraft[];
  skipped: SkippedEntry[];
  dropped: DroppedField[];
  /** Of the plan (what the catalog holds), before any write. */
  counts: CatalogPlanCounts;
}

export function catalogPlanDrafts(plan: CatalogPlan): CatalogDrafts {
  const prices: PriceVersionDraft[] = [];
  const skipped = [...plan.skipped];
  for (const version of plan.versions) {
    const parsed = createPriceSchema.safeParse(toPriceBody(version));
    if (parsed.success) {
      prices.push(priceDraftFromBody(parsed.data));
      continue;
    }
    const issue = parsed.error.issues[0];
    const reason = `not a valid price body: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.slice(0, REASON_LENGTH_MAX);
    skipped.push({ model: version.model, variant: version.variant, code: 'invalid', reason });
  }
  return { prices, skipped, dropped: plan.dropped, counts: countCatalogPlan(plan) };
}
