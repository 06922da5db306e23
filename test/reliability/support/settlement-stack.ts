// Scenario 5's stack: Anvil with the test USDC and batch contract (startDevchain), then the
// reliability stack on it (a fresh database, the built API with RPC straight to Anvil; the built
// worker, RPC through an optional fault proxy, when the scenario starts it), plus what the test
// needs to drive faults and to check payouts against the chain.
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { createPublicClient, createTestClient, createWalletClient, getAddress, http, parseAbiItem, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devChain, startDevchain, type Devchain } from '../../../scripts/lib/devchain.js';
import type { ManagedProcess } from '../../../scripts/lib/processes.js';
import { formatMicroUsdc, parseUsdToAtto } from '../../../src/common/money/index.js';
import { testUsdcAbi } from '../../../contracts/test-contracts.js';
import { QUEUE_SETTLEMENT } from '../../../src/queue/queue-names.js';
import { waitFor } from '../../support/test-worker.js';
import { RELIABILITY_ADMIN_KEY, type ApiProcess, type ServiceEnv } from './built-service.js';
import { getJson, postJson, put, type Client } from './http-client.js';
import { ledgerCheck } from './ledger-probe.js';
import { startReliabilityStack } from './reliability-stack.js';
import type { ScenarioRun } from './scenario-run.js';

const MICRO_ATTO = 10n ** 12n;
const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
export const FINAL_STATUSES = ['confirmed', 'partially_failed', 'failed'];

export interface SettlementStack {
  devchain: Devchain;
  env: ServiceEnv;
  api: ApiProcess;
  /** The latest worker started. */
  readonly worker: ManagedProcess;
  admin: Client;
  chain: PublicClient;
  anvil: ReturnType<typeof createTestClient>;
  sendQueue: Queue;
  /** Every payee created so far: contributor id -> address. */
  payees: Map<string, Address>;
  startWorker(extraEnv?: Record<string, string>, name?: string): Promise<ManagedProcess>;
}

export async function startSettlementStack(run: ScenarioRun, options: { workerRpcUrl?: (anvilUrl: string) => Promise<string> } = {}): Promise<SettlementStack> {
  const devchain = await startDevchain();
  run.onCleanup('stop anvil', () => devchain.stop());
  const base = await startReliabilityStack(run, {
    databaseLabel: 'rel_settle',
    env: {
      ...devchain.env,
      SETTLEMENT_CONFIRMATIONS: '1',
      SETTLEMENT_MIN_PAYOUT_USD: '1',
      // Three recipients per transaction: a settlement of six payees is two transactions.
      SETTLEMENT_RECIPIENTS_PER_TX: '3',
    },
    // The scenario starts the worker (with its own settings, RPC maybe through a fault proxy).
    worker: false,
    usageQueue: false,
    seedOracleBilling: false,
  });
  const workerRpcUrl = options.workerRpcUrl ? await options.workerRpcUrl(devchain.rpcUrl) : devchain.rpcUrl;
  const sendQueue = new Queue(QUEUE_SETTLEMENT, { connection: { url: base.env.REDIS_URL }, prefix: base.env.QUEUE_PREFIX });
  run.onCleanup('obliterate settlement queue', async () => {
    await sendQueue.obliterate({ force: true }).catch(() => undefined);
    await sendQueue.close();
  });
  const transport = http(devchain.rpcUrl, { retryCount: 0 });
  const stack: SettlementStack = {
    devchain,
    env: base.env,
    api: base.api,
    get worker() {
      return base.worker;
    },
    admin: base.admin,
    chain: createPublicClient({ chain: devChain(devchain.rpcUrl), transport, cacheTime: 0 }) as PublicClient,
    anvil: createTestClient({ mode: 'anvil', chain: devChain(devchain.rpcUrl), transport }),
    sendQueue,
    payees: new Map(),
    startWorker: (extraEnv = {}, name = 'worker') => base.startWorker({ name, env: { RPC_URL: workerRpcUrl, ...extraEnv } }),
  };
  return stack;
}

/** New contributors with fresh addresses and a payable balance (admin adjustments), through the API. */
export async function addPayees(s: SettlementStack, label: string, amountsUsd: string[]): Promise<Array<{ id: string; address: Address; amountUsd: string }>> {
  const created = [];
  for (const [i, amountUsd] of amountsUsd.entries()) {
    const id = `${label}_${i}`;
    const address = getAddress(`0x${randomBytes(20).toString('hex')}`);
    const reg = await put(s.admin, `/v1/admin/contributors/${id}`, { tier: 'standard', payout_address: address });
    if (reg.status !== 201) throw new Error(`contributor ${id}: HTTP ${reg.status} ${JSON.stringify(reg.json)}`);
    const adj = await postJson(s.admin, `/v1/admin/contributors/${id}/adjustments`, { amount_usd: amountUsd, reason: 'reliability payable', reference: `${id}-payable` });
    if (adj.status !== 201) throw new Error(`adjustment ${id}: HTTP ${adj.status} ${JSON.stringify(adj.json)}`);
    s.payees.set(id, address);
    created.push({ id, address, amountUsd });
  }
  return created;
}

export async function createSettlement(s: SettlementStack): Promise<{ id: string; body: any }> {
  const res = await postJson(s.admin, '/v1/admin/settlements', {});
  if (res.status !== 201) throw new Error(`settlement: HTTP ${res.status} ${JSON.stringify(res.json)}`);
  return { id: res.json.settlement_id as string, body: res.json };
}

export async function getSettlement(s: SettlementStack, id: string): Promise<any> {
  const res = await getJson(s.admin, `/v1/admin/settlements/${id}`);
  if (res.status !== 200) throw new Error(`settlement ${id}: HTTP ${res.status} ${res.attempt.code ?? ''}`);
  return res.json;
}

/** Polls; a poll without an answer (a keep-alive socket closed under us on a busy machine) is retried. */
export async function waitSettlement(s: SettlementStack, id: string, until: (body: any) => boolean, timeoutMs: number): Promise<any> {
  return waitFor(async () => {
    const res = await getJson(s.admin, `/v1/admin/settlements/${id}`);
    if (res.status === 0) return null;
    if (res.status !== 200) throw new Error(`settlement ${id}: HTTP ${res.status} ${JSON.stringify(res.json)}`);
    return until(res.json) ? res.json : null;
  }, timeoutMs, 250);
}

export const isFinal = (body: any) => FINAL_STATUSES.includes(body.status);

export interface PayoutFigures {
  payees: number;
  onChainMicroUsdc: string;
  ledgerPaidMicroUsdc: string;
  mismatches: Array<{ id: string; onChain: string; ledgerPaid: string; transfers: number; paidLines: number }>;
  paidLines: number;
  transfers: number;
  ledgerCheck: boolean;
}

/**
 * The money check: for every payee ever created, USDC on chain == ledger paid (micro-USDC), and
 * the number of USDC Transfer events to it == its paid payout lines (none paid twice).
 */
export async function payoutFigures(s: SettlementStack): Promise<PayoutFigures> {
  const logs = await s.chain.getLogs({ address: s.devchain.usdcAddress, event: TRANSFER_EVENT, fromBlock: 0n, toBlock: 'latest' });
  const transfersTo = new Map<string, number>();
  for (const log of logs) transfersTo.set(getAddress(log.args.to!), (transfersTo.get(getAddress(log.args.to!)) ?? 0) + 1);
  let onChainTotal = 0n;
  let ledgerTotal = 0n;
  let paidLinesTotal = 0;
  let transfersTotal = 0;
  const mismatches = [];
  for (const [id, address] of s.payees) {
    const onChain = await s.chain.readContract({ address: s.devchain.usdcAddress, abi: testUsdcAbi, functionName: 'balanceOf', args: [address] });
    const balance = await getJson(s.admin, `/v1/contributors/${id}/balance`);
    const ledgerPaid = parseUsdToAtto(balance.json.paid_usd) / MICRO_ATTO;
    const payouts = await getJson(s.admin, `/v1/contributors/${id}/payouts?limit=100`);
    const paidLines = (payouts.json.data as Array<{ status: string }>).filter((p) => p.status === 'paid').length;
    const transfers = transfersTo.get(address) ?? 0;
    onChainTotal += onChain;
    ledgerTotal += ledgerPaid;
    paidLinesTotal += paidLines;
    transfersTotal += transfers;
    if (onChain !== ledgerPaid || transfers !== paidLines) {
      mismatches.push({ id, onChain: formatMicroUsdc(onChain), ledgerPaid: formatMicroUsdc(ledgerPaid), transfers, paidLines });
    }
  }
  const check = await ledgerCheck(s.api.baseUrl, RELIABILITY_ADMIN_KEY);
  return {
    payees: s.payees.size,
    onChainMicroUsdc: onChainTotal.toString(),
    ledgerPaidMicroUsdc: ledgerTotal.toString(),
    mismatches,
    paidLines: paidLinesTotal,
    transfers: transfersTotal,
    ledgerCheck: check.ok,
  };
}

/** After a settlement of `lines` payees paid in full: chain == ledger for each, one transfer per paid line, ledger check clean. */
export function expectEveryLinePaidOnce(figures: PayoutFigures, lines: number): void {
  expect(figures.mismatches).toEqual([]);
  expect(figures.paidLines).toBe(lines);
  expect(figures.transfers).toBe(lines);
  expect(figures.ledgerCheck).toBe(true);
}

/** The test USDC owner: pause, unpause, blacklist, unBlacklist. */
export async function usdcAdmin(s: SettlementStack, functionName: 'pause' | 'unpause' | 'blacklist' | 'unBlacklist', args: readonly [Address] | readonly [] = []): Promise<void> {
  const wallet = createWalletClient({ chain: devChain(s.devchain.rpcUrl), transport: http(s.devchain.rpcUrl), account: privateKeyToAccount(s.devchain.usdcAdminPrivateKey) });
  const hash: Hex = await wallet.writeContract({ address: s.devchain.usdcAddress, abi: testUsdcAbi, functionName, args } as never);
  await s.chain.waitForTransactionReceipt({ hash });
}

/** An operator's "retry now" for a send job the worker put back (delayed) after a hold. */
export async function promoteSendJob(s: SettlementStack, settlementId: string): Promise<boolean> {
  const job = await s.sendQueue.getJob(settlementId);
  if (!job || (await job.getState()) !== 'delayed') return false;
  await job.promote();
  return true;
}

export async function settlementTxHashes(s: SettlementStack, settlementId: string): Promise<Hex[]> {
  return ((await getSettlement(s, settlementId)).transactions as Array<{ tx_hash: Hex }>).map((t) => t.tx_hash);
}
