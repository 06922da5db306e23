// Crash safety: the sender process dies (exit 137) right after broadcasting, before it records the
// broadcast. A fresh sender finds the persisted transaction, follows the same hash, and pays each
// line exactly once: no second transaction is signed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Hex } from 'viem';
import { anvil, balancesOf, creditPayable, MICRO_ATTO, registerContributors, sqlRows, startSettlementHarness, usdcBalance, USD_ATTO, type SettlementHarness } from './support/settlement-harness.js';

const CHILD_TIMEOUT_MS = 60_000;
const register = fileURLToPath(new URL('../support/ts-node/swc-register.mjs', import.meta.url));
const childScript = fileURLToPath(new URL('./support/send-child.ts', import.meta.url));

function runSenderChild(env: Record<string, string>, settlementId: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', register, childScript, settlementId], {
      env: { ...process.env, ...env, NODE_ENV: 'test', LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let h: SettlementHarness;
beforeAll(async () => {
  h = await startSettlementHarness('payout_crash');
});
afterAll(async () => {
  await h?.close();
});

describe('payout sender crash after broadcast', () => {
  it('resumes the persisted transaction after kill: same hash, one payment per line', async () => {
    const ids = ['crash-a', 'crash-b', 'crash-c'];
    const addresses = await registerContributors(h, ids);
    await creditPayable(h, ids.map((contributorId, i) => ({ contributorId, payoutAtto: BigInt(20 + i) * USD_ATTO + 7n })));
    const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
    if (created.kind !== 'created') throw new Error('expected a settlement');
    const settlementId = created.settlement.id;

    const test = anvil(h);
    await test.setAutomine(false); // the transaction stays in the pool while the sender is dead
    try {
      const crashed = await runSenderChild({ ...h.env, PAYOUT_CRASH_AFTER_BROADCAST: '1' }, settlementId);
      expect({ code: crashed.code, stderr: crashed.stderr }).toEqual({ code: 137, stderr: '' });
      const before = await sqlRows<{ tx_hash: Hex; status: string; nonce: number }>(h, 'SELECT tx_hash, status, nonce FROM settlement_txs WHERE settlement_id = $1', [settlementId]);
      // Persisted before broadcast; the crash came before the row could say "broadcast".
      expect(before).toEqual([{ tx_hash: expect.stringMatching(/^0x/), status: 'signed', nonce: expect.any(Number) }]);
      const hash = before[0]!.tx_hash;
      expect(await h.chain.getTransaction({ hash })).toMatchObject({ hash });

      // A fresh sender (another process than the dead one) resumes while the block is mined.
      const resumed = h.sender.sendSettlement(settlementId);
      await test.mine({ blocks: 1 });
      expect(await resumed).toEqual({ kind: 'finished', status: 'confirmed' });

      const after = await sqlRows<{ tx_hash: Hex; status: string }>(h, 'SELECT tx_hash, status FROM settlement_txs WHERE settlement_id = $1', [settlementId]);
      expect(after).toEqual([{ tx_hash: hash, status: 'confirmed' }]);
    } finally {
      await test.setAutomine(true);
    }
    for (const [i, id] of ids.entries()) {
      const amountMicroUsdc = BigInt(20 + i) * 1_000_000n;
      expect(await usdcBalance(h, addresses.get(id)!)).toBe(amountMicroUsdc);
      expect(await balancesOf(h, id)).toEqual({ payableAtto: 7n, inSettlementAtto: 0n, paidAtto: amountMicroUsdc * MICRO_ATTO });
    }
    const check = await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(check.body.ok).toBe(true);
  });
});
