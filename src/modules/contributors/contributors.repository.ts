// The only code that touches the contributors and contributor_tiers tables.
import { Injectable } from '@nestjs/common';
import type { Address } from 'viem';
import { isUniqueViolation } from '../../common/errors/database-errors.js';
import { DatabaseService, type PrismaTx, type SqlClient } from '../../database/database.service.js';
import { tableFingerprintSql } from '../../database/table-fingerprints.js';
import type { Contributor, ContributorStatus, ContributorTier, PayeeState, TierVersion } from './contributors.types.js';

const TRANSACTION_OPTIONS = { maxWait: 5_000, timeout: 15_000 } as const;

/** A stored row: the contributor's fields, the enum-like columns as text (their CHECK constraints hold them). */
type ContributorRow = Omit<Contributor, 'tier' | 'payoutAddress' | 'status'> & { tier: string; payoutAddress: string; status: string };
/** The payee columns of a row, read by Prisma or by lockPayees (which spells them as the fields). */
type PayeeRow = Pick<ContributorRow, keyof PayeeState>;

/** What update() writes: every mutable field; the review mark only when given. */
export type ContributorChanges = Omit<Contributor, 'id' | 'createdAt' | 'underReviewSince'> & { underReviewSince?: Date | null };

/** The version row's value (count:max(id) without it), the text loadAllTiers's fingerprint has. */
const TIER_FINGERPRINT = { name: 'contributor_tiers_version', sql: `SELECT ${tableFingerprintSql('contributor_tiers')}` };

@Injectable()
export class ContributorsRepository {
  constructor(private readonly db: DatabaseService) {}

  transaction<T>(fn: (tx: PrismaTx) => Promise<T>): Promise<T> {
    return this.db.prisma.$transaction(fn, TRANSACTION_OPTIONS);
  }

  async findById(id: string): Promise<Contributor | null> {
    const row = await this.db.prisma.contributor.findUnique({ where: { id } });
    return row ? toContributor(row) : null;
  }

  /** Reads and locks the row until the transaction ends, so concurrent updates serialize. */
  async findForUpdate(tx: PrismaTx, id: string): Promise<Contributor | null> {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM contributors WHERE id = ${id} FOR UPDATE`;
    if (locked.length === 0) return null;
    const row = await tx.contributor.findUnique({ where: { id } });
    return row ? toContributor(row) : null;
  }

  /** A concurrent create of the same id throws (see isContributorIdConflict); the caller retries. */
  async create(tx: PrismaTx, contributor: Omit<Contributor, 'flaggedReason' | 'underReviewSince'>): Promise<Contributor> {
    return toContributor(await tx.contributor.create({ data: contributor }));
  }

  async update(tx: PrismaTx, id: string, changes: ContributorChanges): Promise<Contributor> {
    return toContributor(await tx.contributor.update({ where: { id }, data: changes }));
  }

  async insertTier(tx: PrismaTx, contributorId: string, tier: ContributorTier, effectiveFrom: Date): Promise<void> {
    await tx.contributorTier.create({ data: { contributorId, tier, effectiveFrom } });
  }

  /**
   * Status and payout address of the given contributors, share-locked until the caller's
   * transaction ends (in id order: no deadlock between two lockers). A concurrent PUT waits for
   * that commit, so what was read is still true when the caller commits.
   */
  async lockPayees(client: SqlClient, ids: readonly string[]): Promise<Map<string, PayeeState>> {
    if (ids.length === 0) return new Map();
    const result = await client.query<PayeeRow>(
      `SELECT id, status, payout_address AS "payoutAddress", flagged_reason AS "flaggedReason",
         payout_address_proven_at AS "payoutAddressProvenAt", payout_address_changed_at AS "payoutAddressChangedAt",
         under_review_since AS "underReviewSince"
       FROM contributors WHERE id = ANY($1::text[]) ORDER BY id FOR SHARE`,
      [[...new Set(ids)]],
    );
    return new Map(result.rows.map((row) => [row.id, toPayee(row)]));
  }

  /** The usage audit flagged them: payouts wait for a review (when USAGE_AUDIT_HOLD). Already held ones keep their instant. */
  async markUnderReview(client: SqlClient, ids: readonly string[], since: Date): Promise<void> {
    if (ids.length === 0) return;
    await client.query('UPDATE contributors SET under_review_since = $2 WHERE id = ANY($1::text[]) AND under_review_since IS NULL', [[...ids], since]);
  }

  /** A review ends the hold; "suspend" also suspends. Returns the row as it was (locked), or null. */
  async applyReview(client: SqlClient, id: string, suspend: boolean, at: Date): Promise<{ status: string; underReviewSince: Date | null } | null> {
    const before = await client.query<{ status: string; under_review_since: Date | null }>('SELECT status, under_review_since FROM contributors WHERE id = $1 FOR UPDATE', [id]);
    if (before.rows.length === 0) return null;
    await client.query(
      `UPDATE contributors SET under_review_since = NULL, status = CASE WHEN $2 THEN 'suspended' ELSE status END, updated_at = $3 WHERE id = $1`,
      [id, suspend, at],
    );
    return { status: before.rows[0]!.status, underReviewSince: before.rows[0]!.under_review_since };
  }

  async listActive(): Promise<Contributor[]> {
    const rows = await this.db.prisma.contributor.findMany({ where: { status: 'active' }, orderBy: { id: 'asc' } });
    return rows.map(toContributor);
  }

  /**
   * Fingerprint of the tier history: the value the table's trigger writes with every change
   * (src/database/table-fingerprints.ts). Raw SQL through the pool: the ingestion path runs this
   * once per batch.
   */
  async readTierVersion(): Promise<string> {
    return this.db.fingerprints.read(TIER_FINGERPRINT);
  }

  /** Every tier row, with the fingerprint of exactly these rows (one statement, one snapshot). */
  async loadAllTiers(): Promise<{ version: string; tiers: TierVersion[] }> {
    // The fingerprint in the same statement as the rows (one snapshot); a row of NULLs when empty.
    const result = await this.db.pool.query<{ fingerprint: string; id: string | null; contributor_id: string; tier: string; effective_from: Date }>(
      `SELECT f.fingerprint, t.id::text AS id, t.contributor_id, t.tier, t.effective_from
       FROM (SELECT ${tableFingerprintSql('contributor_tiers')} AS fingerprint) f LEFT JOIN contributor_tiers t ON true
       ORDER BY t.contributor_id, t.effective_from, t.id`,
    );
    const tiers = result.rows.filter((row) => row.id !== null).map((row) => ({
      id: BigInt(row.id!),
      contributorId: row.contributor_id,
      tier: row.tier as ContributorTier,
      effectiveFrom: row.effective_from,
    }));
    return { version: result.rows[0]!.fingerprint, tiers };
  }
}

/** Prisma reports a unique violation as P2002; the raw driver error carries SQLSTATE 23505. */
export function isContributorIdConflict(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'P2002' || isUniqueViolation(error);
}

function toContributor(row: ContributorRow): Contributor {
  return { ...toPayee(row), tier: row.tier as ContributorTier, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

/** Only the named fields are copied: a Prisma row's other columns do not leak into the record. */
function toPayee(row: PayeeRow): PayeeState {
  return {
    id: row.id,
    // The table's CHECK constraints hold these to the enums.
    payoutAddress: row.payoutAddress as Address,
    status: row.status as ContributorStatus,
    flaggedReason: row.flaggedReason,
    payoutAddressProvenAt: row.payoutAddressProvenAt,
    payoutAddressChangedAt: row.payoutAddressChangedAt,
    underReviewSince: row.underReviewSince,
  };
}
