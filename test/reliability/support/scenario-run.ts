// Per-scenario bookkeeping: a run directory for child logs, cleanup steps that run even when a
// test fails, and the figures each scenario records (printed and written as JSON for
// docs/reliability.md).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RESULTS_DIR = process.env.RELIABILITY_RESULTS_DIR ?? join(tmpdir(), 'ledger-reliability-results');

type Step = { label: string; run: () => Promise<unknown> | unknown };

export class ScenarioRun {
  readonly runDir: string;
  readonly figures: Record<string, unknown> = {};
  private readonly steps: Step[] = [];
  private readonly startedAtMs = Date.now();

  constructor(readonly name: string) {
    this.runDir = mkdtempSync(join(tmpdir(), `rel-${name}-`));
  }

  /** Cleanup steps run last-registered-first; each failure is reported, none stops the others. */
  onCleanup(label: string, run: Step['run']): void {
    this.steps.push({ label, run });
  }

  record(key: string, value: unknown): void {
    this.figures[key] = value;
  }

  async cleanup(): Promise<void> {
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      try {
        await step.run();
      } catch (error) {
        console.error(`[${this.name}] cleanup ${step.label} failed: ${(error as Error).message}`);
      }
    }
    this.figures.durationS = Math.round((Date.now() - this.startedAtMs) / 100) / 10;
    this.figures.logs = this.runDir;
    mkdirSync(RESULTS_DIR, { recursive: true });
    const text = JSON.stringify(this.figures, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2);
    writeFileSync(join(RESULTS_DIR, `${this.name}.json`), `${text}\n`);
    process.stdout.write(`\n[reliability] ${this.name}: ${text}\n`);
  }
}
