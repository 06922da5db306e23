// The bad-input fuzz, shared by test/security/bad-input-fuzz.sec-spec.ts (1,000+ cases) and
// test/security/security-smoke.e2e-spec.ts (a few hundred, in every `npm test`).
import { expectLedgerClean } from '../../support/billing-fixtures.js';
import { FUZZED_ROUTE_KEYS, generateFuzzCases } from './fuzz-cases.js';
import { errorShapeProblem } from './error-shape.js';
import { emptyStats, rawExchange, runAbortedUploads, runFuzzCases, sendAs, type FuzzStats } from './fuzz-runner.js';
import { changedTables, StateProbe } from './state-snapshot.js';
import { ROUTE_TABLE } from './route-table.js';
import { startSecurityFixture, type SecurityFixture } from './security-fixture.js';

export interface FuzzSuiteOptions {
  label: string;
  seed: number;
  cases: number;
  abortedUploads: boolean;
}

export function describeBadInputFuzz(options: FuzzSuiteOptions): void {
  describe(`bad input: ${options.cases} generated malformed requests (seed ${options.seed})`, () => {
    let f: SecurityFixture;
    const stats: FuzzStats = emptyStats();

    beforeAll(async () => {
      f = await startSecurityFixture(options.label);
    });
    afterAll(async () => {
      if (process.env.SECURITY_REPORT) console.log(`fuzz figures (${options.label}): ${JSON.stringify(stats, null, 1)}`);
      await f?.t.close();
    });

    it('reaches every write route of the access-control table', () => {
      const writes = Object.keys(ROUTE_TABLE).filter((route) => !route.startsWith('GET '));
      expect(writes.filter((route) => !FUZZED_ROUTE_KEYS.includes(route))).toEqual([]);
    });

    it('never answers 5xx; refuses with an api.md 4xx error and changes nothing; accepted requests replay idempotently', async () => {
      const cases = generateFuzzCases(options.seed, options.cases);
      expect(cases.length).toBeGreaterThanOrEqual(options.cases);
      await runFuzzCases(f, cases, stats);
      expect(stats.violations).toEqual([]);
      expect({ serverErrors: stats.serverErrors, badErrorShapes: stats.badErrorShapes, stateChanges: stats.stateChanges }).toEqual({
        serverErrors: 0,
        badErrorShapes: 0,
        stateChanges: 0,
      });
      // Generated to be invalid: acceptances stay rare (they happen when a mutation is harmless).
      expect(stats.accepted).toBeLessThan(stats.requests * 0.25);
    });

    if (options.abortedUploads) {
      it('survives clients hanging up mid-body, storing nothing', async () => {
        const targets = [
          { path: '/v1/usage-events', caller: 'gateway' as const, contentType: 'application/json' },
          { path: '/v1/usage-events/batch', caller: 'gateway' as const, contentType: 'application/json' },
          { path: '/v1/holds', caller: 'gateway' as const, contentType: 'application/json' },
          { path: '/v1/usage-events/stream?event_id=ab-1&user_id=u_42&contributor_id=c_std', caller: 'gateway' as const, contentType: 'text/event-stream' },
          { path: '/v1/admin/prices/import', caller: 'admin' as const, contentType: 'application/json' },
          { path: '/v1/admin/users/u_42/credits', caller: 'admin' as const, contentType: 'application/json' },
        ];
        const result = await runAbortedUploads(f, [...targets, ...targets]);
        stats.requests += result.sent;
        expect(result.violations).toEqual([]);
      });
    }

    it('refuses NUL in every path parameter of every route with a 400', async () => {
      const probe = new StateProbe(f.t);
      const before = await probe.snapshot();
      const problems: string[] = [];
      for (const route of Object.keys(ROUTE_TABLE).filter((r) => r.includes('/:'))) {
        const [method, path] = route.split(' ') as [string, string];
        const res = await sendAs(f, 'admin', method, path.replace(/:[a-z_]+/g, 'a%00b'));
        stats.requests += 1;
        if (res.status !== 400 || errorShapeProblem(res)) problems.push(`${route}: ${res.status} ${res.text.slice(0, 120)}`);
      }
      expect(problems).toEqual([]);
      expect(changedTables(before, await probe.snapshot())).toEqual([]);
    });

    it('answers HTTP that Node cannot parse in the api.md error shape', async () => {
      for (const raw of ['GARBAGE\r\n\r\n', 'POST /v1/holds HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', `GET /${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]) {
        const answer = await rawExchange(f, raw);
        stats.requests += 1;
        expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
        expect(answer).toMatch(/\r\n\r\n\{"error":\{"code":"(validation_failed|payload_too_large)","message":"[^"]+"\}\}$/);
      }
    });

    it('leaves a ledger that still checks out', async () => {
      await expectLedgerClean(f.t);
    });
  });
}
