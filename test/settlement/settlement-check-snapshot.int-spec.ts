// The ledger check's settlement section compares settlement lines with the journal and the
// contributors' in-settlement balances. It used to read them with three statements on three pool
// connections: a settlement committed between the reads was counted by one side only, and the check
// answered ok: false for a ledger that was right (found by the soak, seed 392116518, step 2359).
// Here the commit is made to land exactly between the reads: the lines' statement waits on a lock
// this test holds while the settlement commits.
import pg from 'pg';
import { creditPayable, registerContributors, startSettlementHarness, USD_ATTO, waitFor, type SettlementHarness } from './support/settlement-harness.js';

let h: SettlementHarness;
beforeAll(async () => {
  h = await startSettlementHarness('settlement_check_snapshot');
}, 180_000);
afterAll(async () => {
  await h?.close();
});

it('reads lines, journal and balances from one snapshot, so a settlement committed meanwhile is counted by every side or none', async () => {
  await registerContributors(h, ['c-snap-1', 'c-snap-2']);
  await creditPayable(h, [
    { contributorId: 'c-snap-1', payoutAtto: 3n * USD_ATTO },
    { contributorId: 'c-snap-2', payoutAtto: 5n * USD_ATTO + 7n },
  ]);
  expect((await h.reconciliation.ledgerCheck()).ok).toBe(true);

  const blocker = new pg.Client({ connectionString: h.t.databaseUrl });
  await blocker.connect();
  try {
    // The lines' statement reads reconciliation_resolutions too; a settlement's creation does not.
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE reconciliation_resolutions IN ACCESS EXCLUSIVE MODE');
    const checking = h.reconciliation.ledgerCheck();
    await waitFor(async () => {
      const waiting = await blocker.query(
        `SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'reconciliation_resolutions' AND NOT l.granted`,
      );
      return waiting.rowCount! > 0;
    }, 30_000, 20);
    // Lines queued and balances moved to in-settlement, in one commit, while the check waits.
    const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
    expect(created.kind).toBe('created');
    await blocker.query('COMMIT');
    const check = await checking;
    expect(check).toMatchObject({ ok: true });
  } finally {
    await blocker.end();
  }
  // And after the commit, every side counts the settlement.
  const after = await h.reconciliation.ledgerCheck();
  expect(after.ok).toBe(true);
  expect(after.open_lines_usdc).not.toBe('0');
}, 120_000);
