// The only code that touches the prices table. NUMERIC(38,0) columns become bigint here.
import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../../common/errors/database-errors.js';
import { DatabaseService, type PrismaTx } from '../../database/database.service.js';
import { tableFingerprintSql } from '../../database/table-fingerprints.js';
import { toBigInt, toBigIntOrNull } from '../../database/sql.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { tiersFromStored, tiersToStored } from './price-terms.js';
import type { PriceTerms, PriceVersion, WebSearchBilling } from './pricing.types.js';

export type PriceSource = 'api' | 'litellm' | 'genai-prices';

export interface PriceRecord extends PriceVersion {
  source: string;
  createdAt: Date;
}

export interface NewPrice extends PriceTerms {
  model: string;
  variant: string;
  effectiveFrom: Date;
  source: PriceSource;
}

const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 30_000 } as const;

type PriceColumn = (typeof PRICE_COLUMNS)[number];
const PRICE_COLUMNS = [
  'input_atto_per_mtok',
  'output_atto_per_mtok',
  'cached_input_atto_per_mtok',
  'cache_write_5m_atto_per_mtok',
  'cache_write_1h_atto_per_mtok',
  'input_audio_atto_per_mtok',
  'cached_input_audio_atto_per_mtok',
  'output_audio_atto_per_mtok',
  'input_image_atto_per_mtok',
  'output_image_atto_per_mtok',
  'reasoning_atto_per_mtok',
  'web_search_atto_per_call',
  'request_atto',
] as const;

type PriceRow = { [C in PriceColumn]: string | null } & {
  id: string | bigint;
  model: string;
  variant: string;
  tiers: unknown;
  web_search_billing: WebSearchBilling | null;
  effective_from: Date;
  source: string;
  created_at: Date;
};

/** Every column as text (NUMERIC -> exact integer strings). */
const SELECT_COLUMNS = `id::text AS id, model, variant, ${PRICE_COLUMNS.map((c) => `${c}::text AS ${c}`).join(', ')},
  tiers, web_search_billing, effective_from, source, created_at`;

/** The version row's value (count:max(id) without it), the text loadAll's fingerprint has. */
const CATALOG_FINGERPRINT = { name: 'prices_version', sql: `SELECT ${tableFingerprintSql('prices')}` };

@Injectable()
export class PricingRepository {
  constructor(private readonly db: DatabaseService) {}

  transaction<T>(fn: (tx: PrismaTx) => Promise<T>): Promise<T> {
    return this.db.prisma.$transaction(fn, TRANSACTION_OPTIONS);
  }

  /**
   * The catalog's fingerprint: the value the prices table's trigger writes with every change
   * (src/database/table-fingerprints.ts, tableFingerprintSql), one row instead of a count.
   * Raw SQL through the pool: this runs on the ingestion path several times per second.
   */
  async readCatalogVersion(): Promise<string> {
    return this.db.fingerprints.read(CATALOG_FINGERPRINT);
  }

  /** Every version, with the fingerprint of exactly these rows (one statement, one snapshot). */
  async loadAll(): Promise<{ version: string; prices: PriceRecord[] }> {
    // The fingerprint in the same statement as the rows (one snapshot); the LEFT JOIN keeps it
    // when the table is empty (one row of NULLs then).
    const result = await this.db.pool.query<PriceRow & { fingerprint: string }>(
      `SELECT f.fingerprint, p.* FROM (SELECT ${tableFingerprintSql('prices')} AS fingerprint) f
       LEFT JOIN LATERAL (SELECT ${SELECT_COLUMNS} FROM prices) p ON true
       ORDER BY p.model, p.variant, p.effective_from`,
    );
    const prices = result.rows.filter((row) => row.id !== null).map(fromRow);
    return { version: result.rows[0]!.fingerprint, prices };
  }

  async findByKey(tx: PrismaTx, model: string, variant: string, effectiveFrom: Date): Promise<PriceRecord | null> {
    const rows = await tx.$queryRawUnsafe<PriceRow[]>(
      `SELECT ${SELECT_COLUMNS} FROM prices WHERE model = $1 AND variant = $2 AND effective_from = $3`,
      model,
      variant,
      effectiveFrom,
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** Per (model, variant), the version with the greatest effective_from <= at (the one in force then). */
  async findInForce(tx: PrismaTx, keys: ReadonlyArray<{ model: string; variant: string }>, at: Date): Promise<PriceRecord[]> {
    if (keys.length === 0) return [];
    const rows = await tx.$queryRawUnsafe<PriceRow[]>(
      `SELECT DISTINCT ON (model, variant) ${SELECT_COLUMNS}
         FROM prices
        WHERE (model, variant) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND effective_from <= $3
        ORDER BY model, variant, effective_from DESC`,
      keys.map((k) => k.model),
      keys.map((k) => k.variant),
      at,
    );
    return rows.map(fromRow);
  }

  /**
   * A duplicate (model, effective_from) throws (see isPriceKeyConflict) and aborts the transaction:
   * the caller retries the whole transaction, which then sees the winner's row.
   */
  async insert(tx: PrismaTx, price: NewPrice): Promise<PriceRecord> {
    const created = await tx.price.create({ data: toPrismaData(price), select: { id: true, createdAt: true } });
    return { ...price, id: created.id, createdAt: created.createdAt };
  }

  async insertMany(tx: PrismaTx, prices: NewPrice[]): Promise<number> {
    if (prices.length === 0) return 0;
    const result = await tx.price.createMany({ data: prices.map(toPrismaData) });
    return result.count;
  }
}

/** Prisma reports a unique violation as P2002; the raw driver error carries SQLSTATE 23505. */
export function isPriceKeyConflict(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'P2002' || isUniqueViolation(error);
}

const text = (v: bigint | null) => (v === null ? null : v.toString());

function toPrismaData(price: NewPrice) {
  return {
    model: price.model,
    variant: price.variant,
    inputAttoPerMtok: text(price.inputAttoPerMtok),
    outputAttoPerMtok: text(price.outputAttoPerMtok),
    cachedInputAttoPerMtok: text(price.cachedInputAttoPerMtok),
    cacheWrite5mAttoPerMtok: text(price.cacheWrite5mAttoPerMtok),
    cacheWrite1hAttoPerMtok: text(price.cacheWrite1hAttoPerMtok),
    inputAudioAttoPerMtok: text(price.inputAudioAttoPerMtok),
    cachedInputAudioAttoPerMtok: text(price.cachedInputAudioAttoPerMtok),
    outputAudioAttoPerMtok: text(price.outputAudioAttoPerMtok),
    inputImageAttoPerMtok: text(price.inputImageAttoPerMtok),
    outputImageAttoPerMtok: text(price.outputImageAttoPerMtok),
    reasoningAttoPerMtok: text(price.reasoningAttoPerMtok),
    tiers: JSON.parse(tiersToStored(price.tiers)) as Prisma.InputJsonValue,
    webSearchAttoPerCall: text(price.webSearchAttoPerCall),
    webSearchBilling: price.webSearchBilling,
    requestAtto: text(price.requestAtto),
    effectiveFrom: price.effectiveFrom,
    source: price.source,
  };
}

function fromRow(row: PriceRow): PriceRecord {
  return {
    id: toBigInt(row.id),
    model: row.model,
    variant: row.variant,
    inputAttoPerMtok: toBigIntOrNull(row.input_atto_per_mtok),
    outputAttoPerMtok: toBigIntOrNull(row.output_atto_per_mtok),
    cachedInputAttoPerMtok: toBigIntOrNull(row.cached_input_atto_per_mtok),
    cacheWrite5mAttoPerMtok: toBigIntOrNull(row.cache_write_5m_atto_per_mtok),
    cacheWrite1hAttoPerMtok: toBigIntOrNull(row.cache_write_1h_atto_per_mtok),
    inputAudioAttoPerMtok: toBigIntOrNull(row.input_audio_atto_per_mtok),
    cachedInputAudioAttoPerMtok: toBigIntOrNull(row.cached_input_audio_atto_per_mtok),
    outputAudioAttoPerMtok: toBigIntOrNull(row.output_audio_atto_per_mtok),
    inputImageAttoPerMtok: toBigIntOrNull(row.input_image_atto_per_mtok),
    outputImageAttoPerMtok: toBigIntOrNull(row.output_image_atto_per_mtok),
    reasoningAttoPerMtok: toBigIntOrNull(row.reasoning_atto_per_mtok),
    tiers: tiersFromStored(row.tiers),
    webSearchAttoPerCall: toBigIntOrNull(row.web_search_atto_per_call),
    webSearchBilling: row.web_search_billing,
    requestAtto: toBigIntOrNull(row.request_atto),
    effectiveFrom: row.effective_from,
    source: row.source,
    createdAt: row.created_at,
  };
}
