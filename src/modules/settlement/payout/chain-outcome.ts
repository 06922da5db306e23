// What the chain did to the attempts of one nonce (a batch and its fee bumps): the one reading of
// the chain that both the tracker (live transactions) and the finality watch (booked ones) act on.
import { assert } from '../../../common/errors/index.js';
import type { PayoutChainClient } from '../../chain/payout-chain.client.js';
import type { TxStatus } from '../../chain/payout-chain.types.js';
import type { PayoutTxRecord } from './payout.types.js';

export type MinedStatus = Extract<TxStatus, { state: 'mined' }>;

export type AttemptsOnChain =
  /** An attempt is in a block (one nonce is mined at most once, so at most one attempt can be). */
  | { kind: 'mined'; attemptIndex: number; status: MinedStatus }
  /** None is mined; one waits in the node's pool. */
  | { kind: 'pending' }
  /** None is mined or pending, and the wallet has not used the nonce: the same bytes can still be mined. */
  | { kind: 'nonce_free' }
  /** None is mined or pending, and another transaction used the nonce: none of them can be mined now. */
  | { kind: 'nonce_taken' };

/**
 * Pure. `statuses[i]` is the status of attempt i; `latestNonce` is the wallet's mined transaction
 * count, read BEFORE the statuses, so an attempt mined after that read is still seen mined (and a
 * taken nonce is never blamed on another transaction while ours was being mined).
 */
export function whatTheChainDid(input: { statuses: readonly TxStatus[]; nonce: number; latestNonce: number }): AttemptsOnChain {
  const attemptIndex = input.statuses.findIndex((s) => s.state === 'mined');
  const mined = input.statuses[attemptIndex];
  if (mined?.state === 'mined') return { kind: 'mined', attemptIndex, status: mined };
  if (input.statuses.some((s) => s.state === 'pending')) return { kind: 'pending' };
  return input.latestNonce > input.nonce ? { kind: 'nonce_taken' } : { kind: 'nonce_free' };
}

/**
 * Reads the chain for the attempts of one nonce: the wallet's nonce first (unless the caller read
 * it once for a whole pass, before any status), then each attempt's status.
 */
export async function observeAttempts(chain: PayoutChainClient, attempts: readonly PayoutTxRecord[], latestNonceRead?: number): Promise<AttemptsOnChain> {
  const nonce = attempts[0]!.nonce;
  assert(attempts.every((a) => a.nonce === nonce), `attempts of nonce ${nonce} mixed with another nonce`);
  const latestNonce = latestNonceRead ?? (await chain.getLatestNonce());
  const statuses = await Promise.all(attempts.map((a) => chain.getTxStatus(a.txHash)));
  return whatTheChainDid({ statuses, nonce, latestNonce });
}

/**
 * The attempts of each nonce, oldest nonce first and attempts in order. A nonce is the unit the
 * chain decides on: at most one of its attempts is ever mined, whichever batch they belong to.
 */
export function groupAttemptsByNonce(rows: readonly PayoutTxRecord[]): PayoutTxRecord[][] {
  const groups = new Map<number, PayoutTxRecord[]>();
  for (const row of rows) {
    const group = groups.get(row.nonce);
    if (group) group.push(row);
    else groups.set(row.nonce, [row]);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([, group]) => group.sort((a, b) => a.attempt - b.attempt));
}
