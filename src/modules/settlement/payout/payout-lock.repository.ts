import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../../../database/database.service.js';
import { trySessionLock } from '../../../database/session-lock.js';

/** How often a waiting send asks for the lock again (polling: no connection blocks in Postgres meanwhile). */
const LOCK_RETRY_INTERVAL_MS = 200;

/** A held sender lock: one Postgres session owns it until release (or until that session dies). */
export interface HeldWalletLock {
  /** Fails when the session holding the lock is gone: stop before signing anything else. */
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}

/**
 * One sender per hot wallet across processes: a session-level advisory lock keyed by the wallet
 * address, on a dedicated connection held for the whole send. It lives in Postgres (the system of
 * record), so it survives Redis restarts, and it is released by Postgres when the process dies.
 */
@Injectable()
export class PayoutLockRepository {
  private readonly logger = new Logger('PayoutLock');

  constructor(private readonly db: DatabaseService) {}

  /** The lock, tried again every LOCK_RETRY_INTERVAL_MS for up to `waitMs`; null while another session holds it. */
  async tryAcquire(walletAddress: string, waitMs = 0): Promise<HeldWalletLock | null> {
    const key = `payout-sender:${walletAddress.toLowerCase()}`;
    const deadline = Date.now() + waitMs;
    let lock = await this.tryOnce(key);
    while (!lock && Date.now() < deadline) {
      await sleep(Math.min(LOCK_RETRY_INTERVAL_MS, Math.max(0, deadline - Date.now())));
      lock = await this.tryOnce(key);
    }
    if (!lock) return null;
    const held = lock;
    return {
      assertHeld: async () => {
        if (held.lost) throw new Error('payout sender lock lost (its database session ended)');
        // Re-entrant on the same session: true as long as this session still holds it.
        if (!(await held.stillHeld())) throw new Error('payout sender lock lost');
      },
      release: () => held.release(),
    };
  }

  private tryOnce(key: string) {
    return trySessionLock(this.db.pool, key, (error) => this.logger.warn(`payout lock connection lost: ${error.message}`));
  }
}
