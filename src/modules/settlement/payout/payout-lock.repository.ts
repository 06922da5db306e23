import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../../../database/database.service.js';

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
    const key = `payout-sender:${walletAddress.toLowerCase()}`;
    const client = await this.db.pool.connect();
    let lost = false;
    const onError = (error: Error) => {
      lost = true;
      this.logger.warn(`payout lock connection lost: ${error.message}`);
    };
    client.on('error', onError);
    const done = (destroy: boolean) => {
      client.off('error', onError);
      client.release(destroy);
    };
    try {
      const result = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [key]);
      if (!result.rows[0]?.ok) {
        done(false);
        return null;
      }
    } catch (error) {
      done(true);
      throw error;
    }
    return {
      assertHeld: async () => {
        if (lost) throw new Error('payout sender lock lost (its database session ended)');
        // Re-entrant on the same session: true as long as this session still holds it.
        const check = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [key]);
        if (!check.rows[0]?.ok) throw new Error('payout sender lock lost');
      },
      release: async () => {
        // Drops every re-entrant hold at once; if that fails the session is ended, which also frees it.
        try {
          await client.query('SELECT pg_advisory_unlock_all()');
          done(lost);
        } catch {
          done(true);
        }
      },
    };
  }
}
