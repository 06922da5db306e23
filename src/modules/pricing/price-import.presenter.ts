// The JSON of the two catalog imports (docs/api.md "Prices (admin)").
import type { CatalogPlanCounts, DroppedField, SkippedEntry } from './catalog-price-body.js';
import type { GenaiPricesImportResult, LitellmImportResult } from './pricing.service.js';

export function toLitellmImportJson(result: LitellmImportResult) {
  return {
    effective_from: result.effectiveFrom.toISOString(),
    imported: result.imported,
    unchanged: result.unchanged,
    skipped: result.skipped.map(toSkippedJson),
    dropped: result.dropped.map(toDroppedJson),
    catalog: toCountsJson(result.counts),
  };
}

export function toGenaiImportJson(result: GenaiPricesImportResult) {
  return {
    models_requested: result.modelsRequested,
    models_matched: result.modelsMatched,
    imported: result.imported,
    unchanged: result.unchanged,
    superseded: result.superseded,
    skipped: result.skipped.map(toSkippedJson),
    dropped: result.dropped.map(toDroppedJson),
    catalog: toCountsJson(result.counts),
  };
}

function toSkippedJson(skip: SkippedEntry) {
  return { model: skip.model, ...(skip.variant === undefined ? {} : { variant: skip.variant }), code: skip.code, reason: skip.reason };
}

function toDroppedJson(drop: DroppedField) {
  return { model: drop.model, field: drop.field, code: drop.code, reason: drop.reason };
}

function toCountsJson(counts: CatalogPlanCounts) {
  return {
    models: counts.models,
    versions: counts.versions,
    variants: counts.variants,
    tiers: counts.tiers,
    versions_with_tiers: counts.versionsWithTiers,
    skipped_models: counts.skippedModels,
    skipped_variants: counts.skippedVariants,
    skipped_by_code: counts.skippedByCode,
    dropped_by_code: counts.droppedByCode,
  };
}
