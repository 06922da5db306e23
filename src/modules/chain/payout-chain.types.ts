import type { Address, Hex } from 'viem';
import type { PayoutLine } from './payout-lines.js';

export interface PayoutChainConfig {
  rpcUrl: string;
  chainId: number;
  usdcAddress: Address;
  payoutContractAddress: Address;
  /** The hot wallet key; held only inside a viem local account, never logged or returned. */
  payoutPrivateKey: Hex;
  rpcTimeoutMs?: number;
}

export interface PreflightInput {
  recipients: readonly Address[];
  totalMicroUsdc: bigint;
}

export type PreflightProblem =
  | 'token-paused'
  | 'usdc-balance-low'
  | 'allowance-low'
  | 'sender-blacklisted'
  | 'recipients-blacklisted';

export interface PreflightResult {
  paused: boolean;
  hotWalletUsdcMicroUsdc: bigint;
  hotWalletNativeWei: bigint;
  allowanceMicroUsdc: bigint;
  /** Recipients the token refuses: the contract would skip them. */
  blacklisted: Address[];
  /** The hot wallet or the batch contract itself is blacklisted: nothing can be paid. */
  senderBlacklisted: boolean;
  problems: PreflightProblem[];
}

export interface BatchInput {
  /** bytes32, unique per batch; the contract refuses a second execution. */
  batchId: Hex;
  lines: readonly PayoutLine[];
}

export interface PrepareBatchInput extends BatchInput {
  nonce: number;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  /** Gas limit; estimated (plus a margin) when omitted. */
  gas?: bigint;
}

/** Everything the worker persists before broadcasting, so a restart can rebroadcast the same bytes. */
export interface SignedBatch {
  serializedTx: Hex;
  txHash: Hex;
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  gasLimit: bigint;
  totalMicroUsdc: bigint;
}

export type SimulationResult =
  | { ok: true; paidCount: number; skippedCount: number }
  | { ok: false; reason: string; errorName?: string };

export type BroadcastResult = {
  txHash: Hex;
  /** `accepted`: newly sent; `already-known`: in the node's pool or already mined. */
  outcome: 'accepted' | 'already-known';
};

export type TxStatus =
  | { state: 'unknown' }
  | { state: 'pending' }
  | {
      state: 'mined';
      blockNumber: bigint;
      /** Tells a reorganisation apart: the same transaction in another block has another hash. */
      blockHash: Hex;
      status: 'success' | 'reverted';
      gasUsed: bigint;
      confirmations: number;
    };

export interface HotWalletState {
  address: Address;
  usdcMicroUsdc: bigint;
  nativeWei: bigint;
}

export type TransferLogKind = 'payout' | 'batch-funding' | 'skipped-refund' | 'direct';

export interface TransferLog {
  blockNumber: bigint;
  txHash: Hex;
  logIndex: number;
  from: Address;
  to: Address;
  amountMicroUsdc: bigint;
  /** payout: batch contract to a recipient; batch-funding: hot wallet to the batch contract. */
  kind: TransferLogKind;
}
