// LiteLLM's model_prices_and_context_window.json -> price versions, exactly. The document is parsed
// with lossless-json so every number keeps its decimal text ("2.5e-06"); litellm-plan.ts maps its
// fields (docs/pricing.md) and catalog-plan-drafts.ts validates each version like an operator's.
// Pure: no Nest, no I/O.
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { catalogPlanDrafts, type CatalogDrafts } from './catalog-plan-drafts.js';
import { planLitellmCatalog } from './litellm-plan.js';

/** The real catalog lists a few thousand models; far more is not a price catalog. */
export const IMPORT_MODELS_MAX = 20_000;
const REASON_LENGTH_MAX = 200;

/** Versions to store (model, variant and terms), and every model, variant or field left out with a reason. */
export type LitellmImportPlan = CatalogDrafts;

export class LitellmDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LitellmDocumentError';
  }
}

/** Parses without binary floats: numbers stay LosslessNumber (their decimal text). */
export function parseLitellmDocument(text: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = parseLossless(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    // Includes RangeError from absurd nesting: still just a bad document.
    throw new LitellmDocumentError(`not valid JSON: ${(error as Error).message}`.slice(0, REASON_LENGTH_MAX));
  }
  // A bare number parses to a LosslessNumber, which is an object too.
  if (document === null || typeof document !== 'object' || Array.isArray(document) || isLosslessNumber(document)) {
    throw new LitellmDocumentError('must be a JSON object keyed by model name');
  }
  const entries = document as Record<string, unknown>;
  if (Object.keys(entries).length > IMPORT_MODELS_MAX) {
    throw new LitellmDocumentError(`lists more than ${IMPORT_MODELS_MAX} models`);
  }
  return entries;
}

/** Every key ends up in prices or in skipped, and every price-changing field left out in dropped. */
export function planLitellmImport(document: Record<string, unknown>): LitellmImportPlan {
  return catalogPlanDrafts(planLitellmCatalog(document));
}
