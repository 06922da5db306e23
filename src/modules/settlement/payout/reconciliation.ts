// Compares USDC Transfer logs with paid lines: pure, no I/O.
import type { TransferLog } from '../../chain/payout-chain.types.js';

/** Differences listed per kind in a stored reconciliation; the counts are always complete. */
export const RECONCILIATION_DIFFERENCES_LISTED_MAX = 50;

export interface PaidLineForReconciliation {
  lineId: string;
  txHash: string;
  recipient: string;
  amountMicroUsdc: bigint;
}

export interface Reconciliation {
  ok: boolean;
  checked_at: string;
  paid_lines: number;
  chain_payouts: number;
  paid_total_micro_usdc: string;
  chain_total_micro_usdc: string;
  /** Paid in the ledger, no matching Transfer (same tx, recipient, amount) on chain. */
  missing_on_chain: number;
  /** A payout Transfer of our transactions no paid line accounts for. */
  unexpected_on_chain: number;
  /** Transactions whose funding pull minus refunds differs from what they paid out. */
  funding_mismatches: number;
  differences: Array<{ kind: 'missing_on_chain' | 'unexpected_on_chain' | 'funding_mismatch'; tx_hash: string; recipient?: string; amount_micro_usdc: string; line_id?: string }>;
}

const key = (txHash: string, recipient: string, amountMicroUsdc: bigint) => `${txHash.toLowerCase()}|${recipient.toLowerCase()}|${amountMicroUsdc}`;

export function reconcile(input: { paidLines: readonly PaidLineForReconciliation[]; transfers: readonly TransferLog[]; txHashes: readonly string[]; now: Date }): Reconciliation {
  const ours = new Set(input.txHashes.map((h) => h.toLowerCase()));
  const transfers = input.transfers.filter((t) => ours.has(t.txHash.toLowerCase()));
  const payouts = transfers.filter((t) => t.kind === 'payout');
  // Multiset of on-chain payouts; each paid line consumes one.
  const unmatched = new Map<string, TransferLog[]>();
  for (const t of payouts) unmatched.set(key(t.txHash, t.to, t.amountMicroUsdc), [...(unmatched.get(key(t.txHash, t.to, t.amountMicroUsdc)) ?? []), t]);
  const differences: Reconciliation['differences'] = [];
  let missing = 0;
  for (const line of input.paidLines) {
    const found = unmatched.get(key(line.txHash, line.recipient, line.amountMicroUsdc));
    if (found && found.length > 0) {
      found.pop();
      continue;
    }
    missing += 1;
    differences.push({ kind: 'missing_on_chain', tx_hash: line.txHash, recipient: line.recipient, amount_micro_usdc: line.amountMicroUsdc.toString(), line_id: line.lineId });
  }
  const unexpected = [...unmatched.values()].flat();
  for (const t of unexpected) differences.push({ kind: 'unexpected_on_chain', tx_hash: t.txHash, recipient: t.to, amount_micro_usdc: t.amountMicroUsdc.toString() });
  const funding = fundingMismatches(transfers);
  differences.push(...funding);
  const paidTotal = input.paidLines.reduce((sum, l) => sum + l.amountMicroUsdc, 0n);
  const chainTotal = payouts.reduce((sum, t) => sum + t.amountMicroUsdc, 0n);
  return {
    ok: missing === 0 && unexpected.length === 0 && funding.length === 0 && paidTotal === chainTotal,
    checked_at: input.now.toISOString(),
    paid_lines: input.paidLines.length,
    chain_payouts: payouts.length,
    paid_total_micro_usdc: paidTotal.toString(),
    chain_total_micro_usdc: chainTotal.toString(),
    missing_on_chain: missing,
    unexpected_on_chain: unexpected.length,
    funding_mismatches: funding.length,
    differences: differences.slice(0, RECONCILIATION_DIFFERENCES_LISTED_MAX * 3),
  };
}

/** Per transaction: pulled into the contract - refunded to the wallet == paid out (nothing stays). */
function fundingMismatches(transfers: readonly TransferLog[]): Reconciliation['differences'] {
  const netByTx = new Map<string, bigint>();
  for (const t of transfers) {
    const sign = t.kind === 'batch-funding' ? 1n : t.kind === 'payout' || t.kind === 'skipped-refund' ? -1n : 0n;
    netByTx.set(t.txHash.toLowerCase(), (netByTx.get(t.txHash.toLowerCase()) ?? 0n) + sign * t.amountMicroUsdc);
  }
  return [...netByTx.entries()].filter(([, net]) => net !== 0n).map(([txHash, net]) => ({ kind: 'funding_mismatch' as const, tx_hash: txHash, amount_micro_usdc: net.toString() }));
}
