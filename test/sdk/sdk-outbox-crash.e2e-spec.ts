// The durable outbox across kill -9: a gateway process using the packed SDK (`npm pack` of sdk/)
// makes calls while the ledger is down, is killed with SIGKILL while it is writing reports, and is
// started again with the ledger up: every call it finished is billed exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { installPackedSdk } from './support/packed-sdk.js';
import { startSseUpstream, type SseUpstream } from './support/sse-upstream.js';

const CALLS = 60;
const DONE_BEFORE_KILL = 12;

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function startGateway(dir: string, env: Record<string, string>): { child: ChildProcess; done: string[]; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['gateway.mjs'], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const done: string[] = [];
  let output = '';
  child.stdout!.on('data', (data: Buffer) => {
    output += data.toString();
    for (const line of data.toString().split('\n')) if (line.startsWith('done ')) done.push(line.slice(5));
  });
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, done, output: () => output, exited };
}

describe('SDK outbox: a gateway killed with SIGKILL loses nothing and bills nothing twice', () => {
  let t: TestApp;
  let upstream: SseUpstream;
  let dir: string;
  let ledgerUrl: string;
  let gatewayKey: string;

  beforeAll(async () => {
    t = await startTestApp('sdk_outbox');
    await t.app.listen(0, '127.0.0.1');
    ledgerUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    await seedBilling(t);
    gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'outbox' }).expect(201)).body.key;
    upstream = await startSseUpstream({ pieceDelayMs: 1 });
    dir = mkdtempSync(join(tmpdir(), 'ledger-sdk-gateway-'));
  });
  afterAll(async () => {
    await upstream?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('bills every finished call exactly once after the restart', async () => {
    const manifest = installPackedSdk(dir);
    copyFileSync(join(import.meta.dirname, 'support', 'outbox-gateway.mjs'), join(dir, 'gateway.mjs'));
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(['gpt-tokenizer', 'openapi-fetch']);
    const outboxDir = join(dir, 'outbox');
    const common = { LEDGER_KEY: gatewayKey, OUTBOX_DIR: outboxDir, UPSTREAM_URL: upstream.url, RUN: 'crash' };

    // The ledger is down: nothing listens on this port.
    const first = startGateway(dir, { ...common, LEDGER_URL: `http://127.0.0.1:${await unusedPort()}`, CALLS: String(CALLS) });
    const deadline = Date.now() + 30_000;
    while (first.done.length < DONE_BEFORE_KILL && first.child.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first.done.length).toBeGreaterThanOrEqual(DONE_BEFORE_KILL);
    first.child.kill('SIGKILL');
    await first.exited;
    const finished = [...first.done];
    const kept = readdirSync(outboxDir).filter((name) => name.endsWith('.report.json'));
    expect(kept.length).toBeGreaterThanOrEqual(finished.length);

    // Restarted with the ledger up: the outbox is delivered at construction and by flush().
    const second = startGateway(dir, { ...common, LEDGER_URL: ledgerUrl, CALLS: '0' });
    expect(await second.exited).toBe(0);
    expect(second.output()).toMatch(/flushed \{"delivered":\d+,"pending":0,"dead":0\}/);
    expect(readdirSync(outboxDir).filter((name) => name.endsWith('.report.json'))).toEqual([]);

    // Started once more: nothing is left to send, nothing is billed again.
    const third = startGateway(dir, { ...common, LEDGER_URL: ledgerUrl, CALLS: '0' });
    expect(await third.exited).toBe(0);
    expect(third.output()).toContain('flushed {"delivered":0,"pending":0,"dead":0}');

    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const rows = (await client.query<{ event_id: string; n: string; status: string }>("SELECT event_id, count(*)::text AS n, min(status) AS status FROM usage_events WHERE event_id LIKE 'crash-%' GROUP BY event_id")).rows;
      const billed = new Map(rows.map((row) => [row.event_id, row]));
      for (const eventId of finished) expect(billed.get(eventId)).toEqual({ event_id: eventId, n: '1', status: 'priced' });
      // At most the one call in flight at the kill is billed beyond those (its report was already durable).
      expect(rows.length - finished.length).toBeGreaterThanOrEqual(0);
      expect(rows.length - finished.length).toBeLessThanOrEqual(1);
      expect(rows.every((row) => row.n === '1')).toBe(true);
      // The money: the user paid exactly the sum of those events' charges, once each.
      const charges = (await client.query<{ total: string }>("SELECT coalesce(sum(charge_atto), 0)::text AS total FROM usage_events WHERE event_id LIKE 'crash-%'")).rows[0]!.total;
      const balance = (await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200)).body.balance_usd as string;
      const [whole, fraction = ''] = balance.split('.');
      const balanceAtto = BigInt(whole!) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
      expect(100n * 10n ** 18n - balanceAtto).toBe(BigInt(charges));
    } finally {
      await client.end();
    }
  }, 90_000);
});
