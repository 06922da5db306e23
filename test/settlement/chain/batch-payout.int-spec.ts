// BatchPayout + TestUSDC + the chain client against a real Anvil (one devchain for this file).
import { randomBytes } from 'node:crypto';
import { BaseError, ContractFunctionRevertedError, createPublicClient, createTestClient, createWalletClient, http, toHex, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devChain, startDevchain, type Devchain } from '../../../scripts/lib/devchain.js';
import { freshPayoutLines, measurePayoutGas } from '../../../scripts/lib/gas-measure.js';
import { testUsdcAbi } from '../../../contracts/test-contracts.js';
import { batchPayoutAbi } from '../../../src/modules/chain/contract-artifacts.js';
import { PayoutChainError } from '../../../src/modules/chain/payout-chain.errors.js';
import { PayoutChainClient } from '../../../src/modules/chain/payout-chain.client.js';
import { encodePayoutLines, sumPayoutLinesMicroUsdc, type PayoutLine } from '../../../src/modules/chain/payout-lines.js';

let devchain: Devchain;
let client: PayoutChainClient;
let publicClient: PublicClient;

beforeAll(async () => {
  devchain = await startDevchain();
  client = new PayoutChainClient(devchain);
  publicClient = createPublicClient({
    chain: devChain(devchain.rpcUrl),
    transport: http(devchain.rpcUrl, { retryCount: 0 }),
    cacheTime: 0,
  });
  await client.verifyChain();
});

afterAll(async () => {
  await devchain?.stop();
});

const newBatchId = (): Hex => toHex(randomBytes(32));

function revertName(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const revert = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  return revert instanceof ContractFunctionRevertedError ? revert.data?.errorName : undefined;
}

function usdcBalanceMicroUsdc(account: Address): Promise<bigint> {
  return publicClient.readContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName: 'balanceOf', args: [account] });
}

async function adminUsdc(functionName: 'blacklist' | 'pause' | 'unpause', args: readonly [Address] | readonly []): Promise<void> {
  const admin = createWalletClient({
    chain: devChain(devchain.rpcUrl),
    transport: http(devchain.rpcUrl),
    account: privateKeyToAccount(devchain.usdcAdminPrivateKey),
  });
  const hash = await admin.writeContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName, args } as never);
  expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
}

/** Signs, persists nothing, broadcasts and waits: what the worker does in one step each. */
async function sendBatch(batchId: Hex, lines: PayoutLine[], gas?: bigint) {
  const signed = await client.prepareSignedBatch({ batchId, lines, nonce: await client.getPendingNonce(), ...(gas ? { gas } : {}) });
  await client.broadcastRaw(signed.serializedTx);
  const receipt = await publicClient.waitForTransactionReceipt({ hash: signed.txHash });
  return { signed, receipt };
}

describe('BatchPayout on Anvil', () => {
  const paidBatchId = newBatchId();

  it('pays a batch of 50 new holders exactly, with the pre-signed hash mined', async () => {
    const lines = freshPayoutLines(50).map((line, i) => ({ ...line, amountMicroUsdc: 1_000_001n + BigInt(i) }));
    const totalMicroUsdc = sumPayoutLinesMicroUsdc(lines);
    const preflight = await client.preflight({ recipients: lines.map((l) => l.recipient), totalMicroUsdc });
    expect(preflight.problems).toEqual([]);
    expect(await client.simulateBatch({ batchId: paidBatchId, lines })).toEqual({ ok: true, paidCount: 50, skippedCount: 0 });
    const hotBeforeMicroUsdc = await usdcBalanceMicroUsdc(devchain.hotWalletAddress);

    const { signed, receipt } = await sendBatch(paidBatchId, lines);

    expect(receipt.transactionHash).toBe(signed.txHash);
    expect(signed.totalMicroUsdc).toBe(totalMicroUsdc);
    const outcome = client.parseBatchReceipt(receipt);
    expect(outcome).toMatchObject({ executed: true, batchId: paidBatchId, lineCount: 50, skipped: [], totalPaidMicroUsdc: totalMicroUsdc });
    expect(outcome.executed && outcome.paidIndexes).toEqual([...Array(50).keys()]);
    for (const line of lines) expect(await usdcBalanceMicroUsdc(line.recipient)).toBe(line.amountMicroUsdc);
    expect(await usdcBalanceMicroUsdc(devchain.hotWalletAddress)).toBe(hotBeforeMicroUsdc - totalMicroUsdc);
    expect(await usdcBalanceMicroUsdc(devchain.payoutContractAddress)).toBe(0n);
    expect(await client.getTxStatus(signed.txHash)).toMatchObject({ state: 'mined', status: 'success', confirmations: 1 });

    const logs = await client.getTransferLogs({ fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
    expect(logs.filter((log) => log.kind === 'batch-funding').map((log) => log.amountMicroUsdc)).toEqual([totalMicroUsdc]);
    expect(logs.filter((log) => log.kind === 'payout').map((log) => [log.to, log.amountMicroUsdc])).toEqual(
      lines.map((line) => [line.recipient, line.amountMicroUsdc]),
    );
  });

  it('skips a blacklisted recipient in the middle, pays the others, and the hot wallet keeps its amount', async () => {
    const lines = freshPayoutLines(10);
    const refused = lines[5]!;
    await adminUsdc('blacklist', [refused.recipient]);
    const totalMicroUsdc = sumPayoutLinesMicroUsdc(lines);
    const preflight = await client.preflight({ recipients: lines.map((l) => l.recipient), totalMicroUsdc });
    expect(preflight.blacklisted).toEqual([refused.recipient]);
    expect(preflight.problems).toEqual(['recipients-blacklisted']);
    const batchId = newBatchId();
    expect(await client.simulateBatch({ batchId, lines })).toEqual({ ok: true, paidCount: 9, skippedCount: 1 });
    const hotBeforeMicroUsdc = await usdcBalanceMicroUsdc(devchain.hotWalletAddress);

    const { receipt } = await sendBatch(batchId, lines);

    const outcome = client.parseBatchReceipt(receipt);
    expect(outcome).toMatchObject({
      executed: true,
      skipped: [{ index: 5, recipient: refused.recipient, amountMicroUsdc: refused.amountMicroUsdc }],
      paidIndexes: [0, 1, 2, 3, 4, 6, 7, 8, 9],
      totalPaidMicroUsdc: totalMicroUsdc - refused.amountMicroUsdc,
    });
    for (const [i, line] of lines.entries()) {
      expect(await usdcBalanceMicroUsdc(line.recipient)).toBe(i === 5 ? 0n : line.amountMicroUsdc);
    }
    expect(await usdcBalanceMicroUsdc(devchain.hotWalletAddress)).toBe(hotBeforeMicroUsdc - totalMicroUsdc + refused.amountMicroUsdc);
    expect(await usdcBalanceMicroUsdc(devchain.payoutContractAddress)).toBe(0n);
    const logs = await client.getTransferLogs({ fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
    expect(logs.filter((log) => log.kind === 'skipped-refund').map((log) => log.amountMicroUsdc)).toEqual([refused.amountMicroUsdc]);
  });

  it('refuses to replay a batch id: simulation names the error, a forced send reverts and pays nobody', async () => {
    const lines = freshPayoutLines(3);
    expect(await client.simulateBatch({ batchId: paidBatchId, lines })).toMatchObject({ ok: false, errorName: 'BatchAlreadyExecuted' });
    await expect(client.prepareSignedBatch({ batchId: paidBatchId, lines, nonce: await client.getPendingNonce() })).rejects.toMatchObject({
      code: 'simulation-failed',
    });

    const { receipt } = await sendBatch(paidBatchId, lines, 500_000n);

    expect(receipt.status).toBe('reverted');
    expect(client.parseBatchReceipt(receipt)).toMatchObject({ executed: false });
    for (const line of lines) expect(await usdcBalanceMicroUsdc(line.recipient)).toBe(0n);
  });

  it('reverts a batch sent by anyone but the owner', async () => {
    const stranger = new PayoutChainClient({ ...devchain, payoutPrivateKey: devchain.usdcAdminPrivateKey });
    expect(await stranger.simulateBatch({ batchId: newBatchId(), lines: freshPayoutLines(2) })).toMatchObject({
      ok: false,
      errorName: 'NotOwner',
    });
  });

  it('fails simulation clearly while the token is paused', async () => {
    const lines = freshPayoutLines(2);
    await adminUsdc('pause', []);
    try {
      const preflight = await client.preflight({ recipients: lines.map((l) => l.recipient), totalMicroUsdc: sumPayoutLinesMicroUsdc(lines) });
      expect(preflight.problems).toContain('token-paused');
      expect(await client.simulateBatch({ batchId: newBatchId(), lines })).toMatchObject({ ok: false, reason: 'Pausable: paused' });
    } finally {
      await adminUsdc('unpause', []);
    }
  });

  it('never turns a too-low gas limit into skipped lines: it reverts or pays everyone', async () => {
    const lines = freshPayoutLines(3);
    const args = [newBatchId(), sumPayoutLinesMicroUsdc(lines), encodePayoutLines(lines)] as const;
    const call = {
      address: devchain.payoutContractAddress,
      abi: batchPayoutAbi,
      functionName: 'executeBatch',
      args,
      account: devchain.hotWalletAddress,
    } as const;
    const neededGas = await publicClient.estimateContractGas(call);
    const outcomes = new Set<string>();
    for (let gas = neededGas - 60_000n; gas <= neededGas; gas += 1_500n) {
      outcomes.add(
        await publicClient.simulateContract({ ...call, gas }).then(
          ({ result }) => `paid ${result[0]} skipped ${result[1]}`,
          (error: unknown) => (revertName(error) === 'TransferOutOfGas' ? 'reverted: TransferOutOfGas' : 'reverted'),
        ),
      );
    }
    expect([...outcomes].filter((o) => !['paid 3 skipped 0', 'reverted', 'reverted: TransferOutOfGas'].includes(o))).toEqual([]);
    // The guard itself is exercised, not only the EVM running out of gas in the loop.
    expect(outcomes).toContain('reverted: TransferOutOfGas');
  });

  it('rebroadcasts the same signed bytes after the node drops them, mined under the same hash', async () => {
    const testClient = createTestClient({ mode: 'anvil', chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl) });
    const lines = freshPayoutLines(4);
    const signed = await client.prepareSignedBatch({ batchId: newBatchId(), lines, nonce: await client.getPendingNonce() });
    await testClient.setAutomine(false);
    try {
      expect(await client.broadcastRaw(signed.serializedTx)).toEqual({ txHash: signed.txHash, outcome: 'accepted' });
      expect(await client.getTxStatus(signed.txHash)).toEqual({ state: 'pending' });
      expect((await client.broadcastRaw(signed.serializedTx)).outcome).toBe('already-known');

      await testClient.dropTransaction({ hash: signed.txHash });
      expect(await client.getTxStatus(signed.txHash)).toEqual({ state: 'unknown' });

      expect(await client.broadcastRaw(signed.serializedTx)).toEqual({ txHash: signed.txHash, outcome: 'accepted' });
      await testClient.mine({ blocks: 1 });
    } finally {
      await testClient.setAutomine(true);
    }
    const receipt = await publicClient.waitForTransactionReceipt({ hash: signed.txHash });
    expect(receipt.transactionHash).toBe(signed.txHash);
    expect(client.parseBatchReceipt(receipt)).toMatchObject({ executed: true, skipped: [] });
    // Same bytes after mining: the node says nonce too low, and the hash proves it is ours.
    expect((await client.broadcastRaw(signed.serializedTx)).outcome).toBe('already-known');
    expect(await client.getLatestNonce()).toBe(signed.nonce + 1);
  });

  it('reports a nonce taken by another transaction instead of success', async () => {
    const nonce = await client.getPendingNonce();
    const first = await client.prepareSignedBatch({ batchId: newBatchId(), lines: freshPayoutLines(1), nonce });
    const rival = await client.prepareSignedBatch({ batchId: newBatchId(), lines: freshPayoutLines(1), nonce });
    await client.broadcastRaw(first.serializedTx);
    await publicClient.waitForTransactionReceipt({ hash: first.txHash });
    await expect(client.broadcastRaw(rival.serializedTx)).rejects.toEqual(expect.any(PayoutChainError));
    await expect(client.broadcastRaw(rival.serializedTx)).rejects.toMatchObject({ code: 'nonce-consumed' });
  });

  it('measures gas per recipient for BatchPayout, Disperse and single transfers (numbers belong to the benchmark)', async () => {
    const measurement = await measurePayoutGas(devchain, 20);
    for (const gas of [measurement.batchPayout, measurement.disperseToken, measurement.disperseTokenSimple, measurement.singleTransfer]) {
      expect(gas.newHolders).toBeGreaterThan(gas.existingHolders);
      expect(gas.existingHolders).toBeGreaterThan(0);
    }
  });
});
