import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { assert } from '../../../common/errors/index.js';
import type { PayoutChainClient } from '../../chain/payout-chain.client.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from '../../chain/payout-chain.provider.js';
import { PayoutLockRepository, type HeldWalletLock } from './payout-lock.repository.js';

export type Exclusive<T> = { busy: true } | { busy: false; value: T };

/**
 * The hot wallet the payouts are sent from: its chain client and its sender lock (one sender per
 * wallet across processes). Whoever signs, broadcasts or changes a booking runs inside
 * `exclusive()`, and the lock held there is found again by `assertHeld()` (an async-local scope),
 * so neither the chain client nor the lock is handed from service to service.
 */
@Injectable()
export class HotWalletService {
  private readonly held = new AsyncLocalStorage<HeldWalletLock>();

  constructor(
    @Inject(PAYOUT_CHAIN) private readonly handle: PayoutChainHandle,
    private readonly locks: PayoutLockRepository,
  ) {}

  /** The chain client, or null when settlement is disabled (see `disabledReason`). */
  get client(): PayoutChainClient | null {
    return this.handle.client;
  }

  get disabledReason(): string | null {
    return this.handle.disabledReason;
  }

  /** The chain client, or the coded 422 that tells an admin what to configure. */
  chain(): PayoutChainClient {
    return this.handle.require();
  }

  /** Runs fn holding the wallet's sender lock; `busy` when another session holds it (for longer than `waitMs`). */
  async exclusive<T>(fn: (chain: PayoutChainClient) => Promise<T>, options: { waitMs?: number } = {}): Promise<Exclusive<T>> {
    const chain = this.chain();
    const lock = await this.locks.tryAcquire(chain.hotWalletAddress, options.waitMs ?? 0);
    if (!lock) return { busy: true };
    try {
      return { busy: false, value: await this.held.run(lock, () => fn(chain)) };
    } finally {
      await lock.release();
    }
  }

  /** Inside exclusive(): fails when the session holding the lock is gone. Call before every irreversible step. */
  async assertHeld(): Promise<void> {
    await this.requireHeld().assertHeld();
  }

  /** The chain client of a caller already inside exclusive() (a bug otherwise). */
  heldChain(): PayoutChainClient {
    this.requireHeld();
    return this.chain();
  }

  private requireHeld(): HeldWalletLock {
    const lock = this.held.getStore();
    assert(lock !== undefined, 'the hot wallet lock is not held here');
    return lock;
  }
}
