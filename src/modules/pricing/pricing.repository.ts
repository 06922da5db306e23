// The only code that touches the prices table. NUMERIC(38,0) columns become bigint here.
import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../../database/database-errors.js';
import { DatabaseService, type PrismaTx } from '../../database/database.service.js';
import { preparedStatement, prismaDecimalToBigInt, toBigInt, toBigIntOrNull, type PrismaDecimal } from '../../database/sql.js';
import type { PriceVersion } from './pricing.types.js';

export type PriceSource = 'api' | 'litellm';

export interface PriceRecord extends PriceVersion {
  source: string;
  createdAt: Date;
}

export interface NewPrice {
  model: string;
  inputAttoPerMtok: bigint;
  outputAttoPerMtok: bigint;
  cachedInputAttoPerMtok: bigint | null;
  effectiveFrom: Date;
  source: PriceSource;
}

const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 30_000 } as const;

interface PriceRow {
  id: string | bigint;
  model: string;
  input_atto_per_mtok: string;
  output_atto_per_mtok: string;
  cached_input_atto_per_mtok: string | null;
  effective_from: Date;
  source: string;
  created_at: Date;
}

const READ_CATALOG_VERSION = preparedStatement('prices_version', 'SELECT count(*)::text AS row_count, coalesce(max(id), 0)::text AS id_max FROM prices');

@Injectable()
export class PricingRepository {
  constructor(private readonly db: DatabaseService) {}

  transaction<T>(fn: (tx: PrismaTx) => Promise<T>): Promise<T> {
    return this.db.prisma.$transaction(fn, TRANSACTION_OPTIONS);
  }

  /**
   * The catalog's fingerprint. Versions are append-only (never updated or deleted), so the row
   * count and the largest id change with every insert, including one committed out of id order.
   * Raw SQL through the pool: this runs on the ingestion path several times per second.
   */
  async readCatalogVersion(): Promise<string> {
    const result = await this.db.pool.query<{ row_count: string; id_max: string }>(READ_CATALOG_VERSION([]));
    const row = result.rows[0]!;
    return catalogVersion(BigInt(row.row_count), BigInt(row.id_max));
  }

  /** Every version, with the fingerprint of exactly these rows (one statement, one snapshot). */
  async loadAll(): Promise<{ version: string; prices: PriceRecord[] }> {
    const result = await this.db.pool.query<PriceRow>(
      `SELECT id::text AS id, model, input_atto_per_mtok, output_atto_per_mtok, cached_input_atto_per_mtok,
              effective_from, source, created_at
         FROM prices ORDER BY model, effective_from`,
    );
    const prices = result.rows.map(fromRow);
    const idMax = prices.reduce((max, p) => (p.id > max ? p.id : max), 0n);
    return { version: catalogVersion(BigInt(prices.length), idMax), prices };
  }

  async findByKey(tx: PrismaTx, model: string, effectiveFrom: Date): Promise<PriceRecord | null> {
    const row = await tx.price.findUnique({ where: { model_effectiveFrom: { model, effectiveFrom } } });
    return row ? fromPrisma(row) : null;
  }

  /** Per model, the version with the greatest effective_from <= at (the one in force then). */
  async findInForce(tx: PrismaTx, models: string[], at: Date): Promise<PriceRecord[]> {
    if (models.length === 0) return [];
    const rows = await tx.$queryRaw<PriceRow[]>`
      SELECT DISTINCT ON (model) id::text AS id, model, input_atto_per_mtok::text AS input_atto_per_mtok,
             output_atto_per_mtok::text AS output_atto_per_mtok,
             cached_input_atto_per_mtok::text AS cached_input_atto_per_mtok, effective_from, source, created_at
        FROM prices
       WHERE model = ANY(${models}) AND effective_from <= ${at}
       ORDER BY model, effective_from DESC`;
    return rows.map(fromRow);
  }

  /**
   * A duplicate (model, effective_from) throws (see isPriceKeyConflict) and aborts the transaction:
   * the caller retries the whole transaction, which then sees the winner's row.
   */
  async insert(tx: PrismaTx, price: NewPrice): Promise<PriceRecord> {
    return fromPrisma(await tx.price.create({ data: toPrismaData(price) }));
  }

  async insertMany(tx: PrismaTx, prices: NewPrice[]): Promise<number> {
    if (prices.length === 0) return 0;
    const result = await tx.price.createMany({ data: prices.map(toPrismaData) });
    return result.count;
  }
}

function catalogVersion(rowCount: bigint, idMax: bigint): string {
  return `${rowCount}:${idMax}`;
}

/** Prisma reports a unique violation as P2002; the raw driver error carries SQLSTATE 23505. */
export function isPriceKeyConflict(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'P2002' || isUniqueViolation(error);
}

function toPrismaData(price: NewPrice) {
  return {
    model: price.model,
    inputAttoPerMtok: price.inputAttoPerMtok.toString(),
    outputAttoPerMtok: price.outputAttoPerMtok.toString(),
    cachedInputAttoPerMtok: price.cachedInputAttoPerMtok === null ? null : price.cachedInputAttoPerMtok.toString(),
    effectiveFrom: price.effectiveFrom,
    source: price.source,
  };
}

function fromRow(row: PriceRow): PriceRecord {
  return {
    id: toBigInt(row.id),
    model: row.model,
    inputAttoPerMtok: toBigInt(row.input_atto_per_mtok),
    outputAttoPerMtok: toBigInt(row.output_atto_per_mtok),
    cachedInputAttoPerMtok: toBigIntOrNull(row.cached_input_atto_per_mtok),
    effectiveFrom: row.effective_from,
    source: row.source,
    createdAt: row.created_at,
  };
}

function fromPrisma(row: {
  id: bigint;
  model: string;
  inputAttoPerMtok: PrismaDecimal;
  outputAttoPerMtok: PrismaDecimal;
  cachedInputAttoPerMtok: PrismaDecimal | null;
  effectiveFrom: Date;
  source: string;
  createdAt: Date;
}): PriceRecord {
  return {
    id: row.id,
    model: row.model,
    inputAttoPerMtok: prismaDecimalToBigInt(row.inputAttoPerMtok),
    outputAttoPerMtok: prismaDecimalToBigInt(row.outputAttoPerMtok),
    cachedInputAttoPerMtok: row.cachedInputAttoPerMtok === null ? null : prismaDecimalToBigInt(row.cachedInputAttoPerMtok),
    effectiveFrom: row.effectiveFrom,
    source: row.source,
    createdAt: row.createdAt,
  };
}
