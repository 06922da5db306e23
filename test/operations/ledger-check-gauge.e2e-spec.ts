// The /metrics ledger_check_ok gauge never runs the full ledger check nor writes the first
// checkpoint (both read the whole journal under a 10-minute statement timeout, and a scrape every
// minute could start one beside the other): without a checkpoint it is unknown (NaN).
import { LedgerCheckService } from '../../src/modules/ledger/ledger-check.service.js';
import { billingSuite, exampleEvent } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';

describe('ledger_check_ok gauge', () => {
  const t = billingSuite('ledger_check_gauge');
  const sql = suiteSql(t);
  const checkpoints = async () => (await sql.query('SELECT id FROM ledger_checkpoints')).rows;


  it('is unknown without a checkpoint, and writes none', async () => {
    expect(await checkpoints()).toEqual([]);
    const metrics = (await t.http.get('/metrics').expect(200)).text;
    // Before, the scrape wrote the first checkpoint (or ran the full check) and reported 1.
    expect(metrics).toMatch(/^ledger_check_ok Nan$/m);
    expect(await checkpoints()).toEqual([]);
  });

  it('is false without a checkpoint when the rollup check fails (not unknown)', async () => {
    const checks = t.app.get(LedgerCheckService);
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'gauge-1', occurred_at: new Date(Date.now() - 1000).toISOString() })).expect(201);
    expect(await checks.runFromCheckpoint()).toBeNull();
    await sql.query('UPDATE contributor_usage_daily SET earned_atto = earned_atto + 1');
    try {
      // Before, an extension's failure was dropped with the missing ledger part: unknown (NaN).
      expect(await checks.runFromCheckpoint()).toBe(false);
      expect(await checkpoints()).toEqual([]);
    } finally {
      await sql.query('UPDATE contributor_usage_daily SET earned_atto = earned_atto - 1');
    }
  });

  it('reads from the checkpoint once there is one', async () => {
    const checks = t.app.get(LedgerCheckService);
    expect(await checks.runFromCheckpoint()).toBeNull();
    await checks.writeCheckpoint();
    expect(await checks.runFromCheckpoint()).toBe(true);
  });
});
