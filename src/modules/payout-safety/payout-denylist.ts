// PAYOUT_DENYLIST_FILE: payout addresses that must never be paid (sanctions lists and the like).
// Parsing is pure; the loader re-reads the file whenever it changes, so a list updated in place
// applies to the next contributor write and the next payout sent without a restart.
import { statSync, readFileSync } from 'node:fs';
import { DomainError } from '../../common/errors/index.js';
import { ConfigError } from '../../config/config.schema.js';

const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export class DenylistFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DenylistFormatError';
  }
}

/**
 * One 0x-prefixed 20-byte hex address a line, any letter case (no checksum required: lists are
 * often published in lower case). `#` starts a comment, to the end of the line; blank lines are
 * ignored. Anything else is an error naming the line: a list that cannot be read whole is never
 * applied in part. Returns the addresses in lower case.
 */
export function parseDenylist(text: string): Set<string> {
  const addresses = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const entry = raw.replace(/#.*$/, '').trim();
    if (entry === '') return;
    if (!ADDRESS_PATTERN.test(entry)) {
      throw new DenylistFormatError(`line ${index + 1}: expected a 0x-prefixed 20-byte hex address, got ${JSON.stringify(entry.slice(0, 60))}`);
    }
    addresses.add(entry.toLowerCase());
  });
  return addresses;
}

export interface DenylistSnapshot {
  has(address: string): boolean;
  readonly size: number;
}

const EMPTY: DenylistSnapshot = { has: () => false, size: 0 };

/** The deny list file, read at start-up (a bad file stops the boot) and again whenever it changes. */
export class PayoutDenylistFile {
  private loaded: { mtimeMs: number; size: number; addresses: Set<string> } | null = null;

  constructor(private readonly path: string | undefined) {
    if (!path) return;
    try {
      this.load();
    } catch (error) {
      throw new ConfigError(`invalid environment: PAYOUT_DENYLIST_FILE: ${(error as Error).message}`);
    }
  }

  get configured(): boolean {
    return this.path !== undefined;
  }

  /**
   * The list as the file is now. A file that went missing or became invalid after start-up fails
   * closed: 503 `unavailable` (nothing is written, nothing is paid) until it is fixed.
   */
  current(): DenylistSnapshot {
    if (!this.path) return EMPTY;
    try {
      const stat = statSync(this.path);
      if (!this.loaded || stat.mtimeMs !== this.loaded.mtimeMs || stat.size !== this.loaded.size) this.load();
    } catch (error) {
      throw new DomainError('unavailable', `PAYOUT_DENYLIST_FILE cannot be read (${(error as Error).message}); payouts and address changes wait until it is fixed`);
    }
    const addresses = this.loaded!.addresses;
    return { has: (address) => addresses.has(address.toLowerCase()), size: addresses.size };
  }

  private load(): void {
    const path = this.path!;
    const stat = statSync(path);
    const addresses = parseDenylist(readFileSync(path, 'utf8'));
    this.loaded = { mtimeMs: stat.mtimeMs, size: stat.size, addresses };
  }
}
