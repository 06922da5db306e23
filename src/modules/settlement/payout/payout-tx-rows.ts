// settlement_txs row -> record at the repository boundary (NUMERIC arrives as text).
import type { Address, Hex } from 'viem';
import { toBigInt, toBigIntOrNull } from '../../../database/sql.js';
import type { PayoutTxRecord, PayoutTxStatus } from './payout.types.js';

export interface TxRow {
  id: string;
  settlement_id: string;
  batch_id: string;
  attempt: number;
  from_address: string;
  nonce: number;
  signed_raw: string;
  tx_hash: string;
  max_fee_per_gas_wei: string;
  max_priority_fee_per_gas_wei: string;
  gas_limit: string;
  status: string;
  gas_used: string | null;
  block_number: string | null;
  block_hash: string | null;
  final_at: Date | null;
  reorg_count: number;
  reorg_conflict: string | null;
  line_count: number;
  error: string | null;
  created_at: Date;
}

export function toTx(row: TxRow): PayoutTxRecord {
  return {
    id: row.id,
    settlementId: row.settlement_id,
    batchId: row.batch_id as Hex,
    attempt: row.attempt,
    fromAddress: row.from_address as Address,
    nonce: row.nonce,
    signedRaw: row.signed_raw as Hex,
    txHash: row.tx_hash as Hex,
    maxFeePerGasWei: toBigInt(row.max_fee_per_gas_wei),
    maxPriorityFeePerGasWei: toBigInt(row.max_priority_fee_per_gas_wei),
    gasLimit: toBigInt(row.gas_limit),
    status: row.status as PayoutTxStatus,
    gasUsed: toBigIntOrNull(row.gas_used),
    blockNumber: toBigIntOrNull(row.block_number),
    blockHash: row.block_hash as Hex | null,
    finalAt: row.final_at,
    reorgCount: row.reorg_count,
    reorgConflict: row.reorg_conflict,
    lineCount: row.line_count,
    error: row.error,
    createdAt: row.created_at,
  };
}
