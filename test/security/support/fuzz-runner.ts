// Sends fuzz cases one at a time and checks each: never a 5xx; a refusal is an api.md 4xx error
// and changes nothing stored; an acceptance replays idempotently.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response, Test } from 'supertest';
import { errorShapeProblem } from './error-shape.js';
import type { FuzzRequest } from './fuzz-cases.js';
import type { SecurityFixture } from './security-fixture.js';
import { changedTables, StateProbe, type StateSnapshot } from './state-snapshot.js';

export interface FuzzStats {
  requests: number;
  /** Replays of accepted requests, included in `requests`. */
  replays: number;
  byRoute: Record<string, number>;
  byStatus: Record<string, number>;
  serverErrors: number;
  badErrorShapes: number;
  /** Refused requests after which something stored had changed. */
  stateChanges: number;
  accepted: number;
  violations: string[];
}

export function emptyStats(): FuzzStats {
  return { requests: 0, replays: 0, byRoute: {}, byStatus: {}, serverErrors: 0, badErrorShapes: 0, stateChanges: 0, accepted: 0, violations: [] };
}

const VIOLATIONS_KEPT_MAX = 40;

function send(f: SecurityFixture, c: FuzzRequest): Test {
  const agent = f.t.http as unknown as Record<string, (url: string) => Test>;
  let req = agent[c.method.toLowerCase()]!(c.path).set('Authorization', `Bearer ${c.caller === 'admin' ? f.keys.admin : f.keys.gateway}`);
  if (c.contentType !== null) req = req.set('Content-Type', c.contentType);
  // The bytes as generated: superagent would otherwise JSON-encode a Buffer sent as application/json.
  return c.body === null ? req : req.serialize((data: unknown) => data as string).send(c.body);
}

export function sendAs(f: SecurityFixture, caller: 'admin' | 'gateway', method: string, path: string): Test {
  const agent = f.t.http as unknown as Record<string, (url: string) => Test>;
  return agent[method.toLowerCase()]!(path).set('Authorization', `Bearer ${caller === 'admin' ? f.keys.admin : f.keys.gateway}`);
}

/** Writes raw bytes to the listening server and returns everything it answers before closing. */
export async function rawExchange(f: SecurityFixture, raw: string): Promise<string> {
  const server = f.t.app.getHttpServer() as import('node:http').Server;
  const { port } = server.address() as AddressInfo;
  const { connect } = await import('node:net');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

function describe(c: FuzzRequest, res: Response | null): string {
  const answer = res ? `${res.status} ${(res.text ?? '').slice(0, 300)}` : 'no response';
  return `${c.route} [${c.mutation}] ${c.method} ${c.path.slice(0, 120)} -> ${answer}`;
}

/** Every result of a batch was rejected: the batch changed nothing. */
function allRejected(res: Response): boolean {
  const results = (res.body as { results?: Array<{ status?: string }> } | undefined)?.results;
  return Array.isArray(results) && results.every((r) => r.status === 'rejected');
}

export async function runFuzzCases(f: SecurityFixture, cases: FuzzRequest[], stats: FuzzStats = emptyStats()): Promise<FuzzStats> {
  const probe = new StateProbe(f.t);
  const violation = (text: string) => {
    if (stats.violations.length < VIOLATIONS_KEPT_MAX) stats.violations.push(text);
  };
  let before: StateSnapshot = await probe.snapshot();
  for (const c of cases) {
    const res = await send(f, c);
    stats.requests += 1;
    stats.byRoute[c.route] = (stats.byRoute[c.route] ?? 0) + 1;
    stats.byStatus[String(res.status)] = (stats.byStatus[String(res.status)] ?? 0) + 1;
    const after = await probe.snapshot();
    const changed = changedTables(before, after);

    if (res.status >= 500) {
      stats.serverErrors += 1;
      violation(`5xx: ${describe(c, res)}`);
    } else if (res.status >= 400) {
      const shape = errorShapeProblem(res);
      if (shape) {
        stats.badErrorShapes += 1;
        violation(`error shape (${shape}): ${describe(c, res)}`);
      }
      if (changed.length > 0) {
        stats.stateChanges += 1;
        violation(`state changed (${changed.join(', ')}) on a ${res.status}: ${describe(c, res)}`);
      }
    } else if (res.status >= 200 && res.status < 300) {
      stats.accepted += 1;
      if (process.env.SECURITY_ACCEPTED_LOG) console.log(`accepted ${res.status} ${c.route} [${c.mutation}] ${(res.text ?? '').slice(0, 160)}`);
      if (c.route === 'POST /v1/usage-events/batch' && allRejected(res) && changed.length > 0) {
        stats.stateChanges += 1;
        violation(`state changed (${changed.join(', ')}) by a batch whose events were all rejected: ${describe(c, res)}`);
      }
      if (c.idempotent) {
        const replay = await send(f, c);
        stats.requests += 1;
        stats.replays += 1;
        const afterReplay = await probe.snapshot();
        // An accepted admin call is audited each time, even when it changes nothing else.
        const changedByReplay = changedTables(after, afterReplay).filter((table) => table !== 'audit_log');
        if (replay.status < 200 || replay.status >= 300) violation(`replay of an accepted request got ${replay.status}: ${describe(c, replay)}`);
        if (changedByReplay.length > 0) violation(`replay changed state (${changedByReplay.join(', ')}): ${describe(c, replay)}`);
        before = afterReplay;
        continue;
      }
    } else {
      violation(`unexpected status: ${describe(c, res)}`);
    }
    before = after;
  }
  return stats;
}

/**
 * Clients that hang up mid-body (Content-Length promises more than is sent): nothing may be
 * stored, and the server must keep answering. Returns the violations.
 */
export async function runAbortedUploads(f: SecurityFixture, paths: Array<{ path: string; caller: 'admin' | 'gateway'; contentType: string }>): Promise<{ sent: number; violations: string[] }> {
  const server = f.t.app.getHttpServer() as import('node:http').Server;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const probe = new StateProbe(f.t);
  const before = await probe.snapshot();
  for (const target of paths) {
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: target.path,
        headers: {
          authorization: `Bearer ${target.caller === 'admin' ? f.keys.admin : f.keys.gateway}`,
          'content-type': target.contentType,
          'content-length': '100000',
        },
      });
      req.on('error', () => resolve());
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.write('{"event_id":"aborted-1","user_id":"u_42","amount_usd":"1"');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
  }
  // Give the server a moment to see the hang-ups, then prove it still answers and stored nothing.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const violations: string[] = [];
  const health = await f.t.http.get('/health');
  if (health.status !== 200) violations.push(`server unhealthy after aborted uploads: ${health.status}`);
  const changed = changedTables(before, await probe.snapshot());
  if (changed.length > 0) violations.push(`aborted uploads changed state: ${changed.join(', ')}`);
  return { sent: paths.length, violations };
}
