import { Injectable } from '@nestjs/common';
import type { PrismaTx, SqlClient } from '../../database/database.service.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { AuditRepository, type AuditRecord } from './audit.repository.js';

export type { AuditRecord };

export interface AuditChange {
  action: string;
  target: string | null;
  before?: unknown;
  after?: unknown;
}

@Injectable()
export class AuditService {
  constructor(private readonly repository: AuditRepository) {}

  recordWithPrisma(tx: PrismaTx, actor: Principal, change: AuditChange): Promise<void> {
    return this.repository.insertWithPrisma(tx, { actorId: actor.keyId, actorRole: actor.role, ...change });
  }

  recordWithSql(client: SqlClient, actor: Principal, change: AuditChange): Promise<void> {
    return this.repository.insertWithSql(client, { actorId: actor.keyId, actorRole: actor.role, ...change });
  }

  list(limit: number, beforeId: bigint | null): Promise<AuditRecord[]> {
    return this.repository.list(limit, beforeId);
  }
}
