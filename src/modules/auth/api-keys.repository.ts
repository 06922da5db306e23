import { Injectable } from '@nestjs/common';
import { DatabaseService, type PrismaTx } from '../../database/database.service.js';
import type { Role } from '../../common/auth/auth.types.js';

export interface ApiKeyRecord {
  id: string;
  role: Role;
  contributorId: string | null;
  name: string | null;
  keyPrefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** Set for a gateway key created with signed: true. */
  signingSecret: string | null;
}

/** A key as the admin listing shows it: never its hash nor its signing secret. */
export interface ListedApiKey {
  id: string;
  name: string | null;
  role: Role;
  contributorId: string | null;
  keyPrefix: string;
  signed: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** created_at in microseconds since 1970: the cursor's sort key. */
  createdUs: string;
}

/** Touches last_used_at when it is older than this: one write per key per minute at most. */
const LAST_USED_RESOLUTION_SECONDS = 60;

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Newest first, below the cursor (created_at in microseconds, then id). */
  async list(filter: { role?: Role; contributorId?: string }, limit: number, before: { us: string; id: string } | null): Promise<ListedApiKey[]> {
    const result = await this.db.readPool.query<{
      id: string; name: string | null; role: string; contributor_id: string | null; key_prefix: string; signed: boolean;
      created_at: Date; last_used_at: Date | null; revoked_at: Date | null; created_us: string;
    }>(
      `SELECT id, name, role, contributor_id, key_prefix, signing_secret IS NOT NULL AS signed, created_at, last_used_at, revoked_at,
              (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us
       FROM api_keys
       WHERE ($1::text IS NULL OR role = $1) AND ($2::text IS NULL OR contributor_id = $2)
         AND ($3::bigint IS NULL OR (created_at, id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      [filter.role ?? null, filter.contributorId ?? null, before?.us ?? null, before?.id ?? null, limit],
    );
    return result.rows.map((r) => ({
      id: r.id,
      name: r.name,
      role: r.role as Role,
      contributorId: r.contributor_id,
      keyPrefix: r.key_prefix,
      signed: r.signed,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      revokedAt: r.revoked_at,
      createdUs: r.created_us,
    }));
  }

  /** Records a use, unless one was recorded within the last minute (then nothing is written). */
  async touchLastUsed(id: string): Promise<void> {
    await this.db.pool.query(
      `UPDATE api_keys SET last_used_at = now() WHERE id = $1
         AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2))`,
      [id, LAST_USED_RESOLUTION_SECONDS],
    );
  }

  async findActiveByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = await this.db.prisma.apiKey.findUnique({ where: { keyHash } });
    if (!row || row.revokedAt) return null;
    return toRecord(row);
  }

  async findActiveById(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.db.prisma.apiKey.findUnique({ where: { id } });
    if (!row || row.revokedAt) return null;
    return toRecord(row);
  }

  async create(
    tx: PrismaTx,
    input: { id: string; keyHash: string; keyPrefix: string; role: Role; contributorId: string | null; name: string | null; signingSecret: string | null },
  ): Promise<ApiKeyRecord> {
    return toRecord(await tx.apiKey.create({ data: input }));
  }

  async findById(tx: PrismaTx, id: string): Promise<ApiKeyRecord | null> {
    const row = await tx.apiKey.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  async revoke(tx: PrismaTx, id: string, at: Date): Promise<void> {
    await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
  }
}

/** A stored row: the record's fields, with the role as the column holds it (a CHECK holds it to Role). */
function toRecord(row: Omit<ApiKeyRecord, 'role'> & { role: string }): ApiKeyRecord {
  return {
    id: row.id,
    role: row.role as Role,
    contributorId: row.contributorId,
    name: row.name,
    keyPrefix: row.keyPrefix,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
    signingSecret: row.signingSecret,
  };
}
