import { Injectable } from '@nestjs/common';
import { VersionedSnapshot } from '../../common/cache/versioned-snapshot.js';
import { assert, DomainError, validationFailed } from '../../common/errors/index.js';
import type { PrismaTx } from '../../database/database.service.js';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../../common/auth/auth.types.js';
import type { CatalogPlanCounts, DroppedField, SkippedEntry } from './catalog-price-body.js';
import { catalogPlanDrafts } from './catalog-plan-drafts.js';
import { bundledGenaiProviders, genaiTargets } from './genai-prices-catalog.js';
import { GENAI_PRICES_SOURCE, planGenaiPrices } from './genai-prices-plan.js';
import { LitellmDocumentError, parseLitellmDocument, planLitellmImport, type LitellmImportPlan } from './litellm-import.js';
import { planHistoryWrites, type DatedDraft } from './price-history-writes.js';
import { createPriceBook, summarizeCatalog, type CatalogSummary, type PriceCatalog } from './price-book.js';
import { samePriceTerms, type PriceVersionDraft } from './price-terms.js';
import { isPriceKeyConflict, PricingRepository, type NewPrice, type PriceRecord, type PriceSource } from './pricing.repository.js';

/**
 * How stale getPriceBook() may be when this process did not change the catalog itself. The
 * ingestion path calls getPriceBookFresh() once per batch, so this only bounds other readers.
 */
export const PRICE_BOOK_CHECK_INTERVAL_MS = 250;
/** A concurrent writer of the same (model, effective_from) aborts our transaction; retry sees it. */
const KEY_CONFLICT_ATTEMPTS_MAX = 3;
/** Model names kept in the import's audit record (the counts are always complete). */
const AUDIT_MODEL_NAMES_MAX = 1_000;

export type { PriceRecord } from './pricing.repository.js';
export type { PriceCatalog } from './price-book.js';

/** A version to create: identity + terms (priceDraftFromBody turns an api.md body into one). */
export type CreatePriceCommand = PriceVersionDraft;

export interface CreatePriceResult {
  price: PriceRecord;
  /** false: an identical version already existed at that (model, effective_from) (a replay). */
  created: boolean;
}

export interface LitellmImportResult {
  effectiveFrom: Date;
  imported: number;
  unchanged: number;
  skipped: SkippedEntry[];
  dropped: DroppedField[];
  /** What the catalog holds (models, versions per variant, tiers, omissions by code). */
  counts: CatalogPlanCounts;
}

export interface GenaiPricesImportResult {
  /** Names asked for (default: every model priced here) and those genai-prices knows. */
  modelsRequested: number;
  modelsMatched: number;
  imported: number;
  unchanged: number;
  /** Dated at or after the model's earliest version from another source, which wins from then on. */
  superseded: number;
  skipped: SkippedEntry[];
  dropped: DroppedField[];
  counts: CatalogPlanCounts;
}


@Injectable()
export class PricingService {
  private readonly book: VersionedSnapshot<PriceCatalog<PriceRecord>>;

  constructor(
    private readonly repository: PricingRepository,
    private readonly audit: AuditService,
  ) {
    this.book = new VersionedSnapshot(
      {
        readVersion: () => this.repository.readCatalogVersion(),
        load: async () => {
          const { version, prices } = await this.repository.loadAll();
          return { version, value: createPriceBook(prices) };
        },
      },
      { checkIntervalMs: PRICE_BOOK_CHECK_INTERVAL_MS },
    );
  }

  /** All versions of all models; at most PRICE_BOOK_CHECK_INTERVAL_MS behind other processes. */
  getPriceBook(): Promise<PriceCatalog<PriceRecord>> {
    return this.book.get();
  }

  /** Reflects every price committed before the call (one cheap version query). */
  getPriceBookFresh(): Promise<PriceCatalog<PriceRecord>> {
    return this.book.getFresh();
  }

  async listCurrent(now: Date = new Date()): Promise<CatalogSummary<PriceRecord>> {
    return summarizeCatalog(await this.getPriceBookFresh(), now);
  }

  /** Oldest first; empty for a model without versions. */
  async listVersions(model: string): Promise<readonly PriceRecord[]> {
    return (await this.getPriceBookFresh()).versionsOf(model);
  }

  /**
   * Versions are immutable: the same (model, variant, effective_from) again is a replay (identical)
   * or a 409 (different). `source` names the producer (an importer passes its own).
   */
  async createPrice(actor: Principal, command: CreatePriceCommand, source: PriceSource = 'api'): Promise<CreatePriceResult> {
    const price: NewPrice = { ...command, effectiveFrom: command.effectiveFrom ?? new Date(), source };
    const result = await retryOnKeyConflict(() =>
      this.repository.transaction(async (tx) => {
        const existing = await this.repository.findByKey(tx, price.model, price.variant, price.effectiveFrom);
        if (existing) {
          if (samePriceTerms(existing, price)) return { price: existing, created: false };
          throw new DomainError('conflict', `a different price version of ${price.model} (${price.variant}) already starts at ${price.effectiveFrom.toISOString()}`, {
            existing_id: existing.id.toString(),
          });
        }
        const created = await this.repository.insert(tx, price);
        await this.audit.recordWithPrisma(tx, actor, { action: 'price.create', target: `price:${created.id}`, after: created });
        return { price: created, created: true };
      }),
    );
    if (result.created) this.book.invalidate();
    return result;
  }

  /** Imports a LiteLLM price catalog as versions starting at effectiveFrom (default now). */
  async importLitellm(actor: Principal, input: { documentText: string; effectiveFrom?: Date }): Promise<LitellmImportResult> {
    const effectiveFrom = input.effectiveFrom ?? new Date();
    let plan: LitellmImportPlan;
    try {
      plan = planLitellmImport(parseLitellmDocument(input.documentText));
    } catch (error) {
      if (error instanceof LitellmDocumentError) throw validationFailed([{ field: '(body)', message: error.message }], 'not a LiteLLM price catalog');
      throw error;
    }
    const result = await retryOnKeyConflict(() => this.repository.transaction((tx) => this.writeImport(tx, actor, plan, effectiveFrom)));
    if (result.imported > 0) this.book.invalidate();
    return result;
  }

  /**
   * Idempotent: a model whose version in force at effectiveFrom already has these prices is
   * `unchanged` (a new identical version would change nothing but the price id), so importing the
   * same file twice creates nothing the second time.
   */
  private async writeImport(tx: PrismaTx, actor: Principal, plan: LitellmImportPlan, effectiveFrom: Date): Promise<LitellmImportResult> {
    const inForce = await this.repository.findInForce(tx, plan.prices, effectiveFrom);
    const inForceByModel = new Map(inForce.map((p) => [`${p.model}\u0000${p.variant}`, p]));
    const toInsert: NewPrice[] = [];
    const skipped = [...plan.skipped];
    let unchanged = 0;
    for (const price of plan.prices) {
      const current = inForceByModel.get(`${price.model}\u0000${price.variant}`);
      if (current && samePriceTerms(current, price)) {
        unchanged += 1;
      } else if (current && current.effectiveFrom.getTime() === effectiveFrom.getTime()) {
        skipped.push({ model: price.model, variant: price.variant, code: 'conflict', reason: 'a different version already starts at effective_from (versions are immutable)' });
      } else {
        toInsert.push({ ...price, effectiveFrom, source: 'litellm' });
      }
    }
    const imported = await this.repository.insertMany(tx, toInsert);
    assert(imported === toInsert.length, 'every planned price version was inserted');
    // One record for the whole import, written even when nothing changed: it shows who ran it.
    await this.audit.recordWithPrisma(tx, actor, {
      action: 'price.import',
      target: 'prices',
      after: {
        source: 'litellm',
        effective_from: effectiveFrom,
        imported,
        unchanged,
        skipped: skipped.length,
        models: toInsert.slice(0, AUDIT_MODEL_NAMES_MAX).map((p) => p.model),
        models_truncated: toInsert.length > AUDIT_MODEL_NAMES_MAX,
      },
    });
    return { effectiveFrom, imported, unchanged, skipped, dropped: plan.dropped, counts: plan.counts };
  }

  /**
   * Imports @pydantic/genai-prices' bundled price history for `models` (default: every model priced
   * here) as dated `standard` versions. It only fills in the past (price-history-writes.ts), so it
   * can run before or after a LiteLLM import, and again, without changing what those priced.
   */
  async importGenaiPrices(actor: Principal, input: { models?: readonly string[] }): Promise<GenaiPricesImportResult> {
    const names = [...new Set(input.models ?? (await this.getPriceBookFresh()).models())];
    const { targets } = genaiTargets(await bundledGenaiProviders(), names);
    const plan = catalogPlanDrafts(planGenaiPrices(targets));
    // Every genai-prices version is dated (its epoch or a start date).
    const planned = plan.prices.filter((p): p is DatedDraft => p.effectiveFrom !== undefined);
    assert(planned.length === plan.prices.length, 'every genai-prices version has an effective_from');
    const result = await retryOnKeyConflict(async () => {
      const writes = planHistoryWrites({ planned, book: await this.getPriceBookFresh(), source: GENAI_PRICES_SOURCE });
      return this.repository.transaction(async (tx) => {
        const imported = await this.repository.insertMany(tx, writes.insert.map((draft) => ({ ...draft, source: 'genai-prices' as const })));
        assert(imported === writes.insert.length, 'every planned history version was inserted');
        await this.audit.recordWithPrisma(tx, actor, {
          action: 'price.import',
          target: 'prices',
          after: {
            source: GENAI_PRICES_SOURCE,
            imported,
            unchanged: writes.unchanged,
            superseded: writes.superseded,
            skipped: plan.skipped.length + writes.conflicts.length,
            models: writes.insert.slice(0, AUDIT_MODEL_NAMES_MAX).map((p) => p.model),
            models_truncated: writes.insert.length > AUDIT_MODEL_NAMES_MAX,
          },
        });
        return { imported, writes };
      });
    });
    if (result.imported > 0) this.book.invalidate();
    return {
      modelsRequested: names.length,
      modelsMatched: targets.length,
      imported: result.imported,
      unchanged: result.writes.unchanged,
      superseded: result.writes.superseded,
      skipped: [...plan.skipped, ...result.writes.conflicts],
      dropped: plan.dropped,
      counts: plan.counts,
    };
  }
}

async function retryOnKeyConflict<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (!isPriceKeyConflict(error)) throw error;
      if (attempt >= KEY_CONFLICT_ATTEMPTS_MAX) throw new DomainError('conflict', 'a concurrent write created the same price version; retry');
    }
  }
}
