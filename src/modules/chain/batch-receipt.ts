// Reads which lines of a mined BatchPayout transaction were paid and which were skipped.
import { isAddressEqual, parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem';
import { batchPayoutAbi } from './contract-artifacts.js';
import { PayoutChainError } from './payout-chain.errors.js';

export interface SkippedPayoutLine {
  index: number;
  recipient: Address;
  amountMicroUsdc: bigint;
}

export type BatchReceiptOutcome =
  | { executed: false; txHash: Hex; blockNumber: bigint }
  | {
      executed: true;
      txHash: Hex;
      blockNumber: bigint;
      batchId: Hex;
      lineCount: number;
      paidIndexes: number[];
      skipped: SkippedPayoutLine[];
      totalPaidMicroUsdc: bigint;
    };

/**
 * A reverted transaction paid nobody. Otherwise BatchExecuted gives the counts and each
 * PayoutSkipped names a line; every other line index was paid (the token's Transfer logs prove it).
 */
export function parseBatchReceipt(receipt: TransactionReceipt, payoutContractAddress: Address): BatchReceiptOutcome {
  const base = { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber };
  if (receipt.status !== 'success') return { executed: false, ...base };

  const ours = receipt.logs.filter((log) => isAddressEqual(log.address, payoutContractAddress));
  const events = parseEventLogs({ abi: batchPayoutAbi, logs: ours, strict: true });
  const executedEvents = events.filter((event) => event.eventName === 'BatchExecuted');
  const [executedEvent] = executedEvents;
  if (executedEvents.length !== 1 || !executedEvent) {
    throw inconsistent(receipt, `expected one BatchExecuted log, found ${executedEvents.length}`);
  }
  const { batchId, paidCount, skippedCount, totalPaid } = executedEvent.args;
  const skipped = events.flatMap((event) =>
    event.eventName === 'PayoutSkipped' && event.args.batchId === batchId
      ? [{ index: Number(event.args.index), recipient: event.args.recipient, amountMicroUsdc: event.args.amount }]
      : [],
  );
  if (BigInt(skipped.length) !== skippedCount) {
    throw inconsistent(receipt, `BatchExecuted says ${skippedCount} skipped, ${skipped.length} PayoutSkipped logs`);
  }
  const lineCount = Number(paidCount + skippedCount);
  const skippedIndexes = new Set(skipped.map((line) => line.index));
  const paidIndexes = Array.from({ length: lineCount }, (_, index) => index).filter((i) => !skippedIndexes.has(i));
  return { executed: true, ...base, batchId, lineCount, paidIndexes, skipped, totalPaidMicroUsdc: totalPaid };
}

function inconsistent(receipt: TransactionReceipt, detail: string): PayoutChainError {
  return new PayoutChainError('receipt-inconsistent', `batch receipt ${receipt.transactionHash}: ${detail}`);
}
