import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { notFound } from '../../common/errors/index.js';
import { cursorMicrosSchema, decodeCursor, encodeCursor } from '../../common/http/pagination.js';
import { assertCanReadContributor } from '../auth/access.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { ContributorsService } from '../contributors/contributors.service.js';
import { PayoutTxRepository } from './payout/payout-tx.repository.js';
import { SettlementRepository, type TimeCursor } from './creation/settlement.repository.js';
import type { PayoutTxRecord } from './payout/payout.types.js';
import type { SettlementLineRecord, SettlementRecord } from './creation/settlement.types.js';

const timeCursorSchema = z.object({ us: cursorMicrosSchema, id: z.string().uuid() });

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

function page<T extends { id: string; createdUs: string }>(rows: T[], limit: number): Page<T> {
  const last = rows.length === limit ? rows[rows.length - 1] : undefined;
  return { data: rows, nextCursor: last ? encodeCursor({ us: last.createdUs, id: last.id } satisfies TimeCursor) : null };
}

/** Reads for the admin and contributor endpoints. */
@Injectable()
export class SettlementQueryService {
  constructor(
    private readonly settlements: SettlementRepository,
    private readonly txs: PayoutTxRepository,
    private readonly contributors: ContributorsService,
  ) {}

  async getSettlement(id: string): Promise<{ settlement: SettlementRecord; lines: SettlementLineRecord[]; txs: PayoutTxRecord[] }> {
    const settlement = await this.settlements.findById(id);
    if (!settlement) throw notFound('settlement');
    const [lines, txs] = await Promise.all([this.settlements.listLines(id), this.txs.listBySettlement(id)]);
    return { settlement, lines, txs };
  }

  async listSettlements(limit: number, cursor: string | undefined): Promise<Page<SettlementRecord>> {
    const rows = await this.settlements.list(limit, decodeCursor(cursor, timeCursorSchema));
    return page(rows, limit);
  }

  /** A contributor key reads only its own payouts; an admin reads anyone's. */
  async listContributorPayouts(principal: Principal, contributorId: string, limit: number, cursor: string | undefined): Promise<Page<SettlementLineRecord>> {
    assertCanReadContributor(principal, contributorId);
    if (!(await this.contributors.findById(contributorId))) throw notFound('contributor');
    const rows = await this.settlements.listContributorPayouts(contributorId, limit, decodeCursor(cursor, timeCursorSchema));
    return page(rows, limit);
  }
}
