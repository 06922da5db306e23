// Thin viem layer the payout worker calls: read state, sign a batch locally (no broadcast), send
// the signed bytes, follow the transaction. Holds no state beyond the RPC client and the account.
import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  createPublicClient,
  ExecutionRevertedError,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  isAddressEqual,
  isHex,
  keccak256,
  parseAbiItem,
  size,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { parseBatchReceipt, type BatchReceiptOutcome } from './batch-receipt.js';
import { isAlreadyKnownError, isNonceTooLowError } from './broadcast-errors.js';
import { batchPayoutAbi } from './contract-artifacts.js';
import { PayoutChainError } from './payout-chain.errors.js';
import { usdcAbi } from './usdc-abi.js';
import type {
  BatchInput,
  BroadcastResult,
  HotWalletState,
  PayoutChainConfig,
  PrepareBatchInput,
  PreflightInput,
  PreflightProblem,
  PreflightResult,
  SignedBatch,
  SimulationResult,
  TransferLog,
  TransferLogKind,
  TxStatus,
} from './payout-chain.types.js';
import { encodePayoutLines, PAYOUT_LINES_PER_BATCH_MAX, sumPayoutLinesMicroUsdc } from './payout-lines.js';

export { encodePayoutLines } from './payout-lines.js';

const RPC_TIMEOUT_MS_DEFAULT = 10_000;
const RPC_RETRY_COUNT = 2;
const RPC_BATCH_SIZE_MAX = 100;
/** Headroom over the estimate: state can change between signing and mining. */
const GAS_LIMIT_MARGIN_PERCENT = 20n;
/** maxFee = 2 x base fee + tip keeps a pre-signed transaction valid through ~6 full blocks. */
const BASE_FEE_MULTIPLIER = 2n;
export const TRANSFER_LOG_BLOCK_RANGE_MAX = 10_000n;
const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export class PayoutChainClient {
  readonly hotWalletAddress: Address;
  readonly usdcAddress: Address;
  readonly payoutContractAddress: Address;
  private readonly chain: Chain;
  private readonly account: PrivateKeyAccount;
  private readonly publicClient: PublicClient;
  /** null until asked: whether the token implements isBlacklisted (Circle's USDC does). */
  private tokenHasBlacklist: boolean | null = null;

  constructor(config: PayoutChainConfig) {
    this.account = privateKeyToAccount(config.payoutPrivateKey);
    this.hotWalletAddress = this.account.address;
    this.usdcAddress = getAddress(config.usdcAddress);
    this.payoutContractAddress = getAddress(config.payoutContractAddress);
    this.chain = defineChain({
      id: config.chainId,
      name: `chain-${config.chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [config.rpcUrl] } },
    });
    const transport = http(config.rpcUrl, {
      timeout: config.rpcTimeoutMs ?? RPC_TIMEOUT_MS_DEFAULT,
      retryCount: RPC_RETRY_COUNT,
      batch: { batchSize: RPC_BATCH_SIZE_MAX, wait: 0 },
    });
    // cacheTime 0: confirmations and nonces must come from the node, never from a cache.
    this.publicClient = createPublicClient({ chain: this.chain, transport, cacheTime: 0 });
  }

  /** Fails fast at boot: wrong chain, missing contracts or a batch contract of another wallet. */
  async verifyChain(): Promise<void> {
    const chainId = await this.publicClient.getChainId();
    if (chainId !== this.chain.id) throw new Error(`RPC chain id ${chainId}, expected ${this.chain.id}`);
    const contract = { address: this.payoutContractAddress, abi: batchPayoutAbi } as const;
    const [owner, token] = await Promise.all([
      this.publicClient.readContract({ ...contract, functionName: 'owner' }),
      this.publicClient.readContract({ ...contract, functionName: 'token' }),
    ]);
    if (!isAddressEqual(owner, this.hotWalletAddress)) throw new Error(`batch contract owner is ${owner}, not the hot wallet`);
    if (!isAddressEqual(token, this.usdcAddress)) throw new Error(`batch contract token is ${token}, not USDC_ADDRESS`);
  }

  async preflight(input: PreflightInput): Promise<PreflightResult> {
    const recipients = [...new Set(input.recipients.map((recipient) => getAddress(recipient)))];
    if (recipients.length > PAYOUT_LINES_PER_BATCH_MAX) {
      throw new PayoutChainError('invalid-payout-lines', `${recipients.length} recipients exceed ${PAYOUT_LINES_PER_BATCH_MAX}`);
    }
    const [paused, wallet, allowanceMicroUsdc, senderFlags, recipientFlags] = await Promise.all([
      this.publicClient.readContract({ ...this.usdc(), functionName: 'paused' }),
      this.readHotWallet(),
      this.publicClient.readContract({
        ...this.usdc(),
        functionName: 'allowance',
        args: [this.hotWalletAddress, this.payoutContractAddress],
      }),
      Promise.all([this.isBlacklisted(this.hotWalletAddress), this.isBlacklisted(this.payoutContractAddress)]),
      Promise.all(recipients.map((recipient) => this.isBlacklisted(recipient))),
    ]);
    const blacklisted = recipients.filter((_, i) => recipientFlags[i] === true);
    const senderBlacklisted = senderFlags.some(Boolean);
    const problems: PreflightProblem[] = [];
    if (paused) problems.push('token-paused');
    if (wallet.usdcMicroUsdc < input.totalMicroUsdc) problems.push('usdc-balance-low');
    if (allowanceMicroUsdc < input.totalMicroUsdc) problems.push('allowance-low');
    if (senderBlacklisted) problems.push('sender-blacklisted');
    if (blacklisted.length > 0) problems.push('recipients-blacklisted');
    return {
      paused,
      hotWalletUsdcMicroUsdc: wallet.usdcMicroUsdc,
      hotWalletNativeWei: wallet.nativeWei,
      allowanceMicroUsdc,
      blacklisted,
      senderBlacklisted,
      problems,
    };
  }

  /** Runs the batch against the latest state; reverts come back as `ok: false` with the reason. */
  async simulateBatch(input: BatchInput): Promise<SimulationResult> {
    const { args } = this.batchCall(input);
    try {
      const { result } = await this.publicClient.simulateContract({
        address: this.payoutContractAddress,
        abi: batchPayoutAbi,
        functionName: 'executeBatch',
        args,
        account: this.account,
      });
      return { ok: true, paidCount: Number(result[0]), skippedCount: Number(result[1]) };
    } catch (error) {
      const revert = findRevert(error);
      if (!revert) throw error;
      return { ok: false, reason: describeRevert(revert), ...(revert.data ? { errorName: revert.data.errorName } : {}) };
    }
  }

  /** Signs locally and returns the bytes and hash to persist; nothing is broadcast here. */
  async prepareSignedBatch(input: PrepareBatchInput): Promise<SignedBatch> {
    const { data, totalMicroUsdc } = this.batchCall(input);
    const fees = await this.resolveFees(input);
    const gasLimit = input.gas ?? (await this.estimateBatchGas(data));
    const serializedTx = await this.account.signTransaction({
      type: 'eip1559',
      chainId: this.chain.id,
      nonce: input.nonce,
      to: this.payoutContractAddress,
      value: 0n,
      data,
      gas: gasLimit,
      ...fees,
    });
    return { serializedTx, txHash: keccak256(serializedTx), nonce: input.nonce, gasLimit, totalMicroUsdc, ...fees };
  }

  /** Sends signed bytes; sending the same bytes again (after a crash or a drop) is a success. */
  async broadcastRaw(serializedTx: Hex): Promise<BroadcastResult> {
    const txHash = keccak256(serializedTx);
    try {
      const sentHash = await this.publicClient.sendRawTransaction({ serializedTransaction: serializedTx });
      if (sentHash.toLowerCase() !== txHash.toLowerCase()) throw new Error(`node returned hash ${sentHash}, expected ${txHash}`);
      return { txHash, outcome: 'accepted' };
    } catch (error) {
      if (isAlreadyKnownError(error)) return { txHash, outcome: 'already-known' };
      if (!isNonceTooLowError(error)) throw error;
      // Nonce used: fine if by this very transaction, otherwise another one took its place.
      if ((await this.getTxStatus(txHash)).state !== 'unknown') return { txHash, outcome: 'already-known' };
      throw new PayoutChainError('nonce-consumed', `the nonce of ${txHash} was used by another transaction`, { cause: error });
    }
  }

  async getTxStatus(txHash: Hex): Promise<TxStatus> {
    const receipt = await this.getReceipt(txHash);
    if (receipt) {
      const latestBlock = await this.publicClient.getBlockNumber({ cacheTime: 0 });
      return {
        state: 'mined',
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        status: receipt.status,
        gasUsed: receipt.gasUsed,
        confirmations: Number(latestBlock - receipt.blockNumber + 1n),
      };
    }
    try {
      await this.publicClient.getTransaction({ hash: txHash });
      return { state: 'pending' };
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return { state: 'unknown' };
      throw error;
    }
  }

  async getReceipt(txHash: Hex): Promise<TransactionReceipt | null> {
    try {
      return await this.publicClient.getTransactionReceipt({ hash: txHash });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    }
  }

  parseBatchReceipt(receipt: TransactionReceipt): BatchReceiptOutcome {
    return parseBatchReceipt(receipt, this.payoutContractAddress);
  }

  /** Next nonce counting the node's pool: what a new transaction would use. */
  getPendingNonce(): Promise<number> {
    return this.publicClient.getTransactionCount({ address: this.hotWalletAddress, blockTag: 'pending' });
  }

  /** Transactions mined so far: a persisted nonce below this was consumed. */
  getLatestNonce(): Promise<number> {
    return this.publicClient.getTransactionCount({ address: this.hotWalletAddress, blockTag: 'latest' });
  }

  /** Transactions mined up to a block: below a final block, a consumed nonce stays consumed. */
  getNonceAtBlock(blockNumber: bigint): Promise<number> {
    return this.publicClient.getTransactionCount({ address: this.hotWalletAddress, blockNumber });
  }

  getBlockNumber(): Promise<bigint> {
    return this.publicClient.getBlockNumber({ cacheTime: 0 });
  }

  /** The batch contract's own record: true once any transaction executed this batch id. */
  isBatchExecuted(batchId: Hex): Promise<boolean> {
    return this.publicClient.readContract({ address: this.payoutContractAddress, abi: batchPayoutAbi, functionName: 'batchExecuted', args: [batchId] });
  }

  async readHotWallet(): Promise<HotWalletState> {
    const [usdcMicroUsdc, nativeWei] = await Promise.all([
      this.publicClient.readContract({ ...this.usdc(), functionName: 'balanceOf', args: [this.hotWalletAddress] }),
      this.publicClient.getBalance({ address: this.hotWalletAddress, blockTag: 'latest' }),
    ]);
    return { address: this.hotWalletAddress, usdcMicroUsdc, nativeWei };
  }

  /** USDC Transfer logs out of the hot wallet or the batch contract, for reconciliation. */
  async getTransferLogs(range: { fromBlock: bigint; toBlock: bigint }): Promise<TransferLog[]> {
    const { fromBlock, toBlock } = range;
    if (toBlock < fromBlock || toBlock - fromBlock + 1n > TRANSFER_LOG_BLOCK_RANGE_MAX) {
      throw new PayoutChainError('log-range-too-wide', `blocks ${fromBlock}..${toBlock}: at most ${TRANSFER_LOG_BLOCK_RANGE_MAX} per call`);
    }
    const logs = await this.publicClient.getLogs({
      address: this.usdcAddress,
      event: TRANSFER_EVENT,
      args: { from: [this.hotWalletAddress, this.payoutContractAddress] },
      fromBlock,
      toBlock,
      strict: true,
    });
    return logs.map((log) => ({
      blockNumber: log.blockNumber,
      txHash: log.transactionHash,
      logIndex: log.logIndex,
      from: log.args.from,
      to: log.args.to,
      amountMicroUsdc: log.args.value,
      kind: this.transferKind(log.args.from, log.args.to),
    }));
  }

  private transferKind(from: Address, to: Address): TransferLogKind {
    const fromContract = isAddressEqual(from, this.payoutContractAddress);
    if (fromContract) return isAddressEqual(to, this.hotWalletAddress) ? 'skipped-refund' : 'payout';
    return isAddressEqual(to, this.payoutContractAddress) ? 'batch-funding' : 'direct';
  }

  private batchCall(input: BatchInput): { args: readonly [Hex, bigint, bigint[]]; data: Hex; totalMicroUsdc: bigint } {
    if (!isHex(input.batchId, { strict: true }) || size(input.batchId) !== 32) {
      throw new PayoutChainError('invalid-payout-lines', `batchId must be 32 bytes of hex, got ${input.batchId}`);
    }
    const totalMicroUsdc = sumPayoutLinesMicroUsdc(input.lines);
    const args = [input.batchId, totalMicroUsdc, encodePayoutLines(input.lines)] as const;
    const data = encodeFunctionData({ abi: batchPayoutAbi, functionName: 'executeBatch', args });
    return { args, data, totalMicroUsdc };
  }

  private async resolveFees(input: PrepareBatchInput): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const maxPriorityFeePerGas =
      input.maxPriorityFeePerGas ?? (await this.publicClient.estimateMaxPriorityFeePerGas({ chain: this.chain }));
    let maxFeePerGas = input.maxFeePerGas;
    if (maxFeePerGas === undefined) {
      const block = await this.publicClient.getBlock({ blockTag: 'latest' });
      if (block.baseFeePerGas === null) throw new Error('chain has no EIP-1559 base fee');
      maxFeePerGas = block.baseFeePerGas * BASE_FEE_MULTIPLIER + maxPriorityFeePerGas;
    }
    if (maxPriorityFeePerGas > maxFeePerGas) throw new Error('maxPriorityFeePerGas exceeds maxFeePerGas');
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  private async estimateBatchGas(data: Hex): Promise<bigint> {
    try {
      const estimate = await this.publicClient.estimateGas({ account: this.account, to: this.payoutContractAddress, data });
      return (estimate * (100n + GAS_LIMIT_MARGIN_PERCENT)) / 100n;
    } catch (error) {
      const revert = findRevert(error);
      const reason = revert ? describeRevert(revert) : errorText(error);
      throw new PayoutChainError('simulation-failed', `gas estimation failed: ${reason}`, { cause: error });
    }
  }

  /** True when the address holds contract code (a contract, or an EIP-7702 delegated account). */
  async hasCode(address: Address): Promise<boolean> {
    const code = await this.publicClient.getCode({ address, blockTag: 'latest' });
    return code !== undefined && code !== '0x';
  }

  /**
   * USDC's `isBlacklisted`, where the token has it. A token without the function (the first call
   * reverts with no data, or returns nothing) has no blacklist to consult: false from then on.
   * Once the function answered, a later failure is an error, never a silent "not listed".
   */
  async isBlacklisted(account: Address): Promise<boolean> {
    if (this.tokenHasBlacklist === false) return false;
    try {
      const listed = await this.publicClient.readContract({ ...this.usdc(), functionName: 'isBlacklisted', args: [account] });
      this.tokenHasBlacklist = true;
      return listed;
    } catch (error) {
      if (this.tokenHasBlacklist === null && lacksFunction(error)) {
        this.tokenHasBlacklist = false;
        return false;
      }
      throw error;
    }
  }

  private usdc() {
    return { address: this.usdcAddress, abi: usdcAbi } as const;
  }
}

/** The call reached a contract without that function: a bare revert (no reason, no data) or no return data. */
function lacksFunction(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  if (error.walk((cause) => cause instanceof ContractFunctionZeroDataError)) return true;
  const revert = findRevert(error);
  // No revert data (viem then puts the node's "execution reverted" in `reason`).
  if (revert) return revert.data === undefined && (revert.raw === undefined || revert.raw === '0x');
  // The node's bare "execution reverted" (no revert data at all).
  return error.walk((cause) => cause instanceof ExecutionRevertedError) instanceof ExecutionRevertedError;
}

function findRevert(error: unknown): ContractFunctionRevertedError | null {
  if (!(error instanceof BaseError)) return null;
  const found = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  return found instanceof ContractFunctionRevertedError ? found : null;
}

/** "Pausable: paused" for require strings, "BatchAlreadyExecuted(0x..)" for custom errors. */
function describeRevert(revert: ContractFunctionRevertedError): string {
  if (revert.reason) return revert.reason;
  if (revert.data) return `${revert.data.errorName}(${(revert.data.args ?? []).map(String).join(', ')})`;
  return revert.shortMessage;
}

function errorText(error: unknown): string {
  return error instanceof BaseError ? error.shortMessage : String(error);
}
