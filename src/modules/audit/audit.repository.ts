import { Injectable } from '@nestjs/common';
import { DatabaseService, type PrismaTx, type SqlClient } from '../../database/database.service.js';
import { toJsonSafe } from '../../common/http/json-safe.js';

export interface AuditEntry {
  actorId: string | null;
  actorRole: string;
  action: string;
  target: string | null;
  before?: unknown;
  after?: unknown;
}

/** A stored entry; its before/after read back as null when the change had none. */
export interface AuditRecord extends AuditEntry {
  id: bigint;
  createdAt: Date;
}

@Injectable()
export class AuditRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Written in the caller's transaction, so the record exists iff the change does. */
  async insertWithPrisma(tx: PrismaTx, entry: AuditEntry): Promise<void> {
    await tx.auditLog.create({
      data: {
        actorId: entry.actorId,
        actorRole: entry.actorRole,
        action: entry.action,
        target: entry.target,
        before: entry.before === undefined ? undefined : (toJsonSafe(entry.before) as object),
        after: entry.after === undefined ? undefined : (toJsonSafe(entry.after) as object),
      },
    });
  }

  async insertWithSql(client: SqlClient, entry: AuditEntry): Promise<void> {
    await client.query(
      'INSERT INTO audit_log (actor_id, actor_role, action, target, before, after) VALUES ($1, $2, $3, $4, $5, $6)',
      [
        entry.actorId,
        entry.actorRole,
        entry.action,
        entry.target,
        entry.before === undefined ? null : JSON.stringify(toJsonSafe(entry.before)),
        entry.after === undefined ? null : JSON.stringify(toJsonSafe(entry.after)),
      ],
    );
  }

  /** Newest first; cursor is the last id seen. */
  async list(limit: number, beforeId: bigint | null): Promise<AuditRecord[]> {
    // The rows are the records: the columns are the fields, spelled the same (schema.prisma AuditLog).
    return this.db.readPrisma.auditLog.findMany({
      where: beforeId === null ? {} : { id: { lt: beforeId } },
      orderBy: { id: 'desc' },
      take: limit,
    });
  }
}
