import type { TxStatus } from '../../chain/payout-chain.types.js';
import { whatTheChainDid } from './chain-outcome.js';
import { bookingDifferences, finalBlockNumber, finalityDepthBlocks, finalityVerdict } from './payout-finality.js';
import { finishedStatus, reorgedDraft } from './payout-outcome.service.js';
import type { SettlementLineRecord } from '../creation/settlement.types.js';

const BLOCK_A = '0xaaaa';
const BLOCK_B = '0xbbbb';
const mined = (blockHash: string, confirmations: number): TxStatus => ({ state: 'mined', blockNumber: 10n, blockHash: blockHash as `0x${string}`, status: 'success', gasUsed: 1n, confirmations });
const base: { bookedIndex: number; bookedBlockHash: string | null; nonce: number; latestNonce: number; finalNonce: number; finalityBlocks: number } = { bookedIndex: 0, bookedBlockHash: BLOCK_A, nonce: 7, latestNonce: 8, finalNonce: 8, finalityBlocks: 12 };
/** The finality service's two steps: what the chain did (one reading), then what it means for the booking. */
const verdictOf = ({ statuses, latestNonce, ...booking }: typeof base & { statuses: TxStatus[] }) =>
  finalityVerdict({ ...booking, seen: whatTheChainDid({ statuses, nonce: booking.nonce, latestNonce }) });

describe('finalityVerdict over what the chain did', () => {
  it.each([
    ['still in its block, deep enough', [mined(BLOCK_A, 12)], 'final'],
    ['still in its block, not deep enough', [mined(BLOCK_A, 11)], 'unchanged'],
    ['block hash compared without case', [mined(BLOCK_A.toUpperCase().replace('0X', '0x'), 3)], 'unchanged'],
    ['in the pool again', [{ state: 'pending' }], 'waiting'],
  ] as Array<[string, TxStatus[], string]>)('%s -> %s', (_label, statuses, kind) => {
    expect(verdictOf({ ...base, statuses }).kind).toBe(kind);
  });

  it('re-included in another block (a new hash at any height) is a move of the same attempt', () => {
    expect(verdictOf({ ...base, statuses: [mined(BLOCK_B, 1)] })).toEqual({ kind: 'moved', attemptIndex: 0 });
    // Seen reorganised out before (hash cleared), now mined again.
    expect(verdictOf({ ...base, bookedBlockHash: null, statuses: [mined(BLOCK_A, 40)] })).toEqual({ kind: 'moved', attemptIndex: 0 });
  });

  it('another attempt of the nonce (a fee-bump sibling) mined instead is a move to that attempt', () => {
    expect(verdictOf({ ...base, statuses: [{ state: 'unknown' }, mined(BLOCK_B, 2)] })).toEqual({ kind: 'moved', attemptIndex: 1 });
  });

  it('gone and the nonce free: rebroadcast', () => {
    expect(verdictOf({ ...base, statuses: [{ state: 'unknown' }], latestNonce: 7, finalNonce: 7 }).kind).toBe('rebroadcast');
    expect(verdictOf({ ...base, statuses: [{ state: 'unknown' }], latestNonce: 5, finalNonce: 5 }).kind).toBe('rebroadcast');
  });

  it('gone and the nonce used by another transaction: lost only once that one is final too', () => {
    const gone: TxStatus[] = [{ state: 'unknown' }, { state: 'unknown' }];
    expect(verdictOf({ ...base, statuses: gone, latestNonce: 8, finalNonce: 7 }).kind).toBe('waiting');
    expect(verdictOf({ ...base, statuses: gone, latestNonce: 9, finalNonce: 8 }).kind).toBe('lost');
  });

  it('finality is never shallower than the confirmations that book a payout', () => {
    expect(finalityDepthBlocks({ SETTLEMENT_CONFIRMATIONS: 3, SETTLEMENT_FINALITY_BLOCKS: 64 })).toBe(64);
    expect(finalityDepthBlocks({ SETTLEMENT_CONFIRMATIONS: 80, SETTLEMENT_FINALITY_BLOCKS: 64 })).toBe(80);
  });

  it('the final block is the newest one with enough confirmations (the head counts as one)', () => {
    expect(finalBlockNumber(100n, 1)).toBe(100n);
    expect(finalBlockNumber(100n, 12)).toBe(89n);
    expect(finalBlockNumber(5n, 64)).toBe(0n);
  });
});

describe('bookingDifferences', () => {
  it('the same outcome: nothing to change', () => {
    expect(bookingDifferences({ bookedPaid: [true, false, true], chainPaidIndexes: [0, 2] })).toEqual({ unpaidIndexes: [], unbookedIndexes: [] });
  });

  it('reverted or gone for good: every booked payment is reversed', () => {
    expect(bookingDifferences({ bookedPaid: [true, false, true], chainPaidIndexes: [] })).toEqual({ unpaidIndexes: [0, 2], unbookedIndexes: [] });
  });

  it('a line skipped now but paid before is reversed; one paid now but not booked is a conflict', () => {
    expect(bookingDifferences({ bookedPaid: [true, false, true], chainPaidIndexes: [1, 2] })).toEqual({ unpaidIndexes: [0], unbookedIndexes: [1] });
    // A reverted booking released its lines: anything it pays now was not booked.
    expect(bookingDifferences({ bookedPaid: [], chainPaidIndexes: [2, 0, 1] })).toEqual({ unpaidIndexes: [], unbookedIndexes: [0, 1, 2] });
  });
});

describe('reorganisation bookkeeping', () => {
  it('reverses a paid line from paid to payable, balanced, one entry per line', () => {
    const line = { id: 'line-1', contributorId: 'c1', amountMicroUsdc: 2_500_000n } as SettlementLineRecord;
    expect(reorgedDraft(line)).toEqual({
      kind: 'settlement_reorged',
      ref: 'line-1',
      postings: [
        { accountCode: 'contributor:c1:paid', amountAtto: -2_500_000n * 10n ** 12n },
        { accountCode: 'contributor:c1:payable', amountAtto: 2_500_000n * 10n ** 12n },
      ],
    });
  });

  it('a finished settlement ends as its lines say', () => {
    expect(finishedStatus({ queued: 0, submitted: 0, paid: 3, failed: 0 })).toBe('confirmed');
    expect(finishedStatus({ queued: 0, submitted: 0, paid: 2, failed: 1 })).toBe('partially_failed');
    expect(finishedStatus({ queued: 0, submitted: 0, paid: 0, failed: 3 })).toBe('failed');
    expect(() => finishedStatus({ queued: 1, submitted: 0, paid: 2, failed: 0 })).toThrow();
  });
});
