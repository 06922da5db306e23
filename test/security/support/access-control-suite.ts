// The access-control tests, shared by test/security/access-control.sec-spec.ts (everything, with
// the log check) and test/security/security-smoke.e2e-spec.ts (the matrix, in every `npm test`).
import { runAccessMatrix, PRINCIPALS, type MatrixResult } from './access-matrix.js';
import { auditLogTexts, databaseTexts, logsWhileUsingKeys, secretsFoundIn } from './key-secrecy.js';
import { isNotFoundCatchAll, isOpenApiAsset, ROUTE_TABLE } from './route-table.js';
import { openApiRoutes, routeKey, servedRoutes } from './served-routes.js';
import { startSecurityFixture, type SecurityFixture } from './security-fixture.js';

export interface AccessControlOptions {
  label: string;
  /** Starts the real service as a child process to read its logs (a few seconds). */
  checkLogs: boolean;
}

export function describeAccessControl(options: AccessControlOptions): void {
  describe('access control: every route x every caller', () => {
    let f: SecurityFixture;
    let served: string[];
    let matrix: MatrixResult;

    beforeAll(async () => {
      f = await startSecurityFixture(options.label);
      served = servedRoutes(f.t.app)
        .filter((r) => !isNotFoundCatchAll(r.path))
        .map(routeKey);
    });
    afterAll(async () => {
      await f?.t.close();
    });

    it('has an access decision for every served route, and no stale entry', () => {
      const undecided = served.filter((route) => !(route in ROUTE_TABLE));
      const stale = Object.keys(ROUTE_TABLE).filter((route) => !served.includes(route));
      expect({ undecided, stale }).toEqual({ undecided: [], stale: [] });
    });

    it('describes every controller route in /docs-json', async () => {
      const doc = await f.t.http.get('/docs-json').expect(200);
      const documented = new Set(openApiRoutes(doc.body).map(routeKey));
      const controllerRoutes = served.filter((route) => !isOpenApiAsset(route.split(' ')[1]!));
      expect(controllerRoutes.filter((route) => !documented.has(route))).toEqual([]);
    });

    it('answers 401 without a valid key, 403 for the wrong role or another contributor, and lets the right roles in', async () => {
      matrix = await runAccessMatrix(f, served);
      const problems = matrix.cells.filter((c) => c.problem !== null).map((c) => `${c.route} as ${c.principal} (${c.path}): ${c.problem}`);
      if (process.env.SECURITY_REPORT) {
        const byExpectation = matrix.cells.reduce<Record<string, number>>((acc, c) => ({ ...acc, [c.expected]: (acc[c.expected] ?? 0) + 1 }), {});
        console.log(`matrix figures: ${JSON.stringify({ routes: served.length, principals: PRINCIPALS.length, cells: matrix.cells.length, idorPairs: matrix.idorComparisons.length, byExpectation })}`);
      }
      expect(problems).toEqual([]);
      expect(matrix.cells).toHaveLength(served.length * PRINCIPALS.length);
    });

    it("gives a contributor key the same 403 for another contributor that exists and one that does not", () => {
      expect(matrix.idorComparisons.length).toBeGreaterThanOrEqual(4);
      expect(matrix.idorComparisons.filter((c) => !c.same)).toEqual([]);
      for (const c of matrix.idorComparisons) expect(c.existing.startsWith('403 ')).toBe(true);
    });

    it('never returns a key again after its creation: not in any response, the audit log or the database', async () => {
      expect(f.createdSecrets).toHaveLength(4);
      expect(secretsFoundIn(matrix.responseTexts, f.createdSecrets)).toEqual([]);
      const audit = await auditLogTexts(f);
      expect(secretsFoundIn(audit.texts, f.createdSecrets)).toEqual([]);
      const creations = audit.entries.filter((e) => e.action === 'api_key.create');
      expect(creations).toHaveLength(4);
      for (const entry of creations) expect(Object.keys(entry.after as object).sort()).toEqual(['contributor_id', 'key_prefix', 'name', 'role', 'signed']);
      const stored = await databaseTexts(f);
      expect(secretsFoundIn(stored.texts, f.createdSecrets)).toEqual([]);
      expect(stored.hashesMatch).toBe(true);
    });

    if (options.checkLogs) {
      it('never writes a key to the logs, even at LOG_LEVEL=trace (the real process, src/main.ts)', async () => {
        const { output, secrets } = await logsWhileUsingKeys();
        // The capture works: request lines of the calls made are there.
        expect(output).toContain('/v1/admin/api-keys');
        expect(output).toContain('/v1/users/u_log/balance');
        expect(secretsFoundIn([output], secrets)).toEqual([]);
      }, 90_000);
    }
  });
}
