// The /metrics ledger_check_ok gauge never runs the full ledger check nor writes the first
// checkpoint (both read the whole journal under a 10-minute statement timeout, and a scrape every
// minute could start one beside the other): without a checkpoint it is unknown (NaN).
import pg from 'pg';
import { LedgerCheckService } from '../../src/modules/ledger/ledger-check.service.js';
import { seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('ledger_check_ok gauge', () => {
  let t: TestApp;
  let sql: pg.Client;
  const checkpoints = async () => (await sql.query('SELECT id FROM ledger_checkpoints')).rows;

  beforeAll(async () => {
    t = await startTestApp('ledger_check_gauge');
    await seedBilling(t);
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await t?.close();
  });

  it('is unknown without a checkpoint, and writes none', async () => {
    expect(await checkpoints()).toEqual([]);
    const metrics = (await t.http.get('/metrics').expect(200)).text;
    // Before, the scrape wrote the first checkpoint (or ran the full check) and reported 1.
    expect(metrics).toMatch(/^ledger_check_ok Nan$/m);
    expect(await checkpoints()).toEqual([]);
  });

  it('reads from the checkpoint once there is one', async () => {
    const checks = t.app.get(LedgerCheckService);
    expect(await checks.runFromCheckpoint()).toBeNull();
    await checks.writeCheckpoint();
    expect(await checks.runFromCheckpoint()).toMatchObject({ ok: true, mode: 'checkpoint' });
  });
});
