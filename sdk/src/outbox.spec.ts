import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('keeps a report until the ledger takes it, oldest first, and stops a pass while the ledger is down', async () => {
    let answer: DeliveryOutcome = { outcome: 'retry', error: new Error('ECONNREFUSED') };
    const sent: string[] = [];
    const outbox = new Outbox({ dir, send: async (r) => (sent.push(r.event_id), answer) });
    for (const id of ['e1', 'e2', 'e3']) await outbox.put(report(id));
    expect(await outbox.deliverAll()).toEqual({ delivered: 0, pending: 3, dead: 0 });
    expect(sent).toEqual(['e1']);
    answer = { outcome: 'delivered', status: 201, body: {} };
    expect(await outbox.deliverAll()).toEqual({ delivered: 3, pending: 0, dead: 0 });
    expect(sent).toEqual(['e1', 'e1', 'e2', 'e3']);
    expect(await outbox.list()).toEqual([]);
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

  it('ignores a half-written temporary file a crash left behind', async () => {
    const outbox = new Outbox({ dir, send: async () => ({ outcome: 'delivered', status: 201, body: {} }) });
    writeFileSync(join(dir, 'tmp', 'x.report.json.123.tmp'), '{"kind":"ev');
    await outbox.put(report('e1'));
    expect(await outbox.list()).toHaveLength(1);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(readdirSync(join(dir, 'tmp'))).toEqual(['x.report.json.123.tmp']);
    expect(await outbox.deliverAll()).toEqual({ delivered: 1, pending: 0, dead: 0 });
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
