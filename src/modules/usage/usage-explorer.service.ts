import { Injectable } from '@nestjs/common';
import { UsageExplorerRepository, type ExplorerEvent, type ExplorerFilter } from './usage-explorer.repository.js';
import type { SummaryGroup, UsageEventsQuery, UsageSummaryQuery } from './usage-explorer.schemas.js';

/** Rows per query of a CSV export: each page is one ordered index read, then the connection is free again. */
export const CSV_PAGE_ROWS = 2_000;

export function explorerFilterOf(query: Omit<UsageEventsQuery, 'limit' | 'cursor'> | UsageSummaryQuery): ExplorerFilter {
  return {
    status: 'status' in query ? query.status : undefined,
    userId: query.user_id,
    contributorId: query.contributor_id,
    model: query.model,
    keyId: query.key_id,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  };
}

@Injectable()
export class UsageExplorerService {
  constructor(private readonly repository: UsageExplorerRepository) {}

  page(filter: ExplorerFilter, limit: number, beforeId: bigint | null): Promise<ExplorerEvent[]> {
    return this.repository.page(filter, limit, beforeId);
  }

  /**
   * Every matching event, newest first, a page at a time (keyset on id): memory stays one page
   * whatever the size, and events recorded during the export (higher ids) are not mixed in.
   */
  async *all(filter: ExplorerFilter): AsyncGenerator<ExplorerEvent[]> {
    let beforeId: bigint | null = null;
    for (;;) {
      const rows = await this.repository.page(filter, CSV_PAGE_ROWS, beforeId);
      if (rows.length > 0) yield rows;
      if (rows.length < CSV_PAGE_ROWS) return;
      beforeId = rows.at(-1)!.id;
    }
  }

  summary(filter: ExplorerFilter, groupBy: SummaryGroup) {
    return this.repository.summary(filter, groupBy);
  }
}
