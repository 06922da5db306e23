import fc from 'fast-check';
import { assertBalanced, netBalanceDeltas, type JournalDraft } from './journal-draft.js';

const usage = (ref: string, charge: bigint, payout: bigint): JournalDraft => ({
  kind: 'usage',
  ref,
  postings: [
    { accountCode: 'user:u1', amountAtto: -charge },
    { accountCode: 'contributor:c1:payable', amountAtto: payout },
    { accountCode: 'platform:revenue', amountAtto: charge - payout },
  ],
});

describe('journal drafts', () => {
  it('accepts balanced and refuses unbalanced or one-legged entries', () => {
    expect(() => assertBalanced(usage('e1', 13n, 11n))).not.toThrow();
    expect(() => assertBalanced({ kind: 'topup', ref: 'r', postings: [{ accountCode: 'user:u', amountAtto: 1n }, { accountCode: 'external:funding', amountAtto: 0n }] })).toThrow(/does not balance/);
    expect(() => assertBalanced({ kind: 'topup', ref: 'r', postings: [{ accountCode: 'user:u', amountAtto: 0n }] })).toThrow(/two postings/);
    expect(() => assertBalanced({ kind: 'topup', ref: 'r', postings: [{ accountCode: 'nope', amountAtto: 1n }, { accountCode: 'user:u', amountAtto: -1n }] })).toThrow(/unknown ledger account/);
  });

  it('nets tracked accounts only, sorted by code, and keeps every unit', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.bigInt({ min: 0n, max: 10n ** 20n })), { maxLength: 30 }), (pairs) => {
        const drafts = pairs.map(([a, b], i) => usage(`e${i}`, a + b, a));
        const deltas = netBalanceDeltas(drafts);
        const codes = deltas.map((d) => d.accountCode);
        expect(codes).toEqual([...codes].sort());
        expect(codes).not.toContain('platform:revenue');
        const user = deltas.find((d) => d.accountCode === 'user:u1')?.balanceDeltaAtto ?? 0n;
        const payable = deltas.find((d) => d.accountCode === 'contributor:c1:payable')?.balanceDeltaAtto ?? 0n;
        const revenue = pairs.reduce((sum, [, b]) => sum + b, 0n);
        expect(user + payable + revenue).toBe(0n);
      }),
    );
  });
});
