// npm run audit:figures: the usage audit's detection and false-flag figures (docs/usage-audit.md),
// from a simulated population on realistic content (English, code, JSON tool calls, CJK, reasoning),
// through the audit's own counter and statistics. Also times the counting of 10,000 streams.
//   tsx scripts/usage-audit-figures.ts [--trials N]
import { performance } from 'node:perf_hooks';
import { seededRandom } from '../src/common/random/seeded-random.js';
import { countSample } from '../src/modules/usage-audit/usage-audit-counter.js';
import { auditVerdicts, median, type RatioGroup } from '../src/modules/usage-audit/usage-audit-stats.js';
import { completionCorpus, honestReport, type Completion } from '../src/modules/usage-audit/testing/audit-corpus.js';

const TRIALS = Number(process.argv[process.argv.indexOf('--trials') + 1]) || 20;
const RULES = { minEvents: 50, threshold: 0.1, madMultiple: 4 };
const HONEST = 6;
const EVENTS_MAX = 400;
const HONEST_LONG_EVENTS = 2_000;
const CORPUS_SIZE = 3_000;
/** The audit runs once a minute: verdicts are taken every this many events of the inflator. */
const CHECK_EVERY = 5;
const MODELS = [
  { model: 'openai/gpt-4o', familyFactor: 1 },
  { model: 'anthropic/claude-sonnet-4', familyFactor: 1.12 },
];

function texts(c: Completion): string[] {
  return [c.content, c.reasoning, ...c.toolCalls.flatMap((t) => [t.name, t.arguments_raw])].filter((t) => t !== '');
}

function countedCorpus(model: string) {
  return completionCorpus(CORPUS_SIZE, 27).map((c, i) => {
    const counted = countSample({ event_id: `e${i}`, contributor_id: 'c', model, occurred_at: new Date(0).toISOString(), reported_tokens: 0, texts: texts(c) });
    return { kind: c.kind, counted: counted!.countedTokens };
  });
}

interface Trial {
  eventsToFlag: number | null;
  falseFlags: number;
}

function trial(corpus: ReturnType<typeof countedCorpus>, familyFactor: number, inflation: number, seed: number): Trial {
  const next = seededRandom(seed);
  const ratios = new Map<string, number[]>();
  const ids = [...Array.from({ length: HONEST }, (_, i) => `honest-${i}`), 'inflator'];
  const falselyFlagged = new Set<string>();
  for (let n = 1; n <= EVENTS_MAX; n += 1) {
    for (const id of ids) {
      const sample = corpus[Math.floor(next() * corpus.length)]!;
      const honest = honestReport(sample.counted, sample.kind, next, familyFactor);
      const reported = id === 'inflator' ? Math.round(honest * (1 + inflation)) : honest;
      ratios.set(id, [...(ratios.get(id) ?? []), reported / sample.counted]);
    }
    if (n % CHECK_EVERY !== 0) continue;
    const groups: RatioGroup[] = ids.map((id) => ({ contributorId: id, model: 'm', events: n, medianRatio: median(ratios.get(id)!) }));
    const verdicts = auditVerdicts(groups, RULES);
    for (const v of verdicts) if (v.flagged && v.contributorId !== 'inflator') falselyFlagged.add(v.contributorId);
    if (verdicts.find((v) => v.contributorId === 'inflator')!.flagged) return { eventsToFlag: n, falseFlags: falselyFlagged.size };
  }
  return { eventsToFlag: null, falseFlags: falselyFlagged.size };
}

/** Honest contributors only, long: how many are ever flagged at any check. */
function honestOnly(corpus: ReturnType<typeof countedCorpus>, familyFactor: number, seed: number): { contributors: number; everFlagged: number } {
  const next = seededRandom(seed);
  const contributors = 10;
  const ratios: number[][] = Array.from({ length: contributors }, () => []);
  const flagged = new Set<number>();
  for (let n = 1; n <= HONEST_LONG_EVENTS; n += 1) {
    for (let c = 0; c < contributors; c += 1) {
      const sample = corpus[Math.floor(next() * corpus.length)]!;
      ratios[c]!.push(honestReport(sample.counted, sample.kind, next, familyFactor) / sample.counted);
    }
    if (n % (CHECK_EVERY * 4) !== 0) continue;
    const groups = ratios.map((r, c) => ({ contributorId: `h${c}`, model: 'm', events: n, medianRatio: median(r) }));
    for (const v of auditVerdicts(groups, RULES)) if (v.flagged) flagged.add(Number(v.contributorId.slice(1)));
  }
  return { contributors, everFlagged: flagged.size };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

console.log(`| model (counter) | inflation | detected | events to flag: median / max | false flags (honest contributors flagged) |`);
console.log(`|---|---|---|---|---|`);
for (const { model, familyFactor } of MODELS) {
  const corpus = countedCorpus(model);
  for (const inflation of [0.15, 0.2]) {
    const trials = Array.from({ length: TRIALS }, (_, i) => trial(corpus, familyFactor, inflation, 1000 + i));
    const caught = trials.filter((t) => t.eventsToFlag !== null).map((t) => t.eventsToFlag!);
    const falseFlags = trials.reduce((sum, t) => sum + t.falseFlags, 0);
    console.log(
      `| ${model} | +${Math.round(inflation * 100)}% | ${caught.length}/${TRIALS} | ${caught.length ? `${percentile(caught, 0.5)} / ${Math.max(...caught)}` : '-'} | ${falseFlags} of ${TRIALS * HONEST} |`,
    );
  }
  const honest = Array.from({ length: 5 }, (_, i) => honestOnly(corpus, familyFactor, 5000 + i));
  console.log(`| ${model} | honest only, ${HONEST_LONG_EVENTS} events each | - | - | ${honest.reduce((s, h) => s + h.everFlagged, 0)} of ${honest.reduce((s, h) => s + h.contributors, 0)} |`);
}

// Counting cost: 10,000 streams of the corpus through the audit's counter (what the worker does).
const corpus = completionCorpus(10_000, 99);
for (const model of ['openai/gpt-4o', 'anthropic/claude-sonnet-4']) {
  countSample({ event_id: 'warm', contributor_id: 'c', model, occurred_at: new Date(0).toISOString(), reported_tokens: 0, texts: ['warm up'] });
  const started = performance.now();
  let tokens = 0;
  corpus.forEach((c, i) => {
    tokens += countSample({ event_id: `e${i}`, contributor_id: 'c', model, occurred_at: new Date(0).toISOString(), reported_tokens: 0, texts: texts(c) })?.countedTokens ?? 0;
  });
  const ms = performance.now() - started;
  console.log(`\ncounting 10,000 streams (${model}): ${ms.toFixed(0)} ms, ${tokens} tokens (${((10_000 / ms) * 1000).toFixed(0)} streams/s)`);
}
