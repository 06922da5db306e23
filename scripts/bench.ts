// npm run bench [-- --quick] [--earnings-events N] [--duration S] [--rounds N] [--keep] [--no-build] [--render-from RUN/figures.json] [--only batch|single|two-api|tracing|litellm|ledger-fetch|ledger-check|ledger-check-hot|stream-audit|stream-formats|spend [--ledger-check-events N] [--hot-day-events N]]
//   [--history [--history-events N] [--history-steps K]]: only the history phase (scripts/lib/bench-history.ts, docs/history-bench.md)
//   BENCH_CPU_PROF_DIR=DIR in the environment: every API process writes a V8 CPU profile there (node --cpu-prof).
// Every figure of docs/performance.md, measured side by side in ONE run on the same Postgres:
// (a) raw write limits (COPY, multi-row insert, one insert per transaction), (b) batch ingestion
// through the HTTP API at 10/100/1000 events per request, (c) single-event ingestion with 64
// clients, (d) earnings query latency over a seeded N-event database, (e) settlement gas per
// recipient (BatchPayout vs Disperse vs one transfer per tx), (f) the API's resident memory,
// (g) batch 1000 and single events on two API processes (same database, Redis and queue prefix)
// behind a round-robin client, next to the one-process runs of the same rounds, (i) batch 1000 and
// single events with tracing off and on (a traced API exporting to a local OTLP sink), back to back, (j) the stream route
// with the usage audit off vs on (CPU per event) and the worker's audit of 10,000 streams vs their ingestion.
// Writes docs/performance.md and docs/performance-ingestion.png.
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BATCH_CONNECTIONS, SINGLE_CONNECTIONS, runBatchLoad, runEarningsLoad, runSingleLoad, seedDimensionPrices, seedForIngestion, createSignedGatewayKey, countStoredEvents, type GatewaySigner, type LoadResult, type LoadTarget, type PhaseCpu, type StackApi } from './lib/bench-http.js';
import { compareTwoApi, medianByRate, renderTwoApiTable, roundRobinTargets, type ApiPhaseRun, type MultiApiCpu, type TwoApiComparison } from './lib/bench-two-api.js';
import { measureRawLimits } from './lib/bench-raw.js';
import { startOtlpSink } from './lib/otlp-sink.js';
import { compareTracing, renderTracingTable, tracingLine, tracingRunOrder, type TracingComparison, type TracingWorkload } from './lib/bench-tracing.js';
import { LITELLM_BATCH_SIZE, LITELLM_TARGET_RATIO, litellmPayloadBytes, runLitellmLoad, runSameEventsBatchLoad, seedLitellmDeployments } from './lib/bench-litellm.js';
import { renderChartSvg, renderMarkdown, writeChartPng, TARGET_STREAM_AUDIT_CPU_RATIO_MAX, type BatchFigure, type BenchFigures, type SingleFigure, type EarningsFigure, type MachineInfo, type StreamAuditFigure, type StreamAuditRun } from './lib/bench-report.js';
import { auditQueue, auditSampleCount, runStreamLoad, streamBodies, waitingAuditStreams } from './lib/stream-audit-bench.js';
import { formatBodies } from './lib/stream-formats-bench.js';
import { createRunDir, randomSuffix, REPO_ROOT, startApi, startBaseStack, startWorker } from './lib/bench-stack.js';
import type { Devchain } from './lib/devchain.js';
import { measureEarningsQuery } from './lib/earnings-bench.js';
import { measurePayoutGas } from './lib/gas-measure.js';
import { SEED_CHUNK_EVENTS_DEFAULT, seedEvents } from './lib/seed-events.js';
import { measureHistory, renderHistoryMarkdown } from './lib/bench-history.js';
import { cpuPerEventLine, readCommittedCpu } from './lib/bench-committed.js';
import { measureLedgerCheck, type LedgerCheckFigure } from './lib/ledger-check-bench.js';
import { measureSpendIngestion, renderSpendTable } from './lib/spend-ingest-bench.js';
import { HOT_DAY_EVENTS_DEFAULT, measureHotDay } from './lib/ledger-check-hot-day.js';
import { floorMultiples, startFloorServer, type FloorServer } from './lib/bench-floor.js';
import { CleanupStack, cpuMeter, findPidsByCmdline, readMachineBusySeconds, readRssBytes, sampleRss, sleep, type ManagedProcess } from './lib/processes.js';
import { LEDGER_FETCH_ROUNDS_DEFAULT, measureLedgerFetch } from './lib/ledger-fetch-bench.js';
import { DAY_MS, nextUtcMidnight } from './lib/utc-day.js';
import { describeLatency, latencyBreakdown, scrapeMetrics } from './lib/bench-latency.js';

interface BenchPlan {
  quick: boolean;
  durationS: number;
  warmupS: number;
  copyRows: number;
  unnestRows: number;
  singleInsertSeconds: number;
  earningsEvents: number;
  earningsDurationS: number;
  /** Ingestion rounds: every phase runs this many times, interleaved; the median run is reported. */
  ingestionRounds: number;
  earningsIterations: number;
  gasRecipients: number;
}

const FULL: Omit<BenchPlan, 'quick' | 'earningsEvents'> = {
  durationS: 15, warmupS: 5, copyRows: 500_000, unnestRows: 200_000, singleInsertSeconds: 5, earningsDurationS: 10, earningsIterations: 1000, gasRecipients: 100, ingestionRounds: 3,
};
const QUICK: Omit<BenchPlan, 'quick' | 'earningsEvents'> = {
  durationS: 3, warmupS: 1, copyRows: 50_000, unnestRows: 20_000, singleInsertSeconds: 2, earningsDurationS: 3, earningsIterations: 100, gasRecipients: 20, ingestionRounds: 1,
};
const EARNINGS_EVENTS_FULL = 10_000_000;
const EARNINGS_EVENTS_QUICK = 200_000;
const BATCH_SIZES = [10, 100, 1000];
const EARNINGS_CONNECTIONS = 8;
// One contributor owns every seeded event: its earnings query covers the whole database.
const EARNINGS_CONTRIBUTORS = 1;
const EARNINGS_MODELS = 8;
const EARNINGS_DAYS = 90;
const EARNINGS_GROUP_BY = 'day';
const RSS_SAMPLE_MS = 250;
const SETTLE_POLL_MS = 500;
const SETTLE_TIMEOUT_MS = 60_000;
const DOCS_DIR = join(REPO_ROOT, 'docs');
const CHART_FILE = 'performance-ingestion.png';
const FIGURES_FILE = 'figures.json';

/** --only ledger-check: events seeded over the last LEDGER_CHECK_DAYS days (issue 25: 0.44M made the check take 3.1 s). */
const LEDGER_CHECK_EVENTS = 440_000;
const LEDGER_CHECK_DAYS = 30;
const LEDGER_CHECK_CONTRIBUTORS = 50;
/** New events written today before each "after new events" check. */
const LEDGER_CHECK_NEW_EVENTS = 1000;

/**
 * (i) Stream route with the usage audit off vs on: the audit-on phases together store this many
 * streams (issue 27: "the audit of 10,000 streams takes less time than their ingestion"), the
 * audit-off phases as many; rounds alternate off/on so a slow spell of the machine hits both.
 */
const STREAM_AUDIT_STREAMS = 10_000;
const STREAM_AUDIT_STREAMS_QUICK = 1_000;
const STREAM_AUDIT_ROUNDS = 2;
const STREAM_AUDIT_CONNECTIONS = 32;
const STREAM_AUDIT_WARMUP_STREAMS = 1_000;
/** --only stream-formats (issue #33): streams per format per round (quick: fewer), its warm-up, the target. */
const STREAM_FORMATS_STREAMS = 3_000;
const STREAM_FORMATS_STREAMS_QUICK = 400;
const STREAM_FORMATS_WARMUP_STREAMS = 500;
const TARGET_STREAM_FORMAT_CPU_RATIO_MAX = 1.2;
/** The audit-off phases store this many times fewer streams (CPU per event needs no 10,000; the run stays near a minute). */
const STREAM_AUDIT_OFF_SHARE = 2;
/** The producer sends what gathered every 50 ms: this long after a load, every sample is queued. */
const AUDIT_FLUSH_WAIT_MS = 500;
const AUDIT_POLL_MS = 100;
const AUDIT_TIMEOUT_MS = 300_000;

/** The batch size of the two-API phase (the target row of the one-process batches). */
const TWO_API_BATCH_SIZE = 1000;
/** The local Redis as its process title shows it (the shared limits and queues of every API). */
const REDIS_PROCESS_TITLE = 'redis-server 127.0.0.1:6379';

/** Read before anything is measured (a full run rewrites the file at its end). */
const COMMITTED_CPU = readCommittedCpu(join(DOCS_DIR, 'performance.md'));
const perEventUs = (cores: number, eventsPerSecond: number) => (eventsPerSecond > 0 ? (cores / eventsPerSecond) * 1e6 : Number.NaN);
const sayCpuPerEvent = (phase: string, cpu: MultiApiCpu, eventsPerSecond: number) =>
  say(`${phase}: CPU per event ${cpuPerEventLine(COMMITTED_CPU, phase, perEventUs(cpu.apiCores, eventsPerSecond), perEventUs(cpu.postgresCores, eventsPerSecond))}, redis ${perEventUs(cpu.redisCores, eventsPerSecond).toFixed(0)} us`);

const seedContributorId = (i: number) => `seed-c${String(i).padStart(6, '0')}`;
const say = (line: string) => console.log(`[bench] ${line}`);
const sayCpu = (phase: string, cpu: MultiApiCpu) =>
  say(`${phase} CPU (cores): api ${cpu.apiCoresEach.length > 1 ? `${cpu.apiCoresEach.map((c) => c.toFixed(2)).join(' + ')} = ` : ''}${cpu.apiCores.toFixed(2)}, redis ${cpu.redisCores.toFixed(2)}, postgres ${cpu.postgresCores.toFixed(2)}, load generator ${cpu.loadGeneratorCores.toFixed(2)}, other processes ${cpu.otherCores.toFixed(2)}`);

function parsePlan(): BenchPlan & { keep: boolean; noBuild: boolean; renderFrom?: string; onlyBatch: boolean; onlySingle: boolean; onlyTwoApi: boolean; onlyTracing: boolean; onlyLitellm: boolean; onlyLedgerFetch: boolean; onlyLedgerCheck: boolean; onlyStreamAudit: boolean; onlyStreamFormats: boolean; onlyLedgerCheckHot: boolean; onlySpend: boolean; onlyFloor: boolean; floorWithSingle: boolean; ledgerCheckEvents: number; hotDayEvents: number; history: { events: number; steps: number } | null } {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'earnings-events': { type: 'string' },
      duration: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'render-from': { type: 'string' },
      rounds: { type: 'string' },
      history: { type: 'boolean', default: false },
      'history-events': { type: 'string', default: '50000000' },
      'history-steps': { type: 'string', default: '4' },
      // A short targeted run, printed, docs untouched: "batch" (batch 1000, CPU per event; with
      // BENCH_AB_BUILD_ROOT also on the API of that build, alternating ABBA), "single" (plain and price-dimension single
      // events), "two-api" (batch 1000 and single events on one API and on two, alternating),
      // "litellm" (LiteLLM batches of 500 payloads vs /v1/usage-events/batch, same events, alternating),
      // "ledger-check" (440,000 seeded events, the checkpointed ledger check timed), "tracing"
      // (batch 1000 and single events, tracing off then on, --rounds rounds of --duration s),
      // "stream-audit" (the stream route with the usage audit off vs on, then the worker's audit timed),
      // "stream-formats" (the same completions streamed in each wire format, API CPU per event vs chat),
      // "spend" (single events and batches of 100 of users with 10 budgets vs users without, ABBA).
      only: { type: 'string' },
      'ledger-check-events': { type: 'string', default: String(LEDGER_CHECK_EVENTS) },
      // "ledger-check-hot": one hot day of this many events today (issue 35), the check timed.
      'hot-day-events': { type: 'string', default: String(HOT_DAY_EVENTS_DEFAULT) },
    },
    strict: true,
  });
  const quick = values.quick ?? false;
  const base = quick ? QUICK : FULL;
  const earningsEvents = values['earnings-events'] === undefined ? (quick ? EARNINGS_EVENTS_QUICK : EARNINGS_EVENTS_FULL) : Number(values['earnings-events'].replace(/_/g, ''));
  if (!Number.isSafeInteger(earningsEvents) || earningsEvents < 0) throw new Error(`--earnings-events must be a non-negative integer`);
  const durationS = values.duration === undefined ? base.durationS : Number(values.duration);
  if (!Number.isFinite(durationS) || durationS <= 0) throw new Error('--duration must be a positive number of seconds');
  const ingestionRounds = values.rounds === undefined ? base.ingestionRounds : Number(values.rounds);
  if (!Number.isSafeInteger(ingestionRounds) || ingestionRounds < 1) throw new Error('--rounds must be a positive integer');
  const historyEvents = Number(values['history-events']!.replace(/_/g, ''));
  const historySteps = Number(values['history-steps']);
  if (!Number.isSafeInteger(historyEvents) || historyEvents < 1 || !Number.isSafeInteger(historySteps) || historySteps < 1) throw new Error('--history-events and --history-steps must be positive integers');
  const history = values.history ? { events: historyEvents, steps: historySteps } : null;
  // One phase, or "floor,single" (the floor server and the service's single events, alternating).
  const only = values.only?.split(',') ?? [];
  const phases = ['batch', 'single', 'two-api', 'tracing', 'litellm', 'ledger-fetch', 'ledger-check', 'ledger-check-hot', 'stream-audit', 'stream-formats', 'floor', 'spend'];
  const floorPair = only.length === 2 && only.includes('floor') && only.includes('single');
  if (only.some((o) => !phases.includes(o)) || (only.length > 1 && !floorPair)) throw new Error(`--only takes one of ${phases.map((p) => `"${p}"`).join(', ')}, or "floor,single"`);
  const hotDayEvents = Number(values['hot-day-events'].replace(/_/g, ''));
  if (!Number.isSafeInteger(hotDayEvents) || hotDayEvents < 1) throw new Error('--hot-day-events must be a positive integer');
  const ledgerCheckEvents = Number(values['ledger-check-events']);
  if (!Number.isSafeInteger(ledgerCheckEvents) || ledgerCheckEvents < 1) throw new Error('--ledger-check-events must be a positive integer');
  return { ...base, quick, durationS, ingestionRounds, earningsEvents, keep: values.keep ?? false, noBuild: values['no-build'] ?? false, renderFrom: values['render-from'], onlyBatch: values.only === 'batch', onlySingle: values.only === 'single', onlyTwoApi: values.only === 'two-api', onlyTracing: values.only === 'tracing', onlyLitellm: values.only === 'litellm', onlyLedgerFetch: values.only === 'ledger-fetch', onlyLedgerCheck: values.only === 'ledger-check', onlyStreamAudit: values.only === 'stream-audit', onlyStreamFormats: values.only === 'stream-formats', onlyLedgerCheckHot: values.only === 'ledger-check-hot', onlySpend: values.only === 'spend', onlyFloor: only.includes('floor'), floorWithSingle: floorPair, ledgerCheckEvents, hotDayEvents, history };
}

async function machineInfo(databaseUrl: string): Promise<MachineInfo> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  await client.end();
  return {
    cores: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    postgres: `PostgreSQL ${version}`,
    loadAvgStart: loadavg(),
    loadAvgEnd: [],
  };
}

interface Stack extends StackApi {
  dbName: string;
  api: ManagedProcess;
  devchain: Devchain;
  runDir: string;
  /** The API's environment: a second API gets the same one (database, Redis, QUEUE_PREFIX, keys). */
  apiEnv: Record<string, string>;
  /** The second API process of the two-API phase, once started. */
  api2?: { api: ManagedProcess; baseUrl: string };
}

async function startStack(runId: string, runDir: string, cleanup: CleanupStack, options: { keep: boolean; noBuild: boolean }): Promise<Stack> {
  const { dbName, databaseUrl, queues, devchain, adminKey, env } = await startBaseStack({ name: 'bench', runId, runDir, cleanup, keep: options.keep, noBuild: options.noBuild, log: say });
  const apiEnv: Record<string, string> = {
    ...env,
    LOG_LEVEL: 'warn',
    // The limiter still runs on every request; only its ceiling is lifted above any bench rate.
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_BURST: '1000000000',
  };
  if (process.env.BENCH_TRACING === '1') {
    // Tracing on (default sampler, http/protobuf) to a local sink: docs/observability.md.
    const sink = await startOtlpSink();
    cleanup.add('stop OTLP sink', async () => {
      say(`OTLP sink received ${sink.exports()} exports`);
      await sink.close();
    });
    Object.assign(apiEnv, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
    say(`tracing on: API exports to ${sink.url}`);
  }
  const { api, baseUrl } = await startApi({ runDir, env: apiEnv });
  cleanup.add('stop api', () => api.stop());
  say(`database ${dbName}, queue prefix ${queues.prefix}, anvil ${devchain.rpcUrl}, api ${baseUrl} (pid ${api.pid}); logs in ${runDir}`);
  return { dbName, databaseUrl, baseUrl, adminKey, api, devchain, runDir, apiEnv };
}

/**
 * A second API process on another port with the first one's environment (same database, Redis and
 * QUEUE_PREFIX, so the shared limits and replay ids are common), warmed up like the first.
 */
async function startSecondApi(stack: Stack, cleanup: CleanupStack, key: string, plan: BenchPlan): Promise<void> {
  const second = await startApi({ runDir: stack.runDir, env: stack.apiEnv, name: 'api2' });
  cleanup.add('stop api2', () => second.api.stop());
  stack.api2 = second;
  say(`second api ${second.baseUrl} (pid ${second.api.pid}), same database and queue prefix; warm-up: ${plan.warmupS} s of batch 100 and ${plan.warmupS} s of single events on it`);
  await runBatchLoad({ baseUrl: second.baseUrl, key, size: 100, connections: BATCH_CONNECTIONS, durationS: plan.warmupS, prefix: 'warm2' });
  await runSingleLoad({ baseUrl: second.baseUrl, key, connections: SINGLE_CONNECTIONS, durationS: plan.warmupS, prefix: 'warm2s' });
}

/** The API processes a phase runs on and the load target: one API, or both behind the round-robin client. */
function phaseTarget(stack: Stack, apis: 1 | 2, connections: number): { processes: ManagedProcess[]; target: LoadTarget } {
  if (apis === 1) return { processes: [stack.api], target: stack.baseUrl };
  if (!stack.api2) throw new Error('the second API is not started');
  return { processes: [stack.api, stack.api2.api], target: roundRobinTargets([stack.baseUrl, stack.api2.baseUrl], connections) };
}

/**
 * Where the CPU went during a phase (the API processes, our Postgres backends, this process,
 * everyone else, of which the local Redis), and the first API's peak RSS.
 */
function startCpuMeters(stack: Stack, apis: ManagedProcess[] = [stack.api]): { stop(): MultiApiCpu } {
  const apiEach = apis.map((p) => cpuMeter(() => [p.pid]));
  const redis = cpuMeter(() => findPidsByCmdline(REDIS_PROCESS_TITLE));
  const postgres = cpuMeter(() => findPidsByCmdline(`postgres ${stack.dbName} `));
  const selfStart = process.cpuUsage();
  const machineStart = readMachineBusySeconds();
  const rss = sampleRss(stack.api.pid, RSS_SAMPLE_MS);
  const startedMs = performance.now();
  return {
    stop: () => {
      const apiRssPeakBytes = rss.stop().peakBytes;
      const seconds = (performance.now() - startedMs) / 1000;
      const apiEachS = apiEach.map((m) => m.stop());
      const apiS = apiEachS.reduce((a, b) => a + b, 0);
      const redisS = redis.stop();
      const postgresS = postgres.stop();
      const self = process.cpuUsage(selfStart);
      const loadGeneratorS = (self.user + self.system) / 1e6;
      const machineS = readMachineBusySeconds() - machineStart;
      return {
        apiCores: apiS / seconds,
        postgresCores: postgresS / seconds,
        loadGeneratorCores: loadGeneratorS / seconds,
        otherCores: Math.max(0, machineS - apiS - postgresS - loadGeneratorS) / seconds,
        apiRssPeakBytes,
        apiCoresEach: apiEachS.map((s) => s / seconds),
        redisCores: redisS / seconds,
      };
    },
  };
}

/**
 * Every ingestion phase (each batch size, then single events) `ingestionRounds` times, round after
 * round, so a slow spell of this shared machine hits every phase alike; each phase reports its
 * median run (by events/s) and keeps every run's rate.
 */
async function measureIngestion(stack: Stack, key: string, signed: { key: string } & GatewaySigner, plan: BenchPlan, floor: FloorServer): Promise<{ batch: BatchFigure[]; floor: SingleFigure; single: SingleFigure; signedSingle: SingleFigure; dimensionsSingle: SingleFigure; twoApi: TwoApiComparison[] }> {
  const batchRuns = new Map<number, BatchFigure[]>(BATCH_SIZES.map((size) => [size, []]));
  const singleRuns: SingleFigure[] = [];
  const floorRuns: SingleFigure[] = [];
  const signedRuns: SingleFigure[] = [];
  const dimensionRuns: SingleFigure[] = [];
  const two = { batch: [] as ApiPhaseRun[], single: [] as ApiPhaseRun[] };
  for (let round = 1; round <= plan.ingestionRounds; round += 1) {
    say(`ingestion round ${round} of ${plan.ingestionRounds}`);
    for (const size of BATCH_SIZES) batchRuns.get(size)!.push(await measureBatch(stack, key, plan, size, round));
    // (g) in the same round: the same loads on two API processes behind the round-robin client.
    two.batch.push(asRun(2, await measureBatch(stack, key, plan, TWO_API_BATCH_SIZE, round, 2)));
    // The floor right before the service's single events, same clients (docs/operations.md).
    floorRuns.push(await measureFloorPhase(stack, floor, plan, round));
    singleRuns.push(await measureSingle(stack, key, plan, round));
    two.single.push(asRun(2, await measureSingle(stack, key, plan, round, undefined, false, 2)));
    // Right after the unsigned run, on the same warm process: the difference is the signed path.
    signedRuns.push(await measureSingle(stack, signed.key, plan, round, signed));
    dimensionRuns.push(await measureSingle(stack, key, plan, round, undefined, true));
  }
  const twoApi = [
    compareTwoApi(`batch ${TWO_API_BATCH_SIZE}`, BATCH_CONNECTIONS, batchRuns.get(TWO_API_BATCH_SIZE)!.map((r) => asRun(1, r)), two.batch),
    compareTwoApi('single', SINGLE_CONNECTIONS, singleRuns.map((r) => asRun(1, r)), two.single),
  ];
  return { batch: BATCH_SIZES.map((size) => medianByRate(batchRuns.get(size)!)), floor: medianByRate(floorRuns), single: medianByRate(singleRuns), signedSingle: medianByRate(signedRuns), dimensionsSingle: medianByRate(dimensionRuns), twoApi };
}

function asRun(apis: 1 | 2, figure: { load: LoadResult; cpu: PhaseCpu }): ApiPhaseRun {
  return { apis, load: figure.load, cpu: figure.cpu as MultiApiCpu };
}

/** The targeted runs' start: the ingestion seed, then warm-up batches of 100 and single events on the first API. */
async function seedAndWarmUp(stack: Stack, plan: BenchPlan): Promise<string> {
  const key = await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  say(`warm-up: ${plan.warmupS} s of batch 100 and ${plan.warmupS} s of single events`);
  await runBatchLoad({ baseUrl: stack.baseUrl, key, size: 100, connections: BATCH_CONNECTIONS, durationS: plan.warmupS, prefix: 'warm' });
  await runSingleLoad({ baseUrl: stack.baseUrl, key, connections: SINGLE_CONNECTIONS, durationS: plan.warmupS, prefix: 'warms' });
  return key;
}

/**
 * --only two-api: batch 1000 and single events on one API, then on two behind the round-robin
 * client, alternating round after round; the comparison is printed and kept in the run directory.
 */
async function measureTwoApiOnly(stack: Stack, cleanup: CleanupStack, plan: BenchPlan): Promise<void> {
  const loadAvgStart = loadavg();
  const key = await seedAndWarmUp(stack, plan);
  await startSecondApi(stack, cleanup, key, plan);
  const runs = { batch1: [] as ApiPhaseRun[], batch2: [] as ApiPhaseRun[], single1: [] as ApiPhaseRun[], single2: [] as ApiPhaseRun[] };
  for (let round = 1; round <= plan.ingestionRounds; round += 1) {
    say(`two-api round ${round} of ${plan.ingestionRounds}`);
    runs.batch1.push(asRun(1, await measureBatch(stack, key, plan, TWO_API_BATCH_SIZE, round)));
    runs.batch2.push(asRun(2, await measureBatch(stack, key, plan, TWO_API_BATCH_SIZE, round, 2)));
    runs.single1.push(asRun(1, await measureSingle(stack, key, plan, round)));
    runs.single2.push(asRun(2, await measureSingle(stack, key, plan, round, undefined, false, 2)));
  }
  const comparisons = [
    compareTwoApi(`batch ${TWO_API_BATCH_SIZE}`, BATCH_CONNECTIONS, runs.batch1, runs.batch2),
    compareTwoApi('single', SINGLE_CONNECTIONS, runs.single1, runs.single2),
  ];
  const loadAvgEnd = loadavg();
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  writeFileSync(join(stack.runDir, 'two-api-figures.json'), JSON.stringify({ durationS: plan.durationS, rounds: plan.ingestionRounds, loadAvgStart, loadAvgEnd, comparisons }, null, 2));
  console.log(`\n${renderTwoApiTable(comparisons)}\n`);
  say(`load average (1/5/15 min) at start ${load(loadAvgStart)}, at end ${load(loadAvgEnd)}; figures: ${join(stack.runDir, 'two-api-figures.json')}`);
}

/** --only batch: a second build to run beside dist/ (its root holds dist/ and package.json), for an A/B in one run. */
const AB_BUILD_ROOT_ENV = 'BENCH_AB_BUILD_ROOT';

interface AbSide {
  name: string;
  process: ManagedProcess;
  baseUrl: string;
}

/** The API of dist/ (A) and, with BENCH_AB_BUILD_ROOT, a second API of that build (B, same database and environment plus BENCH_AB_ENV). */
async function abSides(stack: Stack, cleanup: CleanupStack): Promise<AbSide[]> {
  const sides: AbSide[] = [{ name: 'A (dist/)', process: stack.api, baseUrl: stack.baseUrl }];
  const otherRoot = process.env[AB_BUILD_ROOT_ENV];
  if (!otherRoot) return sides;
  // BENCH_AB_ENV="NAME=value,...": settings of B's environment only (a setting's A/B on one build).
  const otherEnv = Object.fromEntries((process.env.BENCH_AB_ENV ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const other = await startApi({ runDir: stack.runDir, env: { ...stack.apiEnv, ...otherEnv }, name: 'api-b', buildRoot: otherRoot });
  cleanup.add('stop api-b', () => other.api.stop());
  sides.push({ name: `B (${otherRoot})`, process: other.api, baseUrl: other.baseUrl });
  return sides;
}

/** ABBA: A then B in odd rounds, B then A in even ones (one side: always it). */
const abOrder = (sides: readonly AbSide[], round: number): number[] => (sides.length === 1 ? [0] : round % 2 === 1 ? [0, 1] : [1, 0]);

/**
 * --only batch: batch 1000 (BATCH_CONNECTIONS clients), --rounds runs of --duration s, CPU per
 * event of the API and Postgres each run. With BENCH_AB_BUILD_ROOT, the same load on a second API
 * of that build (same database and environment) in ABBA order, and the B/A ratio of the medians.
 */
async function measureBatchOnly(stack: Stack, cleanup: CleanupStack, plan: BenchPlan): Promise<void> {
  const loadAvgStart = loadavg();
  const key = await seedAndWarmUp(stack, plan);
  const sides = await abSides(stack, cleanup);
  if (sides.length === 2) await runBatchLoad({ baseUrl: sides[1]!.baseUrl, key, size: 100, connections: BATCH_CONNECTIONS, durationS: plan.warmupS, prefix: 'warm-b' });
  const perEvent: number[][] = sides.map(() => []);
  const rates: number[][] = sides.map(() => []);
  for (let round = 1; round <= plan.ingestionRounds; round += 1) {
    for (const i of abOrder(sides, round)) {
      const side = sides[i]!;
      await settledEventCounts(stack.databaseUrl);
      const meters = startCpuMeters(stack, [side.process]);
      const rss = sampleRss(side.process.pid, RSS_SAMPLE_MS);
      const load = await runBatchLoad({ baseUrl: side.baseUrl, key, size: TWO_API_BATCH_SIZE, connections: BATCH_CONNECTIONS, durationS: plan.durationS, prefix: `ab${i}-r${round}` });
      const cpu = meters.stop();
      const rssPeakMiB = rss.stop().peakBytes / 2 ** 20;
      assertPhaseClean(stack, side.name, load, [side.process]);
      const api = perEventUs(cpu.apiCores, load.eventsPerSecond);
      const postgres = perEventUs(cpu.postgresCores, load.eventsPerSecond);
      perEvent[i]!.push(api + postgres);
      rates[i]!.push(load.eventsPerSecond);
      say(`round ${round} ${side.name}: batch ${TWO_API_BATCH_SIZE} ${Math.round(load.eventsPerSecond)} events/s, p99 ${load.latencyP99Ms} ms, CPU per event api ${api.toFixed(0)} us + postgres ${postgres.toFixed(0)} us, RSS peak ${rssPeakMiB.toFixed(0)} MiB, load ${loadavg()[0]!.toFixed(2)}`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  sides.forEach((side, i) => say(`${side.name}: median ${Math.round(median(rates[i]!))} events/s, ${median(perEvent[i]!).toFixed(0)} us API + Postgres per event`));
  if (sides.length === 2) say(`B / A CPU per event (medians): ${(median(perEvent[1]!) / median(perEvent[0]!)).toFixed(3)}x`);
  say(`load average (1/5/15 min) at start ${loadAvgStart.map((x) => x.toFixed(2)).join(' / ')}, at end ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`);
}

/** The tracing phase (i) of a full run: short runs, two rounds (ABBA), within ~1.5 minutes. */
const TRACING_PHASE_S = 7;
const TRACING_ROUNDS_FULL = 2;
const TRACING_WARMUP_S = 3;

/**
 * (i) Tracing off vs on, back to back in the same run: a second API process of the same build and
 * environment plus OTEL_EXPORTER_OTLP_ENDPOINT (default sampler parentbased_always_on, default
 * protocol http/protobuf) exporting to a local OTLP/HTTP sink that drops what it gets; batch 1000
 * and single events alternate between the untraced first API and the traced one, ABBA over the
 * rounds. Undefined when the first API is itself traced (BENCH_TRACING=1): there is no "off".
 */
async function measureTracing(stack: Stack, cleanup: CleanupStack, key: string, options: { durationS: number; rounds: number; warmupS: number }): Promise<TracingComparison[] | undefined> {
  if (stack.apiEnv.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    say('(i) tracing off vs on: skipped, the first API is traced itself (BENCH_TRACING=1 or OTEL_* in the environment)');
    return undefined;
  }
  const sink = await startOtlpSink();
  const traced = await startApi({ runDir: stack.runDir, env: { ...stack.apiEnv, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'parentbased_always_on' }, name: 'api-traced' });
  const stopTraced = async () => {
    if (traced.api.isRunning()) await traced.api.stop();
    await sink.close();
  };
  cleanup.add('stop api-traced and the OTLP sink', stopTraced);
  say(`(i) tracing off (api pid ${stack.api.pid}) vs on (api-traced pid ${traced.api.pid}, exporting to ${sink.url}): warm-up ${options.warmupS} s of batch 100 and of single events on the traced API, then ${options.rounds} round(s) of ${options.durationS} s per run`);
  await runBatchLoad({ baseUrl: traced.baseUrl, key, size: 100, connections: BATCH_CONNECTIONS, durationS: options.warmupS, prefix: 'warm-t' });
  await runSingleLoad({ baseUrl: traced.baseUrl, key, connections: SINGLE_CONNECTIONS, durationS: options.warmupS, prefix: 'warm-ts' });
  const sides = { off: { process: stack.api, baseUrl: stack.baseUrl }, on: { process: traced.api, baseUrl: traced.baseUrl } };
  const runs: Record<TracingWorkload, Record<'off' | 'on', ApiPhaseRun[]>> = { 'batch 1000': { off: [], on: [] }, single: { off: [], on: [] } };
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const workload of ['batch 1000', 'single'] as const) {
      for (const side of tracingRunOrder(round)) {
        const { process: api, baseUrl } = sides[side];
        const name = `tracing ${side}, ${workload}`;
        await settledEventCounts(stack.databaseUrl);
        const meters = startCpuMeters(stack, [api]);
        const prefix = `trace-${side}-${workload === 'single' ? 's' : 'b'}r${round}`;
        const load = workload === 'single'
          ? await runSingleLoad({ baseUrl, key, connections: SINGLE_CONNECTIONS, durationS: options.durationS, prefix })
          : await runBatchLoad({ baseUrl, key, size: TWO_API_BATCH_SIZE, connections: BATCH_CONNECTIONS, durationS: options.durationS, prefix });
        const cpu = meters.stop();
        assertPhaseClean(stack, name, load, [api]);
        say(`${name}: ${Math.round(load.eventsPerSecond)} events/s, p99 ${load.latencyP99Ms} ms, CPU per event api ${perEventUs(cpu.apiCores, load.eventsPerSecond).toFixed(0)} us + postgres ${perEventUs(cpu.postgresCores, load.eventsPerSecond).toFixed(0)} us`);
        runs[workload][side].push({ apis: 1, load, cpu });
      }
    }
  }
  const exports = sink.exports();
  await stopTraced();
  if (exports === 0) throw new Error('(i) the traced API exported nothing to the OTLP sink: the "on" runs were not traced');
  const comparisons = (['batch 1000', 'single'] as const).map((w) => compareTracing(w, w === 'single' ? SINGLE_CONNECTIONS : BATCH_CONNECTIONS, runs[w].off, runs[w].on));
  for (const c of comparisons) say(tracingLine(c));
  say(`(i) the OTLP sink received ${exports} exports`);
  return comparisons;
}

/** --only tracing: the tracing phase alone (--rounds rounds of --duration s), printed, docs untouched. */
async function measureTracingOnly(stack: Stack, cleanup: CleanupStack, plan: BenchPlan): Promise<void> {
  const loadAvgStart = loadavg();
  const key = await seedAndWarmUp(stack, plan);
  const comparisons = await measureTracing(stack, cleanup, key, { durationS: plan.durationS, rounds: plan.ingestionRounds, warmupS: plan.warmupS });
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  if (comparisons) {
    writeFileSync(join(stack.runDir, 'tracing-figures.json'), JSON.stringify({ durationS: plan.durationS, rounds: plan.ingestionRounds, loadAvgStart, loadAvgEnd: loadavg(), comparisons }, null, 2));
    console.log(`\n${renderTracingTable(comparisons)}\n`);
  }
  say(`load average (1/5/15 min) at start ${load(loadAvgStart)}, at end ${load(loadavg())}`);
}

/**
 * --only litellm: LiteLLM push batches of 500 payloads (realistic messages) and /v1/usage-events/batch
 * of 500 with the same events, alternating each round; events/s, CPU per event and the ratio printed.
 * With BENCH_AB_BUILD_ROOT, both loads on a second API of that build too, the sides in ABBA order,
 * and each side's ratio.
 */
async function measureLitellmOnly(stack: Stack, cleanup: CleanupStack, plan: BenchPlan): Promise<void> {
  const key = await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  await seedLitellmDeployments({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  const sides = await abSides(stack, cleanup);
  say(`payload ${litellmPayloadBytes()} bytes (messages and response included), ${LITELLM_BATCH_SIZE} per request, ${BATCH_CONNECTIONS} connections; warm-up ${plan.warmupS} s each`);
  for (const side of sides) {
    await runSameEventsBatchLoad({ baseUrl: side.baseUrl, key, connections: BATCH_CONNECTIONS, durationS: plan.warmupS, prefix: `warm-b${side.process.pid}` });
    await runLitellmLoad({ baseUrl: side.baseUrl, key, size: LITELLM_BATCH_SIZE, connections: BATCH_CONNECTIONS, durationS: plan.warmupS, prefix: `warm-l${side.process.pid}` });
  }
  const loadAvgStart = loadavg();
  const rates = sides.map(() => ({ batch: [] as number[], litellm: [] as number[] }));
  for (let round = 1; round <= plan.ingestionRounds; round += 1) {
    for (const i of abOrder(sides, round)) {
      const side = sides[i]!;
      for (const phase of ['batch', 'litellm'] as const) {
        const name = `${phase === 'batch' ? 'batch' : 'litellm'} ${LITELLM_BATCH_SIZE}${sides.length === 2 ? `, ${side.name}` : ''}`;
        const meters = startCpuMeters(stack, [side.process]);
        const options = { baseUrl: side.baseUrl, key, connections: BATCH_CONNECTIONS, durationS: plan.durationS, prefix: `${phase}${i}-r${round}` };
        const load = phase === 'batch' ? await runSameEventsBatchLoad(options) : await runLitellmLoad({ ...options, size: LITELLM_BATCH_SIZE });
        const cpu = meters.stop();
        assertPhaseClean(stack, name, load, [side.process]);
        rates[i]![phase].push(load.eventsPerSecond);
        say(`round ${round} ${name}: ${Math.round(load.eventsPerSecond)} events/s, p99 ${load.latencyP99Ms} ms, CPU per event api ${perEventUs(cpu.apiCores, load.eventsPerSecond).toFixed(0)} us + postgres ${perEventUs(cpu.postgresCores, load.eventsPerSecond).toFixed(0)} us, load ${loadavg()[0]!.toFixed(2)}`);
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const averages = (l: number[]) => l.map((x) => x.toFixed(2)).join('/');
  sides.forEach((side, i) => {
    const ratio = median(rates[i]!.litellm) / median(rates[i]!.batch);
    say(`${sides.length === 2 ? `${side.name}: ` : ''}litellm / batch (medians of ${plan.ingestionRounds} round(s)): ${Math.round(median(rates[i]!.litellm))} / ${Math.round(median(rates[i]!.batch))} events/s = ${ratio.toFixed(2)}x (target >= ${LITELLM_TARGET_RATIO}x) ${ratio >= LITELLM_TARGET_RATIO ? 'MET' : 'NOT MET'}`);
  });
  say(`load average at start ${averages(loadAvgStart)}, at end ${averages(loadavg())}`);
}

/** The floor server (scripts/lib/floor-server.mjs) on the bench database, warmed like the API. */
async function startWarmFloor(stack: Stack, cleanup: CleanupStack, plan: BenchPlan): Promise<FloorServer> {
  const floor = await startFloorServer({ runDir: stack.runDir, databaseUrl: stack.databaseUrl, cleanup });
  say(`floor server ${floor.baseUrl} (pid ${floor.process.pid}); warm-up: ${plan.warmupS} s of single events`);
  await runSingleLoad({ baseUrl: floor.baseUrl, key: 'floor', connections: SINGLE_CONNECTIONS, durationS: plan.warmupS, prefix: 'floor-warm' });
  return floor;
}

/** One floor run: the single-event load on the floor server, its CPU metered as the API's. */
async function measureFloorPhase(stack: Stack, floor: FloorServer, plan: BenchPlan, round: number): Promise<SingleFigure> {
  const meters = startCpuMeters(stack, [floor.process]);
  const load = await runSingleLoad({ baseUrl: floor.baseUrl, key: 'floor', connections: SINGLE_CONNECTIONS, durationS: plan.durationS, prefix: `floor-r${round}` });
  const cpu = meters.stop();
  sayCpu('floor', cpu);
  assertPhaseClean(stack, 'floor', load, [floor.process]);
  say(`floor: ${Math.round(load.eventsPerSecond)} events/s, p50 ${load.latencyP50Ms} ms, p99 ${load.latencyP99Ms} ms, CPU per event api ${perEventUs(cpu.apiCores, load.eventsPerSecond).toFixed(0)} us + postgres ${perEventUs(cpu.postgresCores, load.eventsPerSecond).toFixed(0)} us`);
  return { connections: SINGLE_CONNECTIONS, load, cpu, storedPriced: load.pricedEvents, storedOther: 0, runsEventsPerSecond: [] };
}

/**
 * --only floor[,single]: the floor server, and with "single" the service's plain single events
 * right after it in each round; CPU per event and the service's multiples of the floor printed.
 */
async function measureFloorOnly(stack: Stack, cleanup: CleanupStack, plan: BenchPlan & { floorWithSingle: boolean }): Promise<void> {
  const loadAvgStart = loadavg();
  const key = plan.floorWithSingle ? await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey }) : '';
  const floor = await startWarmFloor(stack, cleanup, plan);
  if (plan.floorWithSingle) {
    say(`warm-up: ${plan.warmupS} s of single events`);
    await runSingleLoad({ baseUrl: stack.baseUrl, key, connections: SINGLE_CONNECTIONS, durationS: plan.warmupS, prefix: 'warm' });
  }
  const runs: Array<{ floor: SingleFigure; single?: SingleFigure }> = [];
  for (let round = 1; round <= plan.ingestionRounds; round += 1) {
    const floorRun = await measureFloorPhase(stack, floor, plan, round);
    runs.push({ floor: floorRun, single: plan.floorWithSingle ? await measureSingle(stack, key, plan, round) : undefined });
  }
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  for (const [i, r] of runs.entries()) {
    if (!r.single) continue;
    const m = floorMultiples(r.single, r.floor);
    say(`round ${i + 1}: floor ${Math.round(r.floor.load.eventsPerSecond)} events/s p99 ${r.floor.load.latencyP99Ms} ms, api ${m.floor.api.toFixed(0)} + postgres ${m.floor.postgres.toFixed(0)} us; service ${Math.round(r.single.load.eventsPerSecond)} events/s p99 ${r.single.load.latencyP99Ms} ms, api ${m.service.api.toFixed(0)} + postgres ${m.service.postgres.toFixed(0)} us; service / floor: api ${m.api.toFixed(2)}x, postgres ${m.postgres.toFixed(2)}x`);
  }
  say(`load average (1/5/15 min) at start ${load(loadAvgStart)}, at end ${load(loadavg())}`);
}

/** --only single: plain, price-dimension and signed single events, alternating, CPU per event printed. */
async function measureSingleOnly(stack: Stack, plan: BenchPlan): Promise<void> {
  const loadAvgStart = loadavg();
  const key = await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  await seedDimensionPrices({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  const signed = await createSignedGatewayKey({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  say(`warm-up: ${plan.warmupS} s of single events`);
  await runSingleLoad({ baseUrl: stack.baseUrl, key, connections: SINGLE_CONNECTIONS, durationS: plan.warmupS, prefix: 'warm' });
  const perEvent = (f: SingleFigure) => ({
    api: perEventUs(f.cpu.apiCores, f.load.eventsPerSecond),
    postgres: perEventUs(f.cpu.postgresCores, f.load.eventsPerSecond),
    redis: perEventUs((f.cpu as MultiApiCpu).redisCores, f.load.eventsPerSecond),
    rate: f.load.eventsPerSecond,
    p99: f.load.latencyP99Ms,
  });
  const runs: Array<{ name: string } & ReturnType<typeof perEvent>> = [];
  for (let round = 1; round <= plan.ingestionRounds; round += 1) {
    runs.push({ name: 'single', ...perEvent(await measureSingle(stack, key, plan, round)) });
    runs.push({ name: 'single (price dimensions)', ...perEvent(await measureSingle(stack, key, plan, round, undefined, true)) });
    runs.push({ name: 'single (signed key)', ...perEvent(await measureSingle(stack, signed.key, plan, round, signed)) });
  }
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  for (const r of runs) {
    say(`${r.name}: ${Math.round(r.rate)} events/s, p99 ${r.p99} ms, CPU per event api ${r.api.toFixed(0)} us + postgres ${r.postgres.toFixed(0)} us = ${(r.api + r.postgres).toFixed(0)} us (+ redis ${r.redis.toFixed(0)} us)`);
  }
  say(`load average (1/5/15 min) at start ${load(loadAvgStart)}, at end ${load(loadavg())}`);
}

/** Priced events in the checkpointed check's window: the current and the previous UTC month. */
async function eventsInCheckWindow(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM usage_events WHERE status = 'priced' AND occurred_at >= date_trunc('month', now() AT TIME ZONE 'UTC') - interval '1 month'`,
    );
    return Number(result.rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function ledgerCheckFigure(stack: Stack): Promise<LedgerCheckFigure> {
  const eventsInWindow = await eventsInCheckWindow(stack.databaseUrl);
  return measureLedgerCheck({ baseUrl: stack.baseUrl, adminKey: stack.adminKey, databaseUrl: stack.databaseUrl, eventsInWindow, newEvents: LEDGER_CHECK_NEW_EVENTS, log: say });
}

/** --only ledger-check: N events over the last 30 days (COPY-speed seed), then the check timed. */
async function measureLedgerCheckOnly(stack: Stack, plan: BenchPlan & { ledgerCheckEvents: number }): Promise<void> {
  const loadAvgStart = loadavg();
  say(`ledger check: seeding ${plan.ledgerCheckEvents.toLocaleString('en-US')} events over ${LEDGER_CHECK_DAYS} days`);
  await seedEvents({
    databaseUrl: stack.databaseUrl,
    events: plan.ledgerCheckEvents,
    contributors: LEDGER_CHECK_CONTRIBUTORS,
    users: LEDGER_CHECK_CONTRIBUTORS,
    models: EARNINGS_MODELS,
    days: LEDGER_CHECK_DAYS,
    endDay: nextUtcMidnight(),
    chunkEvents: SEED_CHUNK_EVENTS_DEFAULT,
    log: (line) => say(`seed: ${line}`),
  });
  await ledgerCheckFigure(stack);
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  say(`load average (1/5/15 min) at start ${load(loadAvgStart)}, at end ${load(loadavg())}`);
}

const medianOf = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * (i) The usage audit's cost on the request path and in the worker. A second API process with
 * USAGE_AUDIT_ENABLED=false beside the stack's (audit on), both warmed. Off and on phases alternate
 * (off-on, then on-off), one API busy at a time,
 * each charged with its own process's CPU (and Postgres's and Redis's). The worker runs throughout
 * on a paused audit queue; once the phases are done the queue resumes and the worker counts the
 * waiting samples: the time until the last is stored vs the audit-on phases' ingestion time.
 */
async function measureStreamAudit(stack: Stack, cleanup: CleanupStack, key: string, plan: BenchPlan): Promise<StreamAuditFigure> {
  const loadAvgStart = loadavg();
  const total = plan.quick ? STREAM_AUDIT_STREAMS_QUICK : STREAM_AUDIT_STREAMS;
  const rounds = plan.quick ? 1 : STREAM_AUDIT_ROUNDS;
  const perPhase = { on: Math.ceil(total / rounds), off: Math.ceil(total / rounds / STREAM_AUDIT_OFF_SHARE) };
  const { bodies, meanBytes, meanCompletionTokens } = streamBodies();
  const off = await startApi({ runDir: stack.runDir, env: { ...stack.apiEnv, USAGE_AUDIT_ENABLED: 'false' }, name: 'api-audit-off' });
  cleanup.add('stop api-audit-off', () => off.api.stop());
  const queue = auditQueue(stack.apiEnv.REDIS_URL!, stack.apiEnv.QUEUE_PREFIX!);
  cleanup.add('close the audit queue client', () => queue.close());
  // The worker runs from the start, on a paused audit queue: its start-up is not the audit's time.
  await queue.pause();
  const worker = await startWorker({ runDir: stack.runDir, env: { ...stack.apiEnv, LOG_LEVEL: 'info' } });
  cleanup.add('stop worker', () => worker.stop());
  const warm = plan.quick ? STREAM_AUDIT_WARMUP_STREAMS / 5 : STREAM_AUDIT_WARMUP_STREAMS;
  say(`(i) stream route, usage audit off (pid ${off.api.pid}) vs on (pid ${stack.api.pid}): ${bodies.length} realistic SSE bodies (mean ${Math.round(meanBytes)} bytes, ${Math.round(meanCompletionTokens)} completion tokens), ${STREAM_AUDIT_CONNECTIONS} connections, ${rounds} round(s) of ${perPhase.off} streams with the audit off then ${perPhase.on} with it on; warm-up ${warm} streams each`);
  await runStreamLoad({ baseUrl: off.baseUrl, key, connections: STREAM_AUDIT_CONNECTIONS, amount: warm, prefix: 'sa-warm-off', bodies });
  await runStreamLoad({ baseUrl: stack.baseUrl, key, connections: STREAM_AUDIT_CONNECTIONS, amount: warm, prefix: 'sa-warm-on', bodies });
  await sleep(AUDIT_FLUSH_WAIT_MS);
  // The warm-up's samples are not part of the measured 10,000 (and no worker has counted any yet).
  await queue.drain();
  if ((await auditSampleCount(stack.databaseUrl)) !== 0) throw new Error('stream-audit: samples were counted while the audit queue was paused');
  const runs: StreamAuditRun[] = [];
  let ingestionSeconds = 0;
  let stored = 0;
  for (let round = 1; round <= rounds; round += 1) {
    // off, on, then on, off: a drift of the shared machine over the rounds falls on both sides alike.
    for (const side of round % 2 === 1 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const api = side === 'off' ? off : { api: stack.api, baseUrl: stack.baseUrl };
      const name = `stream audit ${side}`;
      const meters = startCpuMeters(stack, [api.api]);
      const load = await runStreamLoad({ baseUrl: api.baseUrl, key, connections: STREAM_AUDIT_CONNECTIONS, amount: perPhase[side], prefix: `sa-${side}-r${round}`, bodies });
      const cpu = meters.stop();
      assertPhaseClean(stack, name, load, [api.api]);
      if (load.pricedEvents !== perPhase[side]) throw new Error(`${name}: ${load.pricedEvents} of ${perPhase[side]} streams priced`);
      const run: StreamAuditRun = {
        audit: side,
        eventsPerSecond: load.eventsPerSecond,
        latencyP99Ms: load.latencyP99Ms,
        apiUs: perEventUs(cpu.apiCores, load.eventsPerSecond),
        postgresUs: perEventUs(cpu.postgresCores, load.eventsPerSecond),
        redisUs: perEventUs(cpu.redisCores, load.eventsPerSecond),
      };
      runs.push(run);
      if (side === 'on') {
        ingestionSeconds += load.seconds;
        stored += load.pricedEvents;
      }
      say(`round ${round} ${name}: ${Math.round(run.eventsPerSecond)} streams/s, p99 ${run.latencyP99Ms} ms, CPU per event api ${run.apiUs.toFixed(0)} us + postgres ${run.postgresUs.toFixed(0)} us + redis ${run.redisUs.toFixed(0)} us; load average ${loadavg().map((x) => x.toFixed(2)).join('/')}`);
    }
  }
  await sleep(AUDIT_FLUSH_WAIT_MS);
  const waiting = await waitingAuditStreams(queue);
  if (waiting !== stored) throw new Error(`stream-audit: ${waiting} streams wait in the audit queue, the audit-on phases stored ${stored}`);
  say(`${stored} streams stored in ${ingestionSeconds.toFixed(1)} s with the audit on, all ${waiting} waiting in the paused audit queue; resuming it (worker pid ${worker.pid})`);
  const workerCpu = cpuMeter(() => [worker.pid]);
  const startedMs = performance.now();
  await queue.resume();
  let firstMs: number | null = null;
  let counted = 0;
  while (counted < stored) {
    if (performance.now() - startedMs > AUDIT_TIMEOUT_MS) throw new Error(`stream-audit: the worker counted ${counted} of ${stored} streams in ${AUDIT_TIMEOUT_MS / 1000} s`);
    if (!worker.isRunning()) throw new Error(`stream-audit: the worker ended (${worker.exitDescription()}):\n${worker.logTail()}`);
    await sleep(AUDIT_POLL_MS);
    counted = await auditSampleCount(stack.databaseUrl);
    if (counted > 0 && firstMs === null) firstMs = performance.now();
  }
  const doneMs = performance.now();
  const workerCpuSeconds = workerCpu.stop();
  await worker.stop();
  await off.api.stop();
  const workerSeconds = (doneMs - startedMs) / 1000;
  const countingSeconds = (doneMs - (firstMs ?? startedMs)) / 1000;
  const sideOf = (side: 'off' | 'on') => {
    const mine = runs.filter((r) => r.audit === side);
    return { apiUs: medianOf(mine.map((r) => r.apiUs)), totalUs: medianOf(mine.map((r) => r.apiUs + r.postgresUs + r.redisUs)), eventsPerSecond: medianOf(mine.map((r) => r.eventsPerSecond)) };
  };
  const figure: StreamAuditFigure = {
    connections: STREAM_AUDIT_CONNECTIONS,
    rounds,
    streamsPerPhase: perPhase,
    meanBodyBytes: meanBytes,
    meanCompletionTokens,
    runs,
    off: sideOf('off'),
    on: sideOf('on'),
    audit: { streams: stored, ingestionSeconds, workerSeconds, countingSeconds, workerCpuSeconds },
    loadAvgStart,
    loadAvgEnd: loadavg(),
  };
  const cpuRatio = figure.on.apiUs / figure.off.apiUs;
  say(`stream audit: API CPU per event off ${figure.off.apiUs.toFixed(0)} us, on ${figure.on.apiUs.toFixed(0)} us = ${cpuRatio.toFixed(3)}x (target <= ${TARGET_STREAM_AUDIT_CPU_RATIO_MAX}x) ${cpuRatio <= TARGET_STREAM_AUDIT_CPU_RATIO_MAX ? 'MET' : 'NOT MET'}; with postgres and redis ${figure.off.totalUs.toFixed(0)} / ${figure.on.totalUs.toFixed(0)} us = ${(figure.on.totalUs / figure.off.totalUs).toFixed(3)}x`);
  say(`stream audit: the worker audited ${stored} streams in ${workerSeconds.toFixed(1)} s from the queue's resume (first to last sample stored ${countingSeconds.toFixed(1)} s, ${workerCpuSeconds.toFixed(1)} CPU s) vs ${ingestionSeconds.toFixed(1)} s to ingest them = ${(workerSeconds / ingestionSeconds).toFixed(2)}x ${workerSeconds < ingestionSeconds ? 'MET' : 'NOT MET'}; load average at start ${loadAvgStart.map((x) => x.toFixed(2)).join('/')}, at end ${figure.loadAvgEnd.map((x) => x.toFixed(2)).join('/')}`);
  return figure;
}

/**
 * --only stream-formats (issue #33): the same completions streamed as Chat Completions, Responses,
 * Anthropic Messages and Gemini to POST /v1/usage-events/stream on one API, each phase charged
 * with that process's CPU; --rounds rounds, the order reversed every other round so a drift of
 * the shared machine falls on every format alike; the median per format, as a ratio to chat.
 */
async function measureStreamFormatsOnly(stack: Stack, plan: BenchPlan): Promise<void> {
  const key = await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  const loadAvgStart = loadavg();
  const sets = formatBodies();
  const amount = plan.quick ? STREAM_FORMATS_STREAMS_QUICK : STREAM_FORMATS_STREAMS;
  const warm = plan.quick ? STREAM_FORMATS_WARMUP_STREAMS / 5 : STREAM_FORMATS_WARMUP_STREAMS;
  say(`stream formats: ${sets.map((s) => `${s.format} mean ${Math.round(s.meanBytes)} bytes`).join(', ')} (the same ${sets[0]!.bodies.length} completions); ${plan.ingestionRounds} round(s) of ${amount} streams per format, ${STREAM_AUDIT_CONNECTIONS} connections; warm-up ${warm} each`);
  for (const set of sets) await runStreamLoad({ baseUrl: stack.baseUrl, key, connections: STREAM_AUDIT_CONNECTIONS, amount: warm, prefix: `sf-warm-${set.format}`, bodies: set.bodies });
  const runs: Array<{ format: string; round: number; apiUs: number; postgresUs: number; eventsPerSecond: number; latencyP99Ms: number }> = [];
  for (let round = 1; round <= plan.ingestionRounds; round += 1) {
    for (const set of round % 2 === 1 ? sets : [...sets].reverse()) {
      const name = `stream format ${set.format}`;
      const meters = startCpuMeters(stack);
      const load = await runStreamLoad({ baseUrl: stack.baseUrl, key, connections: STREAM_AUDIT_CONNECTIONS, amount, prefix: `sf-${set.format}-r${round}`, bodies: set.bodies });
      const cpu = meters.stop();
      assertPhaseClean(stack, name, load);
      if (load.pricedEvents !== amount) throw new Error(`${name}: ${load.pricedEvents} of ${amount} streams priced`);
      const run = { format: set.format, round, apiUs: perEventUs(cpu.apiCores, load.eventsPerSecond), postgresUs: perEventUs(cpu.postgresCores, load.eventsPerSecond), eventsPerSecond: load.eventsPerSecond, latencyP99Ms: load.latencyP99Ms };
      runs.push(run);
      say(`round ${round} ${name}: ${Math.round(run.eventsPerSecond)} streams/s, p99 ${run.latencyP99Ms} ms, CPU per event api ${run.apiUs.toFixed(0)} us + postgres ${run.postgresUs.toFixed(0)} us; load average ${loadavg().map((x) => x.toFixed(2)).join('/')}`);
    }
  }
  const apiUsOf = (format: string) => medianOf(runs.filter((r) => r.format === format).map((r) => r.apiUs));
  const chatUs = apiUsOf('openai-chat');
  const formats = sets.map((s) => ({ format: s.format, meanBytes: s.meanBytes, apiUs: apiUsOf(s.format), ratioToChat: apiUsOf(s.format) / chatUs }));
  for (const f of formats) {
    say(`stream formats: ${f.format} API CPU per event ${f.apiUs.toFixed(0)} us = ${f.ratioToChat.toFixed(3)}x chat (target <= ${TARGET_STREAM_FORMAT_CPU_RATIO_MAX}x) ${f.ratioToChat <= TARGET_STREAM_FORMAT_CPU_RATIO_MAX ? 'MET' : 'NOT MET'}`);
  }
  const figure = { amount, rounds: plan.ingestionRounds, connections: STREAM_AUDIT_CONNECTIONS, formats, runs, loadAvgStart, loadAvgEnd: loadavg() };
  say(`load average at start ${loadAvgStart.map((x) => x.toFixed(2)).join('/')}, at end ${figure.loadAvgEnd.map((x) => x.toFixed(2)).join('/')}`);
  writeFileSync(join(stack.runDir, 'stream-formats-figures.json'), JSON.stringify(figure, null, 2));
  say(`figures: ${join(stack.runDir, 'stream-formats-figures.json')}`);
}

/** --only stream-audit: phase (i) alone, printed and kept in the run directory. */
async function measureStreamAuditOnly(stack: Stack, cleanup: CleanupStack, plan: BenchPlan): Promise<void> {
  const key = await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  const figure = await measureStreamAudit(stack, cleanup, key, plan);
  writeFileSync(join(stack.runDir, 'stream-audit-figures.json'), JSON.stringify(figure, null, 2));
  say(`figures: ${join(stack.runDir, 'stream-audit-figures.json')}`);
}

async function measureBatch(stack: Stack, key: string, plan: BenchPlan, size: number, round: number, apis: 1 | 2 = 1): Promise<BatchFigure> {
  const name = apis === 1 ? `batch ${size}` : `two-api batch ${size}`;
  const { processes, target } = phaseTarget(stack, apis, BATCH_CONNECTIONS);
  const before = await settledEventCounts(stack.databaseUrl);
  const meters = startCpuMeters(stack, processes);
  const load = await runBatchLoad({ baseUrl: target, key, size, connections: BATCH_CONNECTIONS, durationS: plan.durationS, prefix: `${apis === 1 ? '' : 'two-'}b${size}r${round}` });
  const cpu = meters.stop();
  const after = await settledEventCounts(stack.databaseUrl);
  sayCpu(name, cpu);
  assertPhaseClean(stack, name, load, processes);
  sayCpuPerEvent(name, cpu, load.eventsPerSecond);
  say(`${name}: ${Math.round(load.eventsPerSecond)} events/s (${load.pricedEvents} priced in ${load.seconds.toFixed(1)} s, ${load.notPricedEvents} not priced, ${load.non2xx} non-2xx), p99 ${load.latencyP99Ms} ms`);
  return { size, connections: BATCH_CONNECTIONS, load, cpu, storedPriced: after.priced - before.priced, storedOther: after.other - before.other, runsEventsPerSecond: [] };
}

async function measureSingle(stack: Stack, key: string, plan: BenchPlan, round: number, signer?: GatewaySigner, dimensions = false, apis: 1 | 2 = 1): Promise<SingleFigure> {
  const name = `${apis === 1 ? '' : 'two-api '}${dimensions ? 'single (price dimensions)' : signer ? 'single (signed key)' : 'single'}`;
  const { processes, target } = phaseTarget(stack, apis, SINGLE_CONNECTIONS);
  const before = await settledEventCounts(stack.databaseUrl);
  const metricsBefore = apis === 1 ? await scrapeMetrics(stack.baseUrl) : undefined;
  const meters = startCpuMeters(stack, processes);
  const load = await runSingleLoad({ baseUrl: target, key, connections: SINGLE_CONNECTIONS, durationS: plan.durationS, prefix: `${apis === 1 ? '' : 'two-'}${dimensions ? 'dims' : signer ? 'signed' : 'single'}-r${round}`, signer, dimensions });
  const cpu = meters.stop();
  // What the latency is made of (issue 35's p99): the API's own metrics over the window.
  if (metricsBefore) say(`${name}: ${describeLatency(latencyBreakdown(metricsBefore, await scrapeMetrics(stack.baseUrl)), load.seconds)}`);
  const after = await settledEventCounts(stack.databaseUrl);
  sayCpu(name, cpu);
  assertPhaseClean(stack, name, load, processes);
  sayCpuPerEvent(name, cpu, load.eventsPerSecond);
  say(`${name}: ${Math.round(load.eventsPerSecond)} events/s, p50 ${load.latencyP50Ms} ms, p99 ${load.latencyP99Ms} ms (${load.notPricedEvents} not priced, ${load.non2xx} non-2xx)`);
  return { connections: SINGLE_CONNECTIONS, load, cpu, storedPriced: after.priced - before.priced, storedOther: after.other - before.other, runsEventsPerSecond: [] };
}

/**
 * usage_events counts once requests still in flight when the load generator stopped have
 * committed (two equal counts in a row), so each phase is charged only with its own rows.
 */
async function settledEventCounts(databaseUrl: string): Promise<{ priced: number; other: number }> {
  const deadlineMs = Date.now() + SETTLE_TIMEOUT_MS;
  let previous = await countStoredEvents(databaseUrl);
  for (;;) {
    await sleep(SETTLE_POLL_MS);
    const current = await countStoredEvents(databaseUrl);
    if ((current.priced === previous.priced && current.other === previous.other) || Date.now() > deadlineMs) return current;
    previous = current;
  }
}

/**
 * helper-5's tools: scripts/lib/seed-events.ts seeds priced events with their rollups and an
 * aggregated journal; scripts/lib/earnings-bench.ts times sequential queries. All seeded events
 * belong to one contributor, so the measured query sums the whole N-event database.
 */
async function measureEarnings(stack: Stack, plan: BenchPlan): Promise<EarningsFigure | { skipped: string }> {
  if (plan.earningsEvents === 0) return { skipped: '--earnings-events 0' };
  const endDay = nextUtcMidnight();
  const range = { from: new Date(endDay.getTime() - EARNINGS_DAYS * DAY_MS).toISOString().slice(0, 10), to: endDay.toISOString().slice(0, 10) };
  say(`earnings: seeding ${plan.earningsEvents.toLocaleString('en-US')} events over ${EARNINGS_DAYS} days for one contributor`);
  const seeded = await seedEvents({
    databaseUrl: stack.databaseUrl,
    events: plan.earningsEvents,
    contributors: EARNINGS_CONTRIBUTORS,
    users: EARNINGS_CONTRIBUTORS,
    models: EARNINGS_MODELS,
    days: EARNINGS_DAYS,
    endDay,
    chunkEvents: SEED_CHUNK_EVENTS_DEFAULT,
    log: (line) => say(`seed: ${line}`),
  });
  const contributorId = seedContributorId(0);
  const sequential = await measureEarningsQuery({ baseUrl: stack.baseUrl, apiKey: stack.adminKey, contributorId, iterations: plan.earningsIterations, ...range, groupBy: EARNINGS_GROUP_BY });
  if (sequential.events !== seeded.events) throw new Error(`earnings answer sums ${sequential.events} events, seeded ${seeded.events}`);
  const concurrent = await runEarningsLoad({ baseUrl: stack.baseUrl, key: stack.adminKey, contributorIds: [contributorId], ...range, groupBy: EARNINGS_GROUP_BY, connections: EARNINGS_CONNECTIONS, durationS: plan.earningsDurationS });
  assertAllOk(`earnings (${EARNINGS_CONNECTIONS} clients)`, concurrent);
  say(`earnings: p50 ${sequential.p50Ms} ms, p99 ${sequential.p99Ms} ms (1 client, ${sequential.iterations} queries, ${sequential.rows} rows summing ${sequential.events} events); p50 ${concurrent.latencyP50Ms} ms, p99 ${concurrent.latencyP99Ms} ms (${EARNINGS_CONNECTIONS} clients)`);
  return {
    events: seeded.events,
    seedSeconds: seeded.seconds,
    days: EARNINGS_DAYS,
    models: EARNINGS_MODELS,
    groupBy: EARNINGS_GROUP_BY,
    sequential,
    concurrent,
    concurrentConnections: EARNINGS_CONNECTIONS,
  };
}

/** A figure only counts if every request was answered as expected by the same API process(es). */
function assertPhaseClean(stack: Stack, phase: string, load: LoadResult, processes: ManagedProcess[] = [stack.api]): void {
  for (const p of processes) {
    if (!p.isRunning()) throw new Error(`${phase}: an API process (pid ${p.pid}) ended during the phase (${p.exitDescription()}):\n${p.logTail()}`);
  }
  assertAllOk(phase, load);
}

function assertAllOk(what: string, load: LoadResult): void {
  if (load.notPricedEvents > 0 || load.non2xx > 0 || load.errors > 0 || load.requests === 0) {
    throw new Error(`${what}: ${load.non2xx} non-2xx, ${load.errors} errors, ${load.notPricedEvents} failed of ${load.requests} requests`);
  }
}

function writeDocs(figures: BenchFigures, runDir?: string): void {
  // The raw figures stay with the run's logs, so the docs can be re-rendered without re-measuring.
  if (runDir) writeFileSync(join(runDir, FIGURES_FILE), JSON.stringify(figures, null, 2));
  const svg = renderChartSvg(figures);
  writeChartPng(svg, join(DOCS_DIR, CHART_FILE));
  writeFileSync(join(DOCS_DIR, 'performance.md'), renderMarkdown(figures, CHART_FILE));
  say(`wrote docs/performance.md and docs/${CHART_FILE}${runDir ? ` (figures: ${join(runDir, FIGURES_FILE)})` : ''}`);
}

/** --render-from: the docs of an earlier run, from its figures.json (nothing is measured). */
function renderFrom(path: string): void {
  const figures = JSON.parse(readFileSync(path, 'utf8')) as BenchFigures;
  writeDocs({ ...figures, startedAt: new Date(figures.startedAt), finishedAt: new Date(figures.finishedAt) });
}

async function runAll(plan: BenchPlan & { hotDayEvents: number }, stack: Stack, cleanup: CleanupStack): Promise<Omit<BenchFigures, 'startedAt' | 'finishedAt'>> {
  const machine = await machineInfo(stack.databaseUrl);
  say(`(a) raw limits: COPY ${plan.copyRows} rows, unnest ${plan.unnestRows} rows, single inserts ${plan.singleInsertSeconds} s`);
  const raw = await measureRawLimits({ databaseUrl: stack.databaseUrl, copyRows: plan.copyRows, unnestRows: plan.unnestRows, singleInsertSeconds: plan.singleInsertSeconds });
  say(`raw: COPY ${Math.round(raw.copyRowsPerSecond)} rows/s, multi-row insert ${Math.round(raw.unnestRowsPerSecond)} rows/s, one insert per tx ${Math.round(raw.singleInsertRowsPerSecond)} rows/s`);
  const key = await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  await seedDimensionPrices({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  const signed = await createSignedGatewayKey({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
  const idleBytes = readRssBytes(stack.api.pid) ?? 0;
  const sampler = sampleRss(stack.api.pid, RSS_SAMPLE_MS);
  say(`warm-up: ${plan.warmupS} s of batch 100`);
  await runBatchLoad({ baseUrl: stack.baseUrl, key, size: 100, connections: BATCH_CONNECTIONS, durationS: plan.warmupS, prefix: 'warm' });
  await startSecondApi(stack, cleanup, key, plan);
  say(`(b, c, g) batch ingestion (${BATCH_CONNECTIONS} connections) and single events (${SINGLE_CONNECTIONS} connections), ${plan.durationS} s per phase, ${plan.ingestionRounds} round(s)`);
  const floor = await startWarmFloor(stack, cleanup, plan);
  const { batch, floor: floorFigure, single, signedSingle, dimensionsSingle, twoApi } = await measureIngestion(stack, key, signed, plan, floor);
  await floor.process.stop();
  // The second API served only the two-API phases; the earnings, gas and RSS figures are the first one's.
  await stack.api2!.api.stop();
  const tracing = await measureTracing(stack, cleanup, key, plan.quick ? { durationS: plan.durationS, rounds: 1, warmupS: plan.warmupS } : { durationS: TRACING_PHASE_S, rounds: TRACING_ROUNDS_FULL, warmupS: TRACING_WARMUP_S });
  const streamAudit = await measureStreamAudit(stack, cleanup, key, plan);
  say('(d) earnings query');
  const earnings = await measureEarnings(stack, plan);
  say('(h) ledger check over the earnings database');
  const ledgerCheck = 'skipped' in earnings ? undefined : await ledgerCheckFigure(stack);
  say(`(h) ledger check with one hot day of ${plan.hotDayEvents.toLocaleString('en-US')} events today`);
  const hotDay = await measureHotDay({ ...stack, key, events: plan.hotDayEvents, log: say });
  const rssPeak = sampler.stop();
  say(`(f) API RSS: idle ${(idleBytes / 2 ** 20).toFixed(0)} MiB, peak under load ${(rssPeak.peakBytes / 2 ** 20).toFixed(0)} MiB`);
  say(`(e) settlement gas, ${plan.gasRecipients} recipients`);
  const gas = await measurePayoutGas(stack.devchain, plan.gasRecipients);
  say('(h) the SDK\'s ledgerFetch tee on loopback');
  await measureLedgerFetch({ rounds: plan.quick ? 100 : LEDGER_FETCH_ROUNDS_DEFAULT, say });
  say(`gas per recipient (new/existing): BatchPayout ${gas.batchPayout.newHolders}/${gas.batchPayout.existingHolders}, Disperse ${gas.disperseToken.newHolders}/${gas.disperseToken.existingHolders}, single transfer ${gas.singleTransfer.newHolders}/${gas.singleTransfer.existingHolders}`);
  machine.loadAvgEnd = loadavg();
  return { quick: plan.quick, machine, durationS: plan.durationS, raw, batch, floor: floorFigure, single, signedSingle, dimensionsSingle, twoApi, tracing, earnings, ledgerCheck, hotDay, gas, rss: { idleBytes, peakBytes: rssPeak.peakBytes, samples: rssPeak.samples }, streamAudit };
}

async function main(): Promise<number> {
  const plan = parsePlan();
  // The SDK's stream tee on loopback (scripts/lib/ledger-fetch-bench.ts): no stack needed.
  if (plan.onlyLedgerFetch) {
    await measureLedgerFetch({ rounds: plan.quick ? 100 : LEDGER_FETCH_ROUNDS_DEFAULT, say });
    return 0;
  }
  if (plan.renderFrom) {
    renderFrom(plan.renderFrom);
    return 0;
  }
  const runId = randomSuffix();
  const runDir = createRunDir(`ledger-bench-${runId}`);
  const cleanup = new CleanupStack((line) => say(`cleanup: ${line}`));
  const startedAt = new Date();
  try {
    say(`${plan.quick ? 'quick smoke run' : 'full run'}: ${plan.durationS} s per load phase, earnings database ${plan.earningsEvents.toLocaleString('en-US')} events`);
    const stack = await startStack(runId, runDir, cleanup, plan);
    if (plan.history) {
      const key = await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
      const history = await measureHistory(stack, key, { ...plan.history, durationS: plan.durationS }, say);
      const machine = await machineInfo(stack.databaseUrl);
      writeFileSync(join(runDir, 'history-figures.json'), JSON.stringify(history, null, 2));
      writeFileSync(join(DOCS_DIR, 'history-bench.md'), renderHistoryMarkdown(history, { startedAt, finishedAt: new Date(), durationS: plan.durationS, machine: `${machine.cores} cores (${machine.cpuModel}), ${machine.postgres}, Node ${machine.node}` }));
      say(`wrote docs/history-bench.md (figures: ${join(runDir, 'history-figures.json')})`);
      return 0;
    }
    if (plan.onlyBatch) {
      await measureBatchOnly(stack, cleanup, plan);
      return 0;
    }
    if (plan.onlySingle) {
      await measureSingleOnly(stack, plan);
      return 0;
    }
    if (plan.onlyLedgerCheck) {
      await measureLedgerCheckOnly(stack, plan);
      return 0;
    }
    if (plan.onlyFloor) {
      await measureFloorOnly(stack, cleanup, plan);
      return 0;
    }
    if (plan.onlyLedgerCheckHot) {
      const loadAvgStart = loadavg();
      const key = await seedForIngestion({ baseUrl: stack.baseUrl, adminKey: stack.adminKey });
      await measureHotDay({ ...stack, key, events: plan.hotDayEvents, log: say });
      say(`load average (1/5/15 min) at start ${loadAvgStart.map((x) => x.toFixed(2)).join(' / ')}, at end ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`);
      return 0;
    }
    if (plan.onlyTwoApi) {
      await measureTwoApiOnly(stack, cleanup, plan);
      return 0;
    }
    if (plan.onlyTracing) {
      await measureTracingOnly(stack, cleanup, plan);
      return 0;
    }
    if (plan.onlySpend) {
      const key = await seedAndWarmUp(stack, plan);
      const figures = await measureSpendIngestion({
        api: { baseUrl: stack.baseUrl, adminKey: stack.adminKey, key },
        durationS: plan.durationS,
        rounds: plan.ingestionRounds,
        meter: () => startCpuMeters(stack),
        assertClean: (phase, load) => assertPhaseClean(stack, phase, load),
        settle: () => settledEventCounts(stack.databaseUrl),
        log: say,
      });
      writeFileSync(join(runDir, 'spend-figures.json'), JSON.stringify(figures, null, 2));
      console.log(`\n${renderSpendTable(figures)}\n`);
      return 0;
    }
    if (plan.onlyStreamAudit) {
      await measureStreamAuditOnly(stack, cleanup, plan);
      return 0;
    }
    if (plan.onlyStreamFormats) {
      await measureStreamFormatsOnly(stack, plan);
      return 0;
    }
    if (plan.onlyLitellm) {
      await measureLitellmOnly(stack, cleanup, plan);
      return 0;
    }
    const figures = await runAll(plan, stack, cleanup);
    writeDocs({ ...figures, startedAt, finishedAt: new Date() }, runDir);
    return 0;
  } catch (error) {
    console.error(`[bench] failed: ${(error as Error).stack ?? error}\n[bench] logs: ${runDir}`);
    return 1;
  } finally {
    await cleanup.runAll();
    say(`done in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s`);
  }
}

process.exitCode = await main();
