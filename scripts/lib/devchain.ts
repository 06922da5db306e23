// Starts a local Anvil chain with the test USDC and the batch-payout contract deployed, the hot
// wallet funded and the batch contract approved. Used by `npm run devchain`, tests and benchmarks.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { findFreePort, LOOPBACK_HOST } from './processes.js';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  maxUint256,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { testUsdcAbi, testUsdcBytecode } from '../../contracts/test-contracts.js';
import { batchPayoutAbi, batchPayoutBytecode } from '../../src/modules/chain/contract-artifacts.js';

export const DEVCHAIN_CHAIN_ID = 31337;
/** Anvil's well-known dev keys (public, from the default mnemonic): #0 is the hot wallet. */
export const ANVIL_KEY_HOT_WALLET: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** Anvil dev key #1: owner of the test USDC (mint, blacklist, pause). */
export const ANVIL_KEY_USDC_ADMIN: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const HOT_WALLET_MINT_MICRO_USDC = 10_000_000n * 1_000_000n;

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
const RPC_POLL_INTERVAL_MS = 50;
const START_ATTEMPTS_MAX = 3;
const OUTPUT_TAIL_CHARS_MAX = 4_000;

export interface DevchainOptions {
  /** Port to listen on; a free one is picked when omitted. */
  port?: number;
  /** Interval mining instead of automine (Anvil's --block-time, fractions allowed). */
  blockTimeMs?: number;
}

export interface Devchain {
  rpcUrl: string;
  chainId: number;
  usdcAddress: Address;
  payoutContractAddress: Address;
  payoutPrivateKey: Hex;
  usdcAdminPrivateKey: Hex;
  hotWalletAddress: Address;
  usdcAdminAddress: Address;
  /** The variables of docs/operations.md, ready to write to an env file. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

interface AnvilProcess {
  rpcUrl: string;
  stop(): Promise<void>;
}

export async function startDevchain(options: DevchainOptions = {}): Promise<Devchain> {
  const anvil = await startAnvilWithRetry(options);
  try {
    const deployed = await deployDevContracts(anvil.rpcUrl);
    return { ...deployed, env: devchainEnv(deployed), stop: anvil.stop };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/**
 * The devchain's contracts on a chain that is already running (an Anvil with its default dev
 * accounts, e.g. docker-compose's): waits up to `waitMs` for the RPC, deploys, funds, approves.
 */
export async function deployDevContracts(rpcUrl: string, waitMs = 0): Promise<Omit<Devchain, 'env' | 'stop'>> {
  const deadlineMs = Date.now() + waitMs;
  while (!(await rpcAnswers(rpcUrl))) {
    if (Date.now() >= deadlineMs) throw new Error(`no chain answers on ${rpcUrl}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const contracts = await deployContracts(devChain(rpcUrl));
  return {
    rpcUrl,
    chainId: DEVCHAIN_CHAIN_ID,
    ...contracts,
    payoutPrivateKey: ANVIL_KEY_HOT_WALLET,
    usdcAdminPrivateKey: ANVIL_KEY_USDC_ADMIN,
    hotWalletAddress: privateKeyToAccount(ANVIL_KEY_HOT_WALLET).address,
    usdcAdminAddress: privateKeyToAccount(ANVIL_KEY_USDC_ADMIN).address,
  };
}

export function devchainEnv(devchain: Omit<Devchain, 'env' | 'stop'>): Record<string, string> {
  return {
    RPC_URL: devchain.rpcUrl,
    CHAIN_ID: String(devchain.chainId),
    USDC_ADDRESS: devchain.usdcAddress,
    PAYOUT_CONTRACT_ADDRESS: devchain.payoutContractAddress,
    PAYOUT_PRIVATE_KEY: devchain.payoutPrivateKey,
    USDC_ADMIN_PRIVATE_KEY: devchain.usdcAdminPrivateKey,
  };
}

export function devChain(rpcUrl: string): Chain {
  return defineChain({
    id: DEVCHAIN_CHAIN_ID,
    name: 'devchain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * anvil_reorg: replaces the last `depth` blocks with `depth` new ones (the height stays the same).
 * Each signed transaction goes into the new block at `blockIndex` (0 = the oldest new block, at
 * most depth - 1); a transaction of the old blocks not listed is dropped (not put back in the pool).
 */
export async function anvilReorg(rpcUrl: string, depth: number, txs: ReadonlyArray<{ signedRaw: Hex; blockIndex: number }> = []): Promise<void> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_reorg', params: [depth, txs.map((t) => [t.signedRaw, t.blockIndex])] }),
    signal: AbortSignal.timeout(START_TIMEOUT_MS),
  });
  const body = (await response.json()) as { error?: { message: string } };
  if (!response.ok || body.error) throw new Error(`anvil_reorg(${depth}) failed: ${body.error?.message ?? `HTTP ${response.status}`}`);
}

async function deployContracts(chain: Chain): Promise<{ usdcAddress: Address; payoutContractAddress: Address }> {
  const transport = http(chain.rpcUrls.default.http[0], { timeout: 10_000, retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: RPC_POLL_INTERVAL_MS });
  const admin = createWalletClient({ chain, transport, account: privateKeyToAccount(ANVIL_KEY_USDC_ADMIN) });
  const hotWallet = createWalletClient({ chain, transport, account: privateKeyToAccount(ANVIL_KEY_HOT_WALLET) });

  const usdcAddress = await deployed(publicClient, await admin.deployContract({
    abi: testUsdcAbi, bytecode: testUsdcBytecode, args: [admin.account.address],
  }));
  // The admin deploys both, so the hot wallet's nonce is only used by its own approval.
  const payoutContractAddress = await deployed(publicClient, await admin.deployContract({
    abi: batchPayoutAbi, bytecode: batchPayoutBytecode, args: [hotWallet.account.address, usdcAddress],
  }));
  await mined(publicClient, await admin.writeContract({
    address: usdcAddress, abi: testUsdcAbi, functionName: 'mint',
    args: [hotWallet.account.address, HOT_WALLET_MINT_MICRO_USDC],
  }));
  // Max allowance: the token never decreases it, so pulls do not rewrite the allowance slot.
  await mined(publicClient, await hotWallet.writeContract({
    address: usdcAddress, abi: testUsdcAbi, functionName: 'approve', args: [payoutContractAddress, maxUint256],
  }));
  return { usdcAddress, payoutContractAddress };
}

async function mined(publicClient: PublicClient, hash: Hex): Promise<void> {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: START_TIMEOUT_MS });
  if (receipt.status !== 'success') throw new Error(`devchain setup transaction ${hash} reverted`);
}

async function deployed(publicClient: PublicClient, hash: Hex): Promise<Address> {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: START_TIMEOUT_MS });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
  return getAddress(receipt.contractAddress);
}

async function startAnvilWithRetry(options: DevchainOptions): Promise<AnvilProcess> {
  // A picked port can be taken before Anvil binds it; retry only when we picked it.
  const attempts = options.port === undefined ? START_ATTEMPTS_MAX : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      return await startAnvil(options.port ?? (await findFreePort()), options.blockTimeMs);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

export function anvilBinaryPath(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const require = createRequire(import.meta.url);
  // The platform package holds the real binary; the `anvil` bin is a node wrapper that would
  // leave Anvil running if it were killed with SIGKILL.
  return require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${binary}`);
}

async function startAnvil(port: number, blockTimeMs: number | undefined): Promise<AnvilProcess> {
  const args = ['--port', String(port), '--host', LOOPBACK_HOST, '--silent', '--chain-id', String(DEVCHAIN_CHAIN_ID)];
  if (blockTimeMs !== undefined) args.push('--block-time', String(blockTimeMs / 1000));
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let outputTail = '';
  const keepTail = (chunk: Buffer): void => {
    outputTail = (outputTail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS_MAX);
  };
  child.stdout?.on('data', keepTail);
  child.stderr?.on('data', keepTail);
  const exited = once(child, 'exit');
  // 'close': exited and its stdio pipes closed. stop() waits for both processes' 'close', so the
  // caller (a test's afterAll) is left with no child or pipe handle (a jest worker with one cannot
  // exit by itself: "A worker process has failed to exit gracefully").
  const closed = once(child, 'close').catch(() => undefined);
  const watchdog = startWatchdog(child);
  const watchdogClosed = once(watchdog, 'close').catch(() => undefined);
  const killNow = (): void => {
    child.kill('SIGKILL');
  };
  // Covers normal exits and uncaught errors; the watchdog covers SIGKILL of this process.
  process.on('exit', killNow);

  const rpcUrl = `http://${LOOPBACK_HOST}:${port}`;
  const stop = async (): Promise<void> => {
    process.off('exit', killNow);
    watchdog.kill('SIGKILL');
    await stopChild(child, closed);
    await watchdogClosed;
    // 'close' can fire in the exit callback, before libuv has released the process handle (its
    // close callback runs in a later loop turn's close phase): let two turns pass, so no handle is
    // left when we return.
    for (let turn = 0; turn < 2; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  try {
    await waitForRpc(rpcUrl, exited, () => outputTail);
  } catch (error) {
    await stop();
    throw error;
  }
  return { rpcUrl, stop };
}

/**
 * A tiny shell process whose stdin is a pipe from us: when this process dies for any reason,
 * even SIGKILL, the pipe closes and the watchdog stops Anvil.
 */
function startWatchdog(child: ChildProcess): ChildProcess {
  const script = 'cat >/dev/null; kill -TERM "$1" 2>/dev/null; sleep 2; kill -KILL "$1" 2>/dev/null';
  const watchdog = spawn('/bin/sh', ['-c', script, 'devchain-watchdog', String(child.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Anvil exiting on its own must end the watchdog, so it never signals a reused pid.
  child.once('exit', () => watchdog.kill('SIGKILL'));
  return watchdog;
}

/** SIGTERM (SIGKILL after STOP_TIMEOUT_MS) unless it has exited; resolves once `closed` has. */
async function stopChild(child: ChildProcess, closed: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    await closed;
    return;
  }
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  try {
    await closed;
  } finally {
    clearTimeout(timer);
  }
}

async function waitForRpc(rpcUrl: string, exited: Promise<unknown>, outputTail: () => string): Promise<void> {
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  const deadlineMs = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadlineMs) {
    if (hasExited) throw new Error(`anvil exited during startup: ${outputTail()}`);
    if (await rpcAnswers(rpcUrl)) return;
    await new Promise((resolve) => setTimeout(resolve, RPC_POLL_INTERVAL_MS));
  }
  throw new Error(`anvil did not answer on ${rpcUrl} within ${START_TIMEOUT_MS} ms: ${outputTail()}`);
}

async function rpcAnswers(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

