import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outbox } from './outbox.js';
import { eventReport, type DeliveryOutcome, type LedgerReport } from './reports.js';

const report = (id: string): LedgerReport =>
  eventReport({ event_id: id, user_id: 'u1', contributor_id: 'c1', model: 'm', occurred_at: '2026-12-01T10:00:00.000Z', usage: { prompt_tokens: 1, completion_tokens: 2 } });

describe('Outbox', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-outbox-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps a report until the ledger takes it; a failing report waits for its own next attempt and never holds back the others (#34 item 6)', async () => {
    const failing = new Set(['e1']);
    const sent: string[] = [];
    const outbox = new Outbox({
      dir,
      send: async (r) => (sent.push(r.event_id), failing.has(r.event_id) ? { outcome: 'retry', error: new Error('503 unavailable') } : { outcome: 'delivered', status: 201, body: {} }),
    });
    for (const id of ['e1', 'e2', 'e3', 'e4', 'e5']) await outbox.put(report(id));
    expect(await outbox.deliverAll()).toEqual({ delivered: 4, pending: 1, dead: 0 });
    expect(sent).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    // Its backoff has not run out: a periodic pass leaves it alone, flush (force) tries it now.
    expect(await outbox.deliverAll()).toEqual({ delivered: 0, pending: 1, dead: 0 });
    expect(sent).toHaveLength(5);
    failing.clear();
    expect(await outbox.deliverAll({ force: true })).toEqual({ delivered: 1, pending: 0, dead: 0 });
    expect(sent).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e1']);
    expect(await outbox.list()).toEqual([]);
  });

  it('stops a pass when the ledger gives no answer at all (down), not when it answers one report with a failure', async () => {
    const sent: string[] = [];
    let unreachable = true;
    const outbox = new Outbox({ dir, send: async (r) => (sent.push(r.event_id), { outcome: 'retry', error: new Error('ECONNREFUSED'), unreachable }) });
    for (const id of ['e1', 'e2', 'e3']) await outbox.put(report(id));
    expect(await outbox.deliverAll({ force: true })).toEqual({ delivered: 0, pending: 3, dead: 0 });
    expect(sent).toEqual(['e1']);
    unreachable = false;
    expect(await outbox.deliverAll({ force: true })).toEqual({ delivered: 0, pending: 3, dead: 0 });
    expect(sent).toEqual(['e1', 'e1', 'e2', 'e3']);
  });

  it('moves a report the ledger refuses for good to dead/ with the error, and sends the rest', async () => {
    const outbox = new Outbox({
      dir,
      send: async (r) => (r.event_id === 'bad' ? { outcome: 'refused', error: Object.assign(new Error('unknown contributor'), { code: 'unknown_contributor', status: 422 }) } : { outcome: 'delivered', status: 201, body: {} }),
    });
    await outbox.put(report('bad'));
    await outbox.put(report('good'));
    expect(await outbox.deliverAll()).toEqual({ delivered: 1, pending: 0, dead: 1 });
    const [dead] = await outbox.listDead();
    const record = JSON.parse(readFileSync(join(dir, 'dead', dead!), 'utf8'));
    expect(record.report.event_id).toBe('bad');
    expect(record.error).toMatchObject({ message: 'unknown contributor', code: 'unknown_contributor', status: 422 });
  });

  it('removes the half-written temporary files a crash left behind at start (#34 item 16)', async () => {
    mkdirSync(join(dir, 'tmp'), { recursive: true });
    writeFileSync(join(dir, 'tmp', 'x.report.json.123.tmp'), '{"kind":"ev');
    const outbox = new Outbox({ dir, send: async () => ({ outcome: 'delivered', status: 201, body: {} }) });
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
    await outbox.put(report('e1'));
    expect(await outbox.list()).toHaveLength(1);
    expect(await outbox.deliverAll()).toEqual({ delivered: 1, pending: 0, dead: 0 });
  });

  it('keeps reports 0600 in 0700 folders, also a folder that existed with wider modes (#34 item 16)', async () => {
    chmodSync(dir, 0o755);
    const outbox = new Outbox({ dir, send: async () => ({ outcome: 'refused', error: new Error('no') }) });
    const name = await outbox.put(report('e1'));
    expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    await outbox.deliverAll();
    expect(statSync(join(dir, 'dead', name)).mode & 0o777).toBe(0o600);
    for (const sub of ['dead', 'tmp', 'unreadable']) expect(statSync(join(dir, sub)).mode & 0o777).toBe(0o700);
  });

  it('moves a file that is not a readable report aside and sends the rest (#34 item 16)', async () => {
    const errors: string[] = [];
    const sent: string[] = [];
    const outbox = new Outbox({ dir, send: async (r) => (sent.push(r.event_id), { outcome: 'delivered', status: 201, body: {} }), onError: (error) => errors.push(error.message) });
    writeFileSync(join(dir, '00000000000000-000000-garbage.report.json'), '{"kind":"str');
    // A directory where a file should be: reading it fails (EISDIR) even for root.
    mkdirSync(join(dir, '00000000000000-000001-dir.report.json'));
    await outbox.put(report('good'));
    expect(await outbox.deliverAll()).toEqual({ delivered: 1, pending: 0, dead: 0 });
    expect(sent).toEqual(['good']);
    expect(readdirSync(join(dir, 'unreadable')).sort()).toEqual(['00000000000000-000000-garbage.report.json', '00000000000000-000001-dir.report.json']);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/not a readable report/);
  });

  it('lists dead letters and sends them again, all or by id; one refused again returns to dead/ (#36 item 2)', async () => {
    let refuse = true;
    const outbox = new Outbox({
      dir,
      send: async (r) => (refuse || r.event_id === 'still-bad' ? { outcome: 'refused', error: Object.assign(new Error('unknown contributor'), { code: 'unknown_contributor', status: 422 }) } : { outcome: 'delivered', status: 201, body: {} }),
    });
    for (const id of ['a', 'b', 'still-bad']) await outbox.put(report(id));
    expect(await outbox.deliverAll()).toEqual({ delivered: 0, pending: 0, dead: 3 });
    const dead = await outbox.dead();
    expect(dead.map((letter) => letter.event_id)).toEqual(['a', 'b', 'still-bad']);
    expect(dead[0]).toMatchObject({ kind: 'event', error: { code: 'unknown_contributor', status: 422, message: 'unknown contributor' } });
    refuse = false;
    expect(await outbox.retryDead([dead[0]!.id])).toEqual({ delivered: 1, pending: 0, dead: 0 });
    expect((await outbox.dead()).map((letter) => letter.event_id)).toEqual(['b', 'still-bad']);
    expect(await outbox.retryDead()).toEqual({ delivered: 1, pending: 0, dead: 1 });
    expect((await outbox.dead()).map((letter) => letter.event_id)).toEqual(['still-bad']);
    expect(await outbox.list()).toEqual([]);
  });

  it('never sends one file twice at once (a pass and a direct delivery overlapping)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let sends = 0;
    const outbox = new Outbox({ dir, send: async () => (sends++, await gate, { outcome: 'delivered', status: 201, body: {} }) });
    const name = await outbox.put(report('e1'));
    const first = outbox.deliver(name);
    expect(await outbox.deliver(name)).toBe('busy');
    release();
    expect(await first).toBe('delivered');
    expect(sends).toBe(1);
  });
});
