// Two reconciliations of one settlement overlapping (found by the seeded soak, seed 297073627, step
// 1399): a reorganisation moved a payout to a new block and enqueued a reconciliation while an
// earlier one was reading the old block range; the later run stored `ok`, then the earlier one,
// finishing last, stored `missing_on_chain` from its older view, and the ledger check's settlement
// section stayed failing for a payout that was on chain. A reconciliation that began earlier must
// never overwrite one that began later.
import { anvilReorg } from '../../scripts/lib/devchain.js';
import { PayoutFinalityService } from '../../src/modules/settlement/payout/payout-finality.service.js';
import { anvil, creditPayable, registerContributors, sqlRows, startSettlementHarness, USD_ATTO, type SettlementHarness } from './support/settlement-harness.js';

let h: SettlementHarness;

beforeAll(async () => {
  h = await startSettlementHarness('settlement_reconciliation_order');
});
afterAll(async () => {
  await h?.close();
});

/** One contributor paid `payoutAtto` by a settlement sent and confirmed on Anvil. */
async function confirmedSettlement(contributorId: string, payoutAtto: bigint): Promise<string> {
  await registerContributors(h, [contributorId]);
  await creditPayable(h, [{ contributorId, payoutAtto }]);
  const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
  if (created.kind !== 'created') throw new Error('expected a settlement');
  expect(await h.sender.sendSettlement(created.settlement.id)).toEqual({ kind: 'finished', status: 'confirmed' });
  return created.settlement.id;
}

describe('reconciliations of one settlement that overlap', () => {
  it('keep the one that read the chain last', async () => {
    const settlementId = await confirmedSettlement('ro-a', 2n * USD_ATTO);

    const { stored: freshStored, ...fresh } = await h.reconciliation.reconcileSettlement(settlementId);
    expect(fresh.ok).toBe(true);
    expect(freshStored).toBe(true);
    // What an earlier run, still reading the block range before the reorganisation, would store
    // when it finishes after the later one: the payout missing on chain, checked earlier.
    const stale = { ...fresh, ok: false, missing_on_chain: 1, checked_at: new Date(Date.parse(fresh.checked_at) - 1_000).toISOString() };
    const stored = await h.db.transaction((sql) => h.settlements['repository'].setReconciliation(sql, settlementId, stale));
    expect(stored).toBe(false);
    const [row] = await sqlRows<{ ok: string; checked_at: string }>(h, `SELECT reconciliation->>'ok' AS ok, reconciliation->>'checked_at' AS checked_at FROM settlements WHERE id = $1`, [settlementId]);
    expect(row).toEqual({ ok: 'true', checked_at: fresh.checked_at });

    // A later run is stored, and the ledger check's settlement section reads it.
    const later = await h.reconciliation.reconcileSettlement(settlementId);
    expect(Date.parse(later.checked_at)).toBeGreaterThan(Date.parse(fresh.checked_at));
    const [after] = await sqlRows<{ checked_at: string }>(h, `SELECT reconciliation->>'checked_at' AS checked_at FROM settlements WHERE id = $1`, [settlementId]);
    expect(after!.checked_at).toBe(later.checked_at);
  });

  it('stores no verdict while a payout is reorganised out and not yet mined again', async () => {
    const settlementId = await confirmedSettlement('ro-b', 3n * USD_ATTO);
    const before = await h.reconciliation.reconcileSettlement(settlementId);
    expect(before.ok).toBe(true);
    // As the finality watch leaves a booked payout reorganised out of its block and sent again
    // (seed 890868151, step 1639): confirmed, its block unknown until it is seen mined again.
    await h.db.pool.query(`UPDATE settlement_txs SET block_number = NULL, block_hash = NULL, reorg_count = reorg_count + 1 WHERE settlement_id = $1`, [settlementId]);
    const during = await h.reconciliation.reconcileSettlement(settlementId);
    expect(during).toMatchObject({ ok: false, stored: false, not_stored_because: expect.stringMatching(/reorganised out/) });
    const [row] = await sqlRows<{ ok: string; checked_at: string }>(h, `SELECT reconciliation->>'ok' AS ok, reconciliation->>'checked_at' AS checked_at FROM settlements WHERE id = $1`, [settlementId]);
    expect(row).toEqual({ ok: 'true', checked_at: before.checked_at });
  });
  // The second shape of seed 890868151, step 1639: Anvil's reorganisation dropped the payout, and a
  // reconciliation read the chain before the finality watch had seen it (the ledger still books the
  // payout in its old block). Before the fix it stored `missing_on_chain`, and the ledger check
  // failed until the watch's next pass reconciled again.
  it.each([
    ['dropped by the reorganisation', 1, false],
    ['re-included in a later block', 2, true],
  ])('stores no verdict when the chain moved a payout the finality watch has not booked yet: %s', async (_shape, depth, reinclude) => {
    const finality = h.t.app.get(PayoutFinalityService);
    const contributor = `ro-c-${depth}`;
    const settlementId = await confirmedSettlement(contributor, 4n * USD_ATTO);
    const before = await h.reconciliation.reconcileSettlement(settlementId);
    expect(before).toMatchObject({ ok: true, stored: true });
    const [tx] = await sqlRows<{ signed_raw: `0x${string}` }>(h, `SELECT signed_raw FROM settlement_txs WHERE settlement_id = $1`, [settlementId]);
    if (reinclude) await anvil(h).mine({ blocks: 1 });
    await anvilReorg(h.devchain.rpcUrl, depth, reinclude ? [{ signedRaw: tx!.signed_raw, blockIndex: 1 }] : []);

    const during = await h.reconciliation.reconcileSettlement(settlementId);
    expect(during).toMatchObject({ ok: false, missing_on_chain: 1, stored: false, not_stored_because: expect.stringMatching(/no longer in the block/) });
    const storedOk = () => sqlRows<{ ok: string; checked_at: string }>(h, `SELECT reconciliation->>'ok' AS ok, reconciliation->>'checked_at' AS checked_at FROM settlements WHERE id = $1`, [settlementId]);
    expect(await storedOk()).toEqual([{ ok: 'true', checked_at: before.checked_at }]);
    const check = await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(check.body.settlement).toMatchObject({ reconciliation_failures: 0 });

    // Once the watch has booked where the payout is now, a reconciliation is stored again.
    if (!reinclude) expect(await finality.runScheduled()).toMatchObject({ rebroadcast: 1 });
    expect(await finality.runScheduled()).toMatchObject({ moved: 1 });
    const after = await h.reconciliation.reconcileSettlement(settlementId);
    expect(after).toMatchObject({ ok: true, stored: true });
    expect((await storedOk())[0]!.checked_at).toBe(after.checked_at);
  });
});
