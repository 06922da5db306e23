import { CachedReading } from './cached-reading.js';

/** A read whose promise the test settles. */
function deferredReads() {
  const pending: Array<{ resolve: (v: number) => void; reject: (e: Error) => void }> = [];
  const read = () => new Promise<number>((resolve, reject) => pending.push({ resolve, reject }));
  return { pending, read };
}
const flush = () => new Promise((r) => setImmediate(r));

describe('CachedReading', () => {
  it('reuses a read still in flight, however long it runs past the lifetime', async () => {
    let now = 0;
    const { pending, read } = deferredReads();
    const cached = new CachedReading(60_000, read, () => now);
    const first = cached.get();
    now = 61_000;
    // Before: a read started 61 s ago was past its lifetime, and a second one started beside it.
    const second = cached.get();
    now = 600_000;
    const third = cached.get();
    expect(pending).toHaveLength(1);
    expect(second).toBe(first);
    expect(third).toBe(first);
    pending[0]!.resolve(7);
    await expect(third).resolves.toBe(7);
  });

  it('counts the lifetime from when the read settled', async () => {
    let now = 0;
    const { pending, read } = deferredReads();
    const cached = new CachedReading(60_000, read, () => now);
    void cached.get();
    now = 100_000;
    pending[0]!.resolve(1);
    await flush();
    now = 159_000;
    await expect(cached.get()).resolves.toBe(1);
    expect(pending).toHaveLength(1);
    now = 161_000;
    const next = cached.get();
    expect(pending).toHaveLength(2);
    pending[1]!.resolve(2);
    await expect(next).resolves.toBe(2);
  });

  it('keeps no failed read: the next call reads again', async () => {
    const { pending, read } = deferredReads();
    const cached = new CachedReading(60_000, read, () => 0);
    const failing = cached.get();
    pending[0]!.reject(new Error('down'));
    await expect(failing).rejects.toThrow('down');
    await flush();
    const again = cached.get();
    expect(pending).toHaveLength(2);
    pending[1]!.resolve(3);
    await expect(again).resolves.toBe(3);
  });
});
