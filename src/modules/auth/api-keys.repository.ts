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

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: DatabaseService) {}

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
