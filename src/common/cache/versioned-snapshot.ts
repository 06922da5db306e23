// An in-memory copy of a small, append-mostly table (price versions, contributor tiers) that hot
// paths read many times per second. It reloads only when a cheap version query (for example
// `SELECT count(*), max(id)`) says the table changed, and asks at most once per check interval.

export interface SnapshotSource<T> {
  /** A cheap fingerprint of the table; equal fingerprints mean equal contents. */
  readVersion(): Promise<string>;
  /** Loads everything, with the fingerprint of exactly what was loaded (same snapshot). */
  load(): Promise<{ version: string; value: T }>;
}

export interface VersionedSnapshotOptions {
  checkIntervalMs: number;
  /** Injected clock for tests; Date.now by default. */
  nowMs?: () => number;
}

/**
 * Checks run one at a time, so an older load can never overwrite a newer one. A caller that needs
 * to see every commit made before its call (getFresh) never joins a check that already started:
 * it joins the next one, which starts after the call.
 */
export class VersionedSnapshot<T> {
  private value: T | undefined;
  private version: string | undefined;
  private checkedAtMs = Number.NEGATIVE_INFINITY;
  /** Bumped by invalidate(); the value is trusted only when validGeneration === generation. */
  private generation = 0;
  private validGeneration = -1;
  private running: Promise<T> | null = null;
  private queued: Promise<T> | null = null;
  private readonly nowMs: () => number;

  constructor(
    private readonly source: SnapshotSource<T>,
    private readonly options: VersionedSnapshotOptions,
  ) {
    if (!(options.checkIntervalMs >= 0)) throw new RangeError('checkIntervalMs must be >= 0');
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** At most checkIntervalMs stale, unless invalidated (then as fresh as getFresh). */
  get(): Promise<T> {
    const trusted = this.value !== undefined && this.validGeneration === this.generation;
    if (trusted && this.nowMs() - this.checkedAtMs < this.options.checkIntervalMs) return Promise.resolve(this.value as T);
    if (trusted && this.running) return this.running;
    return this.getFresh();
  }

  /** Reflects every change committed before this call. */
  getFresh(): Promise<T> {
    if (this.queued) return this.queued;
    if (!this.running) return this.startCheck();
    const queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.startCheck();
      });
    this.queued = queued;
    return queued;
  }

  /** Called after this process changed the table: the next get() checks the version. */
  invalidate(): void {
    this.generation += 1;
  }

  private startCheck(): Promise<T> {
    const running = this.check().finally(() => {
      if (this.running === running) this.running = null;
    });
    this.running = running;
    return running;
  }

  private async check(): Promise<T> {
    const startedAtMs = this.nowMs();
    const generation = this.generation;
    if (this.value !== undefined) {
      const version = await this.source.readVersion();
      if (version === this.version) return this.accept(this.value, version, startedAtMs, generation);
    }
    const loaded = await this.source.load();
    return this.accept(loaded.value, loaded.version, startedAtMs, generation);
  }

  private accept(value: T, version: string, startedAtMs: number, generation: number): T {
    this.value = value;
    this.version = version;
    this.checkedAtMs = startedAtMs;
    this.validGeneration = generation;
    return value;
  }
}
