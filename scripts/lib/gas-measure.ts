// Gas per recipient of a payout to new (then existing) holders: BatchPayout vs the Disperse
// baseline vs one transfer per transaction, side by side on the same chain and token.
// Used by the benchmark; tests assert only functional facts, never these numbers.
import { randomBytes } from 'node:crypto';
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  maxUint256,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Chain,
  type Account,
  type Transport,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { disperseAbi, disperseBytecode, testUsdcAbi } from '../../contracts/test-contracts.js';
import { PayoutChainClient } from '../../src/modules/chain/payout-chain.client.js';
import type { PayoutLine } from '../../src/modules/chain/payout-lines.js';
import { devChain, type Devchain } from './devchain.js';

export interface GasPerRecipient {
  newHolders: number;
  existingHolders: number;
}

export interface PayoutGasMeasurement {
  recipientCount: number;
  batchPayout: GasPerRecipient;
  /** Original Disperse: pull the total once, then transfer per recipient. */
  disperseToken: GasPerRecipient;
  /** Disperse's transferFrom-per-recipient variant. */
  disperseTokenSimple: GasPerRecipient;
  /** One ERC-20 transfer per transaction (existing holders: same recipients again). */
  singleTransfer: GasPerRecipient;
}

type HotWallet = WalletClient<Transport, Chain, Account>;

const RECEIPT_TIMEOUT_MS = 30_000;

export async function measurePayoutGas(devchain: Devchain, recipientCount: number): Promise<PayoutGasMeasurement> {
  const chain = devChain(devchain.rpcUrl);
  const transport = http(devchain.rpcUrl, { timeout: RECEIPT_TIMEOUT_MS, retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 });
  const hotWallet = createWalletClient({ chain, transport, account: privateKeyToAccount(devchain.payoutPrivateKey) });
  const disperseAddress = await deployDisperse(publicClient, hotWallet, devchain.usdcAddress);
  const payoutClient = new PayoutChainClient(devchain);
  const context = { publicClient, hotWallet, payoutClient, disperseAddress, usdcAddress: devchain.usdcAddress };

  const measureTwice = async (run: (lines: PayoutLine[]) => Promise<bigint>): Promise<GasPerRecipient> => {
    const lines = freshPayoutLines(recipientCount);
    const newHoldersGas = await run(lines);
    const existingHoldersGas = await run(lines);
    return { newHolders: perRecipient(newHoldersGas, recipientCount), existingHolders: perRecipient(existingHoldersGas, recipientCount) };
  };
  return {
    recipientCount,
    batchPayout: await measureTwice((lines) => runBatchPayout(context, lines)),
    disperseToken: await measureTwice((lines) => runDisperse(context, 'disperseToken', lines)),
    disperseTokenSimple: await measureTwice((lines) => runDisperse(context, 'disperseTokenSimple', lines)),
    singleTransfer: await measureTwice((lines) => runSingleTransfers(context, lines)),
  };
}

interface MeasureContext {
  publicClient: PublicClient;
  hotWallet: HotWallet;
  payoutClient: PayoutChainClient;
  disperseAddress: Address;
  usdcAddress: Address;
}

/** Recipients that never held the token, with realistic payout amounts (tens of USDC). */
export function freshPayoutLines(count: number): PayoutLine[] {
  return Array.from({ length: count }, (_, i) => ({
    recipient: getAddress(toHex(randomBytes(20))),
    amountMicroUsdc: 10_000_000n + BigInt(i) * 12_345n,
  }));
}

async function deployDisperse(publicClient: PublicClient, hotWallet: HotWallet, usdcAddress: Address): Promise<Address> {
  const deployHash = await hotWallet.deployContract({ abi: disperseAbi, bytecode: disperseBytecode, args: [] });
  const { contractAddress } = await successfulReceipt(publicClient, deployHash);
  if (!contractAddress) throw new Error('Disperse deployment returned no address');
  await successfulReceipt(publicClient, await hotWallet.writeContract({
    address: usdcAddress, abi: testUsdcAbi, functionName: 'approve', args: [contractAddress, maxUint256],
  }));
  return contractAddress;
}

async function runBatchPayout(context: MeasureContext, lines: PayoutLine[]): Promise<bigint> {
  const { payoutClient, publicClient } = context;
  const signed = await payoutClient.prepareSignedBatch({
    batchId: toHex(randomBytes(32)),
    lines,
    nonce: await payoutClient.getPendingNonce(),
  });
  await payoutClient.broadcastRaw(signed.serializedTx);
  return (await successfulReceipt(publicClient, signed.txHash)).gasUsed;
}

async function runDisperse(
  context: MeasureContext,
  functionName: 'disperseToken' | 'disperseTokenSimple',
  lines: PayoutLine[],
): Promise<bigint> {
  const hash = await context.hotWallet.writeContract({
    address: context.disperseAddress,
    abi: disperseAbi,
    functionName,
    args: [context.usdcAddress, lines.map((line) => line.recipient), lines.map((line) => line.amountMicroUsdc)],
  });
  return (await successfulReceipt(context.publicClient, hash)).gasUsed;
}

async function runSingleTransfers(context: MeasureContext, lines: PayoutLine[]): Promise<bigint> {
  let totalGas = 0n;
  for (const line of lines) {
    const hash = await context.hotWallet.writeContract({
      address: context.usdcAddress,
      abi: testUsdcAbi,
      functionName: 'transfer',
      args: [line.recipient, line.amountMicroUsdc],
    });
    totalGas += (await successfulReceipt(context.publicClient, hash)).gasUsed;
  }
  return totalGas;
}

async function successfulReceipt(publicClient: PublicClient, hash: Hex) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

function perRecipient(totalGas: bigint, recipientCount: number): number {
  return Math.round(Number(totalGas) / recipientCount);
}
