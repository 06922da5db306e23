/**
 * One cached reading of a source for /metrics: concurrent scrapes share the read in flight, and a
 * new read starts only once the previous one settled and its lifetime passed since then. The
 * lifetime counts from when a read settles, not from when it starts: a read slower than the
 * lifetime (the ledger check, with 10-minute statement timeouts) is never started again while it
 * still runs, so scrapes cannot pile up connections of the pool behind it. A failed read is not
 * kept: the next scrape after it starts a new one.
 */
export class CachedReading<T> {
  private inFlight: Promise<T> | null = null;
  private settled: { atMs: number; data: Promise<T> } | null = null;

  constructor(
    private readonly lifetimeMs: number,
    private readonly read: () => Promise<T>,
    private readonly nowMs: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    if (this.inFlight) return this.inFlight;
    if (this.settled && this.nowMs() - this.settled.atMs <= this.lifetimeMs) return this.settled.data;
    const data = this.read();
    this.inFlight = data;
    data.then(
      () => {
        this.inFlight = null;
        this.settled = { atMs: this.nowMs(), data };
      },
      () => {
        this.inFlight = null;
        this.settled = null;
      },
    );
    return data;
  }
}
