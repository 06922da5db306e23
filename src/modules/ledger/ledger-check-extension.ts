import { Injectable } from '@nestjs/common';

/**
 * Other modules add consistency checks to GET /v1/admin/ledger/check (rollups vs raw events,
 * chain vs paid lines) by registering here at start-up; each result appears under its name.
 */
export interface LedgerCheckExtension {
  name: string;
  run(): Promise<{ ok: boolean } & Record<string, unknown>>;
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
