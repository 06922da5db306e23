import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../../../database/database.service.js';
import { trySessionLock } from '../../../database/session-lock.js';

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

  async tryAcquire(walletAddress: string): Promise<HeldWalletLock | null> {
    const lock = await trySessionLock(this.db.pool, `payout-sender:${walletAddress.toLowerCase()}`, (error) =>
      this.logger.warn(`payout lock connection lost: ${error.message}`),
    );
    if (!lock) return null;
    return {
      assertHeld: async () => {
        if (lock.lost) throw new Error('payout sender lock lost (its database session ended)');
        // Re-entrant on the same session: true as long as this session still holds it.
        if (!(await lock.stillHeld())) throw new Error('payout sender lock lost');
      },
      release: () => lock.release(),
    };
  }
}
