// The soak's HTTP client: every request is a valid one, so every answer is judged. A request
// without an answer (an API killed), a 503 `unavailable` (Postgres or Redis down) or a 429 is
// sent again, the same payload (every write is idempotent by its id), to either API, until a
// definitive answer or the retry window ends. A 5xx is recorded: a 503 `unavailable` within a
// fault's window is the documented answer; any other 5xx breaks "no 5xx on valid input".
import { sleep } from '../lib/processes.js';
import type { ApiSlot } from './soak-stack.js';

const REQUEST_TIMEOUT_MS = 30_000;
const RETRY_WINDOW_MS = 120_000;
const RETRY_PAUSE_MS = 300;
/** After a fault has been repaired, 503s are still its consequence for this long. */
export const FAULT_AFTERMATH_MS = 30_000;

export interface HttpAnswer {
  status: number;
  json: any;
  /** How many sends it took. */
  attempts: number;
}

export interface FiveXx {
  step: number;
  method: string;
  path: string;
  status: number;
  code: string | null;
  allowed: boolean;
}

export class SoakHttp {
  readonly fiveXx: FiveXx[] = [];
  /** Until when a 503 `unavailable` is the fault's consequence (epoch ms). */
  faultWindowUntilMs = 0;
  faultActive = false;
  step = 0;

  constructor(
    private readonly apis: ApiSlot[],
    private readonly key: string,
  ) {}

  private allowed503(): boolean {
    return this.faultActive || Date.now() < this.faultWindowUntilMs;
  }

  async request(method: string, path: string, o: { api?: number; body?: unknown; raw?: string; contentType?: string } = {}): Promise<HttpAnswer> {
    const deadline = Date.now() + RETRY_WINDOW_MS;
    let api = o.api ?? 0;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const base = this.apis[api % this.apis.length]!.baseUrl;
      let status = 0;
      let json: any = null;
      try {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${this.key}`, ...(o.body !== undefined || o.raw !== undefined ? { 'content-type': o.contentType ?? 'application/json' } : {}) },
          body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        status = response.status;
        const text = await response.text();
        try {
          json = text.length > 0 ? JSON.parse(text) : null;
        } catch {
          json = { text: text.slice(0, 300) };
        }
      } catch {
        status = 0;
      }
      if (status >= 500) {
        const code = (json?.error?.code as string | undefined) ?? null;
        this.fiveXx.push({ step: this.step, method, path: path.split('?')[0]!, status, code, allowed: status === 503 && code === 'unavailable' && this.allowed503() });
      }
      const retry = status === 0 || status === 429 || status === 408 || status >= 500;
      if (!retry || Date.now() > deadline) return { status, json, attempts };
      api += 1;
      await sleep(RETRY_PAUSE_MS * Math.min(attempts, 5));
    }
  }
}
