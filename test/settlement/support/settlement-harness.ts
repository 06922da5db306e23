// A real HTTP app on its own database, a real Anvil devchain, and helpers to seed payable balances
// and drive the test USDC (blacklist, pause, mining) for the settlement integration tests.
import { randomBytes, randomUUID } from 'node:crypto';
import { createPublicClient, createTestClient, createWalletClient, getAddress, http, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devChain, startDevchain, type Devchain } from '../../../scripts/lib/devchain.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { contributorInSettlement, contributorPaid, contributorPayable, PLATFORM_REVENUE, userAccount } from '../../../src/modules/ledger/account-codes.js';
import { LedgerService } from '../../../src/modules/ledger/ledger.service.js';
import { testUsdcAbi } from '../../../contracts/test-contracts.js';
import { PAYOUT_SENDER_OPTIONS, type PayoutSenderOptions } from '../../../src/modules/settlement/payout/payout-sender.options.js';
import { PayoutSenderService } from '../../../src/modules/settlement/payout/payout-sender.service.js';
import { ReconciliationService } from '../../../src/modules/settlement/payout/reconciliation.service.js';
import { SettlementService } from '../../../src/modules/settlement/creation/settlement.service.js';
import { startTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor as waitUntil } from '../../support/wait-for.js';

export const USD_ATTO = 10n ** 18n;
export const MICRO_ATTO = 10n ** 12n;
const REGISTER_CONCURRENCY = 25;
const ADMIN_CALL_GAS = 100_000n;

export interface SettlementHarness {
  t: TestApp;
  devchain: Devchain;
  queuePrefix: string;
  env: Record<string, string>;
  db: DatabaseService;
  ledger: LedgerService;
  settlements: SettlementService;
  sender: PayoutSenderService;
  reconciliation: ReconciliationService;
  senderOptions: PayoutSenderOptions;
  chain: PublicClient;
  close(): Promise<void>;
}

export async function startSettlementHarness(label: string, env: Record<string, string> = {}): Promise<SettlementHarness> {
  const devchain = await startDevchain();
  const queuePrefix = `test-${randomBytes(4).toString('hex')}`;
  const fullEnv = {
    ...devchain.env,
    QUEUE_PREFIX: queuePrefix,
    SETTLEMENT_CONFIRMATIONS: '1',
    SETTLEMENT_SCHEDULER_ENABLED: 'false',
    SETTLEMENT_MIN_PAYOUT_USD: '1',
    ...env,
  };
  const t = await startTestApp(label, fullEnv);
  const chain = createPublicClient({ chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl, { retryCount: 0 }), cacheTime: 0 });
  return {
    t,
    devchain,
    queuePrefix,
    env: { ...fullEnv, DATABASE_URL: t.databaseUrl },
    db: t.app.get(DatabaseService),
    ledger: t.app.get(LedgerService),
    settlements: t.app.get(SettlementService),
    sender: t.app.get(PayoutSenderService),
    reconciliation: t.app.get(ReconciliationService),
    senderOptions: t.app.get(PAYOUT_SENDER_OPTIONS),
    chain: chain as PublicClient,
    close: async () => {
      await t.close();
      await devchain.stop();
    },
  };
}

export function randomAddress(): Address {
  return getAddress(`0x${randomBytes(20).toString('hex')}`);
}

/** Registers contributors through the admin API; returns id -> payout address. */
export async function registerContributors(h: SettlementHarness, ids: string[]): Promise<Map<string, Address>> {
  const addresses = new Map(ids.map((id) => [id, randomAddress()]));
  for (let i = 0; i < ids.length; i += REGISTER_CONCURRENCY) {
    await Promise.all(
      ids.slice(i, i + REGISTER_CONCURRENCY).map((id) =>
        h.t.admin(h.t.http.put(`/v1/admin/contributors/${id}`)).send({ tier: 'standard', payout_address: addresses.get(id) }).expect(201),
      ),
    );
  }
  return addresses;
}

/** Usage credits straight through the ledger: user pays payout + margin, contributor payable gets payout. */
export async function creditPayable(h: SettlementHarness, credits: Array<{ contributorId: string; payoutAtto: bigint }>): Promise<void> {
  await h.db.transaction((client) =>
    h.ledger.post(
      client,
      credits.map((c) => {
        const marginAtto = c.payoutAtto / 10n;
        return {
          kind: 'usage',
          ref: `test-${randomUUID()}`,
          postings: [
            { accountCode: userAccount('u-settlement'), amountAtto: -(c.payoutAtto + marginAtto) },
            { accountCode: contributorPayable(c.contributorId), amountAtto: c.payoutAtto },
            { accountCode: PLATFORM_REVENUE, amountAtto: marginAtto },
          ],
        };
      }),
    ),
  );
}

export async function balancesOf(h: SettlementHarness, contributorId: string): Promise<{ payableAtto: bigint; inSettlementAtto: bigint; paidAtto: bigint }> {
  const codes = [contributorPayable(contributorId), contributorInSettlement(contributorId), contributorPaid(contributorId)];
  const balances = await h.ledger.balances(codes);
  const get = (code: string) => balances.get(code)?.balanceAtto ?? 0n;
  return { payableAtto: get(codes[0]!), inSettlementAtto: get(codes[1]!), paidAtto: get(codes[2]!) };
}

export function usdcBalance(h: SettlementHarness, account: Address): Promise<bigint> {
  return h.chain.readContract({ address: h.devchain.usdcAddress, abi: testUsdcAbi, functionName: 'balanceOf', args: [account] });
}

/** The USDC owner's calls; a high tip puts it ahead of pending payouts in the next block. */
export async function usdcAdmin(h: SettlementHarness, functionName: 'blacklist' | 'pause' | 'unpause', args: readonly [Address] | readonly [], options: { wait?: boolean; tipWei?: bigint } = {}): Promise<Hex> {
  const admin = createWalletClient({ chain: devChain(h.devchain.rpcUrl), transport: http(h.devchain.rpcUrl), account: privateKeyToAccount(h.devchain.usdcAdminPrivateKey) });
  // Explicit gas with a tip: an estimate against the pending block (after our batch) would be too low.
  const fees = options.tipWei ? { maxPriorityFeePerGas: options.tipWei, maxFeePerGas: options.tipWei * 2n + 10n ** 10n, gas: ADMIN_CALL_GAS } : {};
  const hash = await admin.writeContract({ address: h.devchain.usdcAddress, abi: testUsdcAbi, functionName, args, ...fees } as never);
  if (options.wait !== false) await h.chain.waitForTransactionReceipt({ hash });
  return hash;
}

export function anvil(h: SettlementHarness) {
  return createTestClient({ mode: 'anvil', chain: devChain(h.devchain.rpcUrl), transport: http(h.devchain.rpcUrl) });
}

/** Settlement steps wait for chain confirmations: the shared waitFor with twice its patience. */
export const SETTLEMENT_WAIT_MS = 30_000;
export function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = SETTLEMENT_WAIT_MS, intervalMs?: number): Promise<T> {
  return waitUntil(probe, timeoutMs, intervalMs);
}

export async function sqlRows<T extends Record<string, unknown>>(h: SettlementHarness, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await h.db.pool.query<T>(sql, params)).rows;
}
