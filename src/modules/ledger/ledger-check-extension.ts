import { Injectable } from '@nestjs/common';

/**
 * Other modules add consistency checks to GET /v1/admin/ledger/check (rollups vs raw events,
 * chain vs paid lines) by registering here at start-up; each result appears under its name.
 */
export interface LedgerCheckExtension {
  name: string;
  /** full: GET /v1/admin/ledger/check?full=true (a check may then scan all history). */
  run(options: LedgerCheckOptions): Promise<{ ok: boolean } & Record<string, unknown>>;
}

export interface LedgerCheckOptions {
  full: boolean;
}

/**
 * The first day (YYYY-MM-DD, UTC) a check without `full` reads: the first of the previous UTC month,
 * so the current and the previous month's partitions (what budgets and earnings periods read).
 */
export function recentWindowStartDay(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 10);
}

@Injectable()
export class LedgerCheckRegistry {
  private readonly extensions: LedgerCheckExtension[] = [];

  register(extension: LedgerCheckExtension): void {
    this.extensions.push(extension);
  }

  all(): readonly LedgerCheckExtension[] {
    return this.extensions;
  }
}
