import { VersionedSnapshot, type SnapshotSource } from './versioned-snapshot.js';

class FakeTable implements SnapshotSource<string[]> {
  rows: string[] = ['a'];
  versionReads = 0;
  loads = 0;
  gate: Promise<void> | null = null;

  async readVersion(): Promise<string> {
    this.versionReads += 1;
    const version = String(this.rows.length);
    if (this.gate) await this.gate;
    return version;
  }

  async load(): Promise<{ version: string; value: string[] }> {
    this.loads += 1;
    const rows = [...this.rows];
    if (this.gate) await this.gate;
    return { version: String(rows.length), value: rows };
  }
}

function setup(checkIntervalMs = 250) {
  const table = new FakeTable();
  const clock = { ms: 1_000 };
  const snapshot = new VersionedSnapshot(table, { checkIntervalMs, nowMs: () => clock.ms });
  return { table, clock, snapshot };
}

describe('VersionedSnapshot', () => {
  it('loads once, then serves from memory within the check interval', async () => {
    const { table, clock, snapshot } = setup();
    expect(await snapshot.get()).toEqual(['a']);
    clock.ms += 249;
    table.rows.push('b');
    expect(await snapshot.get()).toEqual(['a']);
    expect(table.loads).toBe(1);
    expect(table.versionReads).toBe(0);
  });

  it('checks the version after the interval and reloads only when it changed', async () => {
    const { table, clock, snapshot } = setup();
    await snapshot.get();
    clock.ms += 250;
    expect(await snapshot.get()).toEqual(['a']);
    expect(table.versionReads).toBe(1);
    expect(table.loads).toBe(1);
    table.rows.push('b');
    clock.ms += 250;
    expect(await snapshot.get()).toEqual(['a', 'b']);
    expect(table.loads).toBe(2);
  });

  it('getFresh always checks the version', async () => {
    const { table, snapshot } = setup();
    await snapshot.get();
    table.rows.push('b');
    expect(await snapshot.getFresh()).toEqual(['a', 'b']);
    expect(await snapshot.getFresh()).toEqual(['a', 'b']);
    expect(table.versionReads).toBe(2);
  });

  it('invalidate makes the next get check at once', async () => {
    const { table, snapshot } = setup();
    await snapshot.get();
    table.rows.push('b');
    snapshot.invalidate();
    expect(await snapshot.get()).toEqual(['a', 'b']);
    expect(await snapshot.get()).toEqual(['a', 'b']);
    expect(table.versionReads).toBe(1);
  });

  it('coalesces concurrent stale gets into one check', async () => {
    const { table, clock, snapshot } = setup();
    await snapshot.get();
    clock.ms += 1_000;
    const results = await Promise.all([snapshot.get(), snapshot.get(), snapshot.get()]);
    expect(results).toEqual([['a'], ['a'], ['a']]);
    expect(table.versionReads).toBe(1);
  });

  it('never lets getFresh join a check that started before the call', async () => {
    const { table, snapshot } = setup();
    await snapshot.get();
    let open!: () => void;
    table.gate = new Promise((resolve) => (open = resolve));
    const early = snapshot.getFresh(); // reads version "1" before the insert below
    table.rows.push('b');
    const late1 = snapshot.getFresh();
    const late2 = snapshot.getFresh();
    table.gate = null;
    open();
    expect(await early).toEqual(['a']);
    expect(await late1).toEqual(['a', 'b']);
    expect(await late2).toEqual(['a', 'b']);
    expect(table.versionReads).toBe(2); // the two late callers shared the queued check
  });

  it('propagates a failed check and recovers on the next call', async () => {
    const { table, snapshot } = setup(0);
    await snapshot.get();
    const readVersion = table.readVersion.bind(table);
    table.readVersion = () => Promise.reject(new Error('database down'));
    await expect(snapshot.get()).rejects.toThrow('database down');
    table.readVersion = readVersion;
    table.rows.push('b');
    expect(await snapshot.get()).toEqual(['a', 'b']);
  });
});
