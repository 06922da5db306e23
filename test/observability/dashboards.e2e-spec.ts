// The Grafana dashboard and the Prometheus rules in docs/observability/ name only metrics that the
// API's /metrics exposes (read from a real app on its own database), and both files are in the
// formats an operator imports as they are: classic dashboard JSON, a plain Prometheus rule file
// (checked by promtool when it is installed, by its schema always).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { LedgerCheckService } from '../../src/modules/ledger/ledger-check.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const dir = (name: string) => fileURLToPath(new URL(`../../docs/observability/${name}`, import.meta.url));
const ALERTS = dir('alerts.yml');
const dashboard = JSON.parse(readFileSync(dir('grafana-dashboard.json'), 'utf8')) as {
  schemaVersion: number;
  panels: Array<{ title: string; type: string; targets: Array<{ expr: string }> }>;
  elements?: unknown;
};
const rules = parse(readFileSync(ALERTS, 'utf8')) as { groups: Array<{ name: string; rules: Array<Record<string, unknown>> }> };

/** Metric selectors are written `name{...}` in both files (also with no matcher: `name{}`). */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!);
}

/** Series names /metrics exposes: each TYPE line, with a histogram's _bucket, _sum and _count. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(match[1]!);
    if (match[2] === 'histogram' || match[2] === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(match[1]! + suffix);
  }
  return names;
}

let t: TestApp;
let exposed: Set<string>;
let scraped: string;

beforeAll(async () => {
  t = await startTestApp('observability_metrics');
  // The gauge reads from a checkpoint only (NaN without one: test/operations/ledger-check-gauge.e2e-spec.ts).
  await t.app.get(LedgerCheckService).writeCheckpoint();
  const res = await t.http.get('/metrics').expect(200);
  scraped = res.text;
  exposed = exposedNames(res.text);
});
afterAll(async () => {
  await t?.close();
});

describe('docs/observability', () => {
  const panelExprs = dashboard.panels.flatMap((p) => p.targets.map((target) => ({ where: `panel "${p.title}"`, expr: target.expr })));
  const ruleExprs = rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${String(r.alert)}`, expr: String(r.expr) })));

  it('is a classic (not v2) dashboard whose every panel queries Prometheus', () => {
    expect(typeof dashboard.schemaVersion).toBe('number');
    expect(dashboard.elements).toBeUndefined();
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(12);
    for (const p of dashboard.panels) expect(p.targets.length).toBeGreaterThan(0);
  });

  it('names only metrics that /metrics exposes (dashboard and alerts)', () => {
    const missing: string[] = [];
    for (const { where, expr } of [...panelExprs, ...ruleExprs]) {
      const metrics = metricsOf(expr);
      if (metrics.length === 0) missing.push(`${where}: no metric selector in ${expr}`);
      for (const m of metrics) if (!exposed.has(m)) missing.push(`${where}: ${m}`);
    }
    expect(missing).toEqual([]);
  });

  it('reports the state gauges with values read at scrape time', () => {
    expect(scraped).toMatch(/^ledger_check_ok 1$/m);
    expect(scraped).toMatch(/^queue_jobs\{queue="usage-events-dead",state="waiting"\} 0$/m);
    expect(scraped).toMatch(/^settlement_submitting_oldest_age_seconds 0$/m);
    expect(scraped).toMatch(/^database_replica_lag_seconds 0$/m);
  });

  it('has the alerts an operator needs, in a valid plain Prometheus rule file', () => {
    const names = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));
    for (const alert of ['LedgerCheckFailing', 'SettlementStuckSubmitting', 'PayoutsFailing', 'DeadLettersGrowing', 'WebhookEndpointsDisabled', 'ReplicaLagHigh', 'HotWalletLowUsdc', 'HotWalletLowGas', 'UnpricedEventsGrowing']) {
      expect(names).toContain(alert);
    }
    // The schema of a rule file (no CRD wrapper): groups of named rules with expr, labels, annotations.
    expect(Object.keys(rules)).toEqual(['groups']);
    for (const group of rules.groups) {
      expect(typeof group.name).toBe('string');
      for (const rule of group.rules) {
        expect(Object.keys(rule).every((k) => ['alert', 'expr', 'for', 'labels', 'annotations'].includes(k))).toBe(true);
        expect(typeof rule.alert).toBe('string');
        expect(typeof rule.expr).toBe('string');
        if (rule.for !== undefined) expect(String(rule.for)).toMatch(/^\d+[smh]$/);
        expect((rule.labels as Record<string, string>).severity).toMatch(/^(critical|warning)$/);
        expect(typeof (rule.annotations as Record<string, string>).summary).toBe('string');
      }
    }
    const promtool = spawnSync('promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' });
    // promtool comes with Debian's prometheus package; without it the schema check above stands.
    if (promtool.error === undefined) expect(`${promtool.status} ${promtool.stdout}${promtool.stderr}`).toMatch(/^0 [\s\S]*SUCCESS: 9 rules found/);
  });
});
