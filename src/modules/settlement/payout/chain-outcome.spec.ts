import fc from 'fast-check';
import type { TxStatus } from '../../chain/payout-chain.types.js';
import { groupAttemptsByNonce, whatTheChainDid } from './chain-outcome.js';
import type { PayoutTxRecord } from './payout.types.js';

const mined = (confirmations: number): TxStatus => ({ state: 'mined', blockNumber: 10n, blockHash: '0xaa', status: 'success', gasUsed: 1n, confirmations });

describe('whatTheChainDid', () => {
  it.each([
    ['an attempt mined, whatever the nonce says', [{ state: 'unknown' }, mined(1)], 9, { kind: 'mined', attemptIndex: 1, status: mined(1) }],
    ['one in the pool', [{ state: 'unknown' }, { state: 'pending' }], 9, { kind: 'pending' }],
    ['gone, the wallet has not reached the nonce', [{ state: 'unknown' }], 7, { kind: 'nonce_free' }],
    ['gone, the wallet is below the nonce', [{ state: 'unknown' }], 5, { kind: 'nonce_free' }],
    ['gone, the wallet passed the nonce', [{ state: 'unknown' }], 8, { kind: 'nonce_taken' }],
  ] as Array<[string, TxStatus[], number, unknown]>)('%s', (_label, statuses, latestNonce, expected) => {
    expect(whatTheChainDid({ statuses, nonce: 7, latestNonce })).toEqual(expected);
  });

  it('is mined exactly when an attempt is, pending only when none is mined', () => {
    const status = fc.oneof(fc.constant<TxStatus>({ state: 'unknown' }), fc.constant<TxStatus>({ state: 'pending' }), fc.nat(100).map(mined));
    fc.assert(
      fc.property(fc.array(status, { minLength: 1, maxLength: 6 }), fc.nat(20), fc.nat(20), (statuses, nonce, latestNonce) => {
        const seen = whatTheChainDid({ statuses, nonce, latestNonce });
        expect(seen.kind === 'mined').toBe(statuses.some((s) => s.state === 'mined'));
        if (seen.kind === 'pending') expect(statuses.some((s) => s.state === 'pending')).toBe(true);
        if (seen.kind === 'nonce_taken') expect(latestNonce > nonce).toBe(true);
      }),
    );
  });
});

describe('groupAttemptsByNonce', () => {
  const row = (nonce: number, attempt: number) => ({ id: `${nonce}-${attempt}`, nonce, attempt }) as PayoutTxRecord;

  it('groups by nonce, oldest nonce first, attempts in order, and loses no row', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.nat(5), fc.integer({ min: 1, max: 5 })), { selector: ([n, a]) => `${n}-${a}` }), (pairs) => {
        const groups = groupAttemptsByNonce(pairs.map(([n, a]) => row(n, a)));
        expect(groups.flat().length).toBe(pairs.length);
        const nonces = groups.map((g) => g[0]!.nonce);
        expect(nonces).toEqual([...new Set(nonces)].sort((a, b) => a - b));
        for (const group of groups) {
          expect(group.every((r) => r.nonce === group[0]!.nonce)).toBe(true);
          expect(group.map((r) => r.attempt)).toEqual(group.map((r) => r.attempt).sort((a, b) => a - b));
        }
      }),
    );
  });
});
