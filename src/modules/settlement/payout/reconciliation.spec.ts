import type { Address, Hex } from 'viem';
import type { TransferLog } from '../../chain/payout-chain.types.js';
import { reconcile } from './reconciliation.js';

const tx = '0xaa' as Hex;
const other = '0xbb' as Hex;
const a = '0x00000000000000000000000000000000000000a1' as Address;
const b = '0x00000000000000000000000000000000000000b2' as Address;
const wallet = '0x00000000000000000000000000000000000000ff' as Address;
const contract = '0x00000000000000000000000000000000000000cc' as Address;
const log = (txHash: Hex, kind: TransferLog['kind'], to: Address, amountMicroUsdc: bigint): TransferLog => ({
  blockNumber: 1n, txHash, logIndex: 0, from: kind === 'batch-funding' ? wallet : contract, to, amountMicroUsdc, kind,
});
const now = new Date('2026-11-29T12:00:00Z');

describe('reconciliation', () => {
  it('is ok when every paid line has its transfer and the funding nets to zero', () => {
    const result = reconcile({
      paidLines: [{ lineId: 'l1', txHash: tx, recipient: a, amountMicroUsdc: 5n }, { lineId: 'l2', txHash: tx, recipient: b, amountMicroUsdc: 7n }],
      transfers: [log(tx, 'batch-funding', contract, 15n), log(tx, 'payout', a, 5n), log(tx, 'payout', b, 7n), log(tx, 'skipped-refund', wallet, 3n), log(other, 'payout', a, 99n)],
      txHashes: [tx],
      now,
    });
    expect(result).toMatchObject({ ok: true, paid_lines: 2, chain_payouts: 2, missing_on_chain: 0, unexpected_on_chain: 0, funding_mismatches: 0 });
  });

  it('reports a wrong amount as one missing and one unexpected, and unbalanced funding', () => {
    const result = reconcile({
      paidLines: [{ lineId: 'l1', txHash: tx, recipient: a, amountMicroUsdc: 5n }],
      transfers: [log(tx, 'batch-funding', contract, 5n), log(tx, 'payout', a, 4n)],
      txHashes: [tx],
      now,
    });
    expect(result.ok).toBe(false);
    expect(result.missing_on_chain).toBe(1);
    expect(result.unexpected_on_chain).toBe(1);
    expect(result.differences.map((d) => d.kind)).toEqual(['missing_on_chain', 'unexpected_on_chain', 'funding_mismatch']);
  });
});
