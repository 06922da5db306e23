// npx tsc -p tsconfig.build.json && DATABASE_URL=... npx tsx scripts/explain-write.ts [--groups 1,64,1000] [--repeat 3]
// What each part of the usage write costs Postgres (docs/performance-analysis.md, "What each merge
// costs per event"). Runs the real UsageWriter (real planner, real parameters) on a seeded
// database (npm run seed:events) and, before each of its write statements, runs the same
// statement with the same parameters as EXPLAIN (ANALYZE, BUFFERS, VERBOSE) inside a transaction
// (or savepoint) that is rolled back, so the real write then goes ahead as usual. Prints per CTE /
// plan node: time (exclusive of children) and shared buffers, per event. track_io_timing is set
// for these sessions only; nothing of the server's configuration changes.
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { UsageEventInput } from '../src/modules/usage/usage.schemas.js';

// The compiled app (npx tsc -p tsconfig.build.json first): Nest's injection needs the decorator
// metadata tsc emits and tsx does not.
const { createHttpApp } = (await import('../dist/src/http-app.js' as string)) as typeof import('../src/http-app.js');
const { UsageWriter } = (await import('../dist/src/modules/usage/usage-writer.js' as string)) as typeof import('../src/modules/usage/usage-writer.js');
const { normalizeEvent } = (await import('../dist/src/modules/usage/usage-event.js' as string)) as typeof import('../src/modules/usage/usage-event.js');

const { values } = parseArgs({ options: { groups: { type: 'string', default: '1,64,1000' }, repeat: { type: 'string', default: '3' } }, strict: true });
const GROUPS = values.groups.split(',').map(Number);
const REPEAT = Number(values.repeat);
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL: a database seeded by npm run seed:events');

/** The statements whose plans are taken: every write of the usage group commit, both paths. */
const WRITES = /^\s*(WITH|INSERT|UPDATE)\b/i;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Subplan Name'?: string;
  'Parent Relationship'?: string;
  'Actual Total Time': number;
  'Actual Loops': number;
  'Actual Rows': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Shared Dirtied Blocks': number;
  'Shared Written Blocks': number;
  'Local Hit Blocks'?: number;
  'I/O Read Time'?: number;
  'CTE Name'?: string;
  Plans?: PlanNode[];
}
interface Explained {
  label: string;
  statement: string;
  events: number;
  planningMs: number;
  executionMs: number;
  planningBuffers: number;
  triggersMs: number;
  /** The planner's total cost, and JIT's compile time when the cost passed jit_above_cost. */
  totalCost: number;
  jitMs: number;
  rows: Array<{ node: string; depth: number; section: string; selfMs: number; hit: number; read: number; dirtied: number }>;
}

let capturing: { label: string; events: number } | null = null;
const explained: Explained[] = [];
const inTransaction = new WeakSet<pg.Client>();

/**
 * Exclusive time and buffers per node, and each node's CTE. A CTE runs when a CTE Scan first pulls
 * from it, so that scan's figures include the CTE's own (shown on the CTE's subplan): the first
 * scans of a CTE are charged only what exceeds the CTE's figures. CTE subplans hang under the top
 * node without being part of its time.
 */
function flatten(top: PlanNode): Explained['rows'] {
  const cteTotals = new Map<string, { ms: number; hit: number; dirtied: number; read: number }>();
  const collect = (node: PlanNode) => {
    const name = node['Subplan Name'];
    if (name?.startsWith('CTE ')) cteTotals.set(name.slice(4), { ms: node['Actual Total Time'] * node['Actual Loops'], hit: node['Shared Hit Blocks'], read: node['Shared Read Blocks'], dirtied: node['Shared Dirtied Blocks'] });
    for (const child of node.Plans ?? []) collect(child);
  };
  collect(top);
  const out: Explained['rows'] = [];
  const visit = (node: PlanNode, depth: number, section: string) => {
    const isCte = node['Subplan Name']?.startsWith('CTE ') ?? false;
    const here = isCte ? node['Subplan Name']!.slice(4) : section;
    const inline = (node.Plans ?? []).filter((c) => !c['Subplan Name']?.startsWith('CTE '));
    let ms = node['Actual Total Time'] * node['Actual Loops'] - inline.reduce((s, c) => s + c['Actual Total Time'] * c['Actual Loops'], 0);
    let hit = node['Shared Hit Blocks'] - inline.reduce((s, c) => s + c['Shared Hit Blocks'], 0);
    let read = node['Shared Read Blocks'] - inline.reduce((s, c) => s + c['Shared Read Blocks'], 0);
    let dirtied = node['Shared Dirtied Blocks'] - inline.reduce((s, c) => s + c['Shared Dirtied Blocks'], 0);
    const scanned = node['CTE Name'];
    if (node['Node Type'] === 'CTE Scan' && scanned && cteTotals.has(scanned)) {
      const left = cteTotals.get(scanned)!;
      const take = (mine: number, budget: number) => Math.min(Math.max(mine, 0), budget);
      const t = { ms: take(ms, left.ms), hit: take(hit, left.hit), read: take(read, left.read), dirtied: take(dirtied, left.dirtied) };
      ms -= t.ms; hit -= t.hit; read -= t.read; dirtied -= t.dirtied;
      cteTotals.set(scanned, { ms: left.ms - t.ms, hit: left.hit - t.hit, read: left.read - t.read, dirtied: left.dirtied - t.dirtied });
    }
    const what = [node['Subplan Name'] ?? '', node['Node Type'], scanned ? `(${scanned})` : '', node['Relation Name'] ? `on ${node['Relation Name']}` : '', node['Index Name'] ? `using ${node['Index Name']}` : '']
      .filter(Boolean)
      .join(' ');
    out.push({ node: what, depth, section: here, selfMs: ms, hit, read, dirtied });
    for (const child of node.Plans ?? []) visit(child, depth + 1, here);
  };
  visit(top, 0, 'final SELECT');
  return out;
}

const originalQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
async function explainFirst(client: pg.Client, text: string, params: unknown[]): Promise<void> {
  const label = capturing!;
  const statement = (/INSERT INTO (\w+)/i.exec(text)?.[1] ?? text.slice(0, 30)).trim();
  const wrap = inTransaction.has(client) ? ['SAVEPOINT explain_write', 'ROLLBACK TO SAVEPOINT explain_write'] : ['BEGIN', 'ROLLBACK'];
  await originalQuery.call(client, wrap[0]);
  try {
    await originalQuery.call(client, 'SET LOCAL track_io_timing = on');
    const result = (await originalQuery.call(client, { text: `EXPLAIN (ANALYZE, BUFFERS, VERBOSE, FORMAT JSON) ${text}`, values: params })) as pg.QueryResult<{ 'QUERY PLAN': unknown }>;
    const top = (result.rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode & { 'Total Cost': number }; 'Planning Time': number; 'Execution Time': number; Planning?: { 'Shared Hit Blocks': number }; Triggers?: Array<{ Time: number }>; JIT?: { Timing?: { Total?: number } } }>)[0]!;
    const rows = flatten(top.Plan);
    explained.push({
      label: label.label,
      events: label.events,
      statement,
      planningMs: top['Planning Time'],
      executionMs: top['Execution Time'],
      planningBuffers: top.Planning?.['Shared Hit Blocks'] ?? 0,
      triggersMs: (top.Triggers ?? []).reduce((s, t) => s + t.Time, 0),
      totalCost: top.Plan['Total Cost'],
      jitMs: top.JIT?.Timing?.Total ?? 0,
      rows,
    });
  } finally {
    await originalQuery.call(client, wrap[1]);
  }
}

// Every pg client of the app (its pool and Prisma's adapter) goes through this prototype.
pg.Client.prototype.query = function patched(this: pg.Client, ...args: unknown[]): unknown {
  const first = args[0] as string | { text: string; values?: unknown[] };
  const text = typeof first === 'string' ? first : first?.text;
  if (typeof text === 'string') {
    if (/^\s*BEGIN\b/i.test(text)) inTransaction.add(this);
    else if (/^\s*(COMMIT|ROLLBACK)\s*$/i.test(text)) inTransaction.delete(this);
  }
  if (capturing && typeof text === 'string' && WRITES.test(text)) {
    const params = (typeof first === 'string' && Array.isArray(args[1]) ? args[1] : typeof first === 'object' ? first.values : undefined) ?? [];
    const after = explainFirst(this, text, params).then(() => originalQuery.apply(this, args));
    // pg.Pool#query passes a callback: the callback gets the real result, the call returns nothing.
    if (typeof args[args.length - 1] === 'function') return void after;
    return after;
  }
  return originalQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

async function main() {
  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  const contributors = (await sql.query<{ id: string }>(`SELECT id FROM contributors WHERE id LIKE 'seed-c%' ORDER BY id LIMIT 200`)).rows.map((r) => r.id);
  const models = (await sql.query<{ model: string }>(`SELECT DISTINCT model FROM prices WHERE model LIKE 'seed/%' ORDER BY model`)).rows.map((r) => r.model);
  const users = (await sql.query<{ id: string }>(`SELECT DISTINCT owner_id AS id FROM accounts WHERE kind = 'user' AND owner_id LIKE 'seed-u%' ORDER BY 1 LIMIT 50`)).rows.map((r) => r.id);
  const events = (await sql.query<{ n: string }>(`SELECT count(*) AS n FROM usage_event_keys`)).rows[0]!.n;
  console.log(`database: ${events} events, ${contributors.length} contributors, ${models.length} models, ${users.length} users`);
  if (contributors.length === 0 || models.length === 0 || users.length === 0) throw new Error('seed the database first (npm run seed:events)');

  const app = await createHttpApp({ DATABASE_URL: databaseUrl!, ADMIN_API_KEY: 'explain-write-admin-key-0123456789', LOG_LEVEL: 'error', QUEUE_PREFIX: `explain-${randomBytes(4).toString('hex')}` });
  await app.init();
  const writer = app.get(UsageWriter);
  const run = randomBytes(4).toString('hex');
  let n = 0;
  const eventInput = (dimensions: boolean): UsageEventInput => {
    n += 1;
    const usage = { prompt_tokens: 800 + (n % 900), completion_tokens: 200 + (n % 300), cached_tokens: n % 3 === 0 ? 128 : 0, reasoning_tokens: 0, ...(dimensions ? { cache_write_5m_tokens: 64, prompt_audio_tokens: 10 } : {}) };
    return {
      event_id: `explain-${run}-${n}`,
      user_id: users[n % users.length]!,
      contributor_id: contributors[(n * 7) % contributors.length]!,
      model: models[n % models.length]!,
      usage,
      metadata: { request_id: `req-${n}` },
    } as UsageEventInput;
  };
  const cases = GROUPS.flatMap((size) => [{ size, dimensions: false }, ...(size <= 64 ? [{ size, dimensions: true }] : [])]);
  for (let r = 0; r < REPEAT; r += 1) {
    for (const c of cases) {
      const batch = Array.from({ length: c.size }, () => normalizeEvent(eventInput(c.dimensions), { now: new Date(), source: c.size === 1 ? 'api' : 'batch' }));
      capturing = { label: `${c.size}${c.dimensions ? ' +dims' : ''}`, events: c.size };
      const outcomes = await writer.submit(batch);
      capturing = null;
      const created = outcomes.filter((o) => o.kind === 'created').length;
      if (created !== c.size) throw new Error(`group of ${c.size}: ${created} created`);
    }
  }
  await app.close();
  await sql.end();
  report();
}

function report(): void {
  // Buffers are exact and repeat; times on a loaded machine are not: each CTE's time is the
  // lowest over the repeats (a preempted run only ever adds), buffers those of the last repeat.
  const byCase = new Map<string, Explained[]>();
  for (const e of explained) byCase.set(`${e.label}|${e.statement}`, [...(byCase.get(`${e.label}|${e.statement}`) ?? []), e]);
  for (const runs of byCase.values()) {
    const last = runs[runs.length - 1]!;
    const us = (ms: number) => ((ms * 1000) / last.events).toFixed(1);
    const min = (xs: number[]) => Math.min(...xs);
    console.log(`\n## group of ${last.label}, statement writing ${last.statement}: execution ${us(min(runs.map((x) => x.executionMs)))} us/event (lowest of ${runs.length}), planning ${us(min(runs.map((x) => x.planningMs)))} us/event, planner cost ${last.totalCost.toFixed(0)}, JIT ${runs.map((x) => x.jitMs.toFixed(1)).join(' / ')} ms`);
    const sectionsOf = (e: Explained) => {
      const sections = new Map<string, { ms: number; hit: number; read: number; dirtied: number }>();
      for (const row of e.rows) {
        const s = sections.get(row.section) ?? { ms: 0, hit: 0, read: 0, dirtied: 0 };
        sections.set(row.section, { ms: s.ms + row.selfMs, hit: s.hit + row.hit, read: s.read + row.read, dirtied: s.dirtied + row.dirtied });
      }
      return sections;
    };
    const all = runs.map(sectionsOf);
    const perEvent = (b: number) => (b / last.events).toFixed(2);
    console.log('| CTE | us/event (lowest) | shared buffers hit per event | read | dirtied |');
    for (const [name, s] of all[all.length - 1]!) {
      console.log(`| ${name} | ${us(min(all.map((m) => m.get(name)?.ms ?? Infinity)))} | ${perEvent(s.hit)} | ${s.read} | ${s.dirtied} |`);
    }
    if (process.env.EXPLAIN_NODES) {
      console.log('| node (last repeat) | self ms | us/event | hit | read | dirtied |');
      for (const row of last.rows) console.log(`| ${'  '.repeat(row.depth)}${row.node} | ${row.selfMs.toFixed(3)} | ${us(row.selfMs)} | ${row.hit} | ${row.read} | ${row.dirtied} |`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
