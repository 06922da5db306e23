// npm run audit:figures: the usage audit's detection and false-flag figures (docs/usage-audit.md),
// from a simulated population on realistic content (English, code, JSON tool calls, CJK, reasoning),
// through the audit's own counter and statistics. Each of the three ratios (completion, prompt,
// reasoning: api.md "What a contributor's upstream claims is not believed past what the gateway
// asked") is inflated by one contributor among honest ones. Also times the counting of 10,000 streams.
//   tsx scripts/usage-audit-figures.ts [--trials N] [--no-cost]   (ONLY_MODEL=openai/o3, REASONING_SIGMA=0.6)
import { performance } from 'node:perf_hooks';
import { seededRandom } from '../src/common/random/seeded-random.js';
import { countSample } from '../src/modules/usage-audit/usage-audit-counter.js';
import { auditRows, mad, median, type AuditRatio, type AuditRow } from '../src/modules/usage-audit/usage-audit-stats.js';
import { completionCorpus, honestHiddenReasoning, honestPrompt, honestReport, type Completion } from '../src/modules/usage-audit/testing/audit-corpus.js';

const TRIALS = Number(process.argv[process.argv.indexOf('--trials') + 1]) || 20;
const RULES = { minEvents: 50, threshold: 0.1, madMultiple: 4 };
/** Per-request spread (log-normal sigma) of hidden reasoning / visible output: REASONING_SIGMA=0.4 for a calmer model. */
const REASONING_SIGMA = Number(process.env.REASONING_SIGMA ?? 0.6);
const PROMPT_TOLERANCE = 0.05;
const HONEST = 6;
const EVENTS_MAX = 400;
const HONEST_LONG_EVENTS = 2_000;
const CORPUS_SIZE = 3_000;
/** The audit runs once a minute: verdicts are taken every this many events of the inflator. */
const CHECK_EVERY = 5;
/** hiddenReasoning: the model hides its reasoning (o-series), so its reasoning ratio is audited. */
const ALL_MODELS = [
  { model: 'openai/gpt-4o', familyFactor: 1, hiddenReasoning: false },
  { model: 'anthropic/claude-sonnet-4', familyFactor: 1.12, hiddenReasoning: false },
  { model: 'openai/o3', familyFactor: 1, hiddenReasoning: true },
];
type Model = (typeof ALL_MODELS)[number];
const MODELS = process.env.ONLY_MODEL ? ALL_MODELS.filter((m) => m.model === process.env.ONLY_MODEL) : ALL_MODELS;
type Inflation = { ratio: AuditRatio; factor: number };
const INFLATIONS: Inflation[] = [
  { ratio: 'completion', factor: 1.15 },
  { ratio: 'completion', factor: 1.2 },
  { ratio: 'completion', factor: 1.3 },
  { ratio: 'prompt', factor: 1.3 },
  { ratio: 'reasoning', factor: 1.3 },
];

function texts(c: Completion): string[] {
  return [c.content, c.reasoning, ...c.toolCalls.flatMap((t) => [t.name, t.arguments_raw])].filter((t) => t !== '');
}

function countedCorpus(model: Model) {
  // A model that hides its reasoning streams none of it: only the visible texts are counted.
  return completionCorpus(CORPUS_SIZE, 27).map((c, i) => {
    const shown = model.hiddenReasoning ? { ...c, reasoning: '' } : c;
    const counted = countSample({ event_id: `e${i}`, contributor_id: 'c', model: model.model, occurred_at: new Date(0).toISOString(), reported_tokens: 0, texts: texts(shown) });
    return { kind: c.kind, counted: counted!.countedTokens };
  });
}
type Corpus = ReturnType<typeof countedCorpus>;

/** Per contributor: the ratios of each of its events so far. */
type Ratios = Record<AuditRatio, number[]>;

/** One event of one contributor: its three ratios as the audit forms them (inflated if asked). */
function addEvent(ratios: Ratios, corpus: Corpus, model: Model, next: () => number, inflation: Inflation | null): void {
  const sample = corpus[Math.floor(next() * corpus.length)]!;
  const factor = (ratio: AuditRatio) => (inflation?.ratio === ratio ? inflation.factor : 1);
  const completion = honestReport(sample.counted, sample.kind, next, model.familyFactor);
  ratios.completion.push(Math.round(completion * factor('completion')) / sample.counted);
  const prompt = honestPrompt(next, model.familyFactor);
  ratios.prompt.push(Math.round(prompt.reported * factor('prompt')) / prompt.gateway);
  if (model.hiddenReasoning) ratios.reasoning.push(Math.round(honestHiddenReasoning(sample.counted, next, 2, REASONING_SIGMA) * factor('reasoning')) / sample.counted);
}

function rowsOf(byContributor: Map<string, Ratios>): AuditRow[] {
  return [...byContributor].map(([contributorId, ratios]) => ({
    contributorId,
    model: 'm',
    ratios: Object.fromEntries(Object.entries(ratios).filter(([, values]) => values.length > 0).map(([ratio, values]) => [ratio, { events: values.length, medianRatio: median(values), madRatio: mad(values) }])),
  }));
}

const emptyRatios = (): Ratios => ({ completion: [], prompt: [], reasoning: [] });

interface Trial {
  eventsToFlag: number | null;
  flaggedBy: AuditRatio[];
  falseFlags: number;
}

function trial(corpus: Corpus, model: Model, inflation: Inflation, seed: number): Trial {
  const next = seededRandom(seed);
  const byContributor = new Map<string, Ratios>([...Array.from({ length: HONEST }, (_, i) => `honest-${i}`), 'inflator'].map((id) => [id, emptyRatios()]));
  const falselyFlagged = new Set<string>();
  for (let n = 1; n <= EVENTS_MAX; n += 1) {
    for (const [id, ratios] of byContributor) addEvent(ratios, corpus, model, next, id === 'inflator' ? inflation : null);
    if (n % CHECK_EVERY !== 0) continue;
    const verdicts = auditRows(rowsOf(byContributor), RULES, PROMPT_TOLERANCE);
    for (const v of verdicts) if (v.flagged && v.contributorId !== 'inflator') falselyFlagged.add(v.contributorId);
    const inflator = verdicts.find((v) => v.contributorId === 'inflator')!;
    if (inflator.flagged) return { eventsToFlag: n, flaggedBy: inflator.flaggedRatios, falseFlags: falselyFlagged.size };
  }
  return { eventsToFlag: null, flaggedBy: [], falseFlags: falselyFlagged.size };
}

/** Honest contributors only, long: how many are ever flagged, by any ratio, at any check. */
function honestOnly(corpus: Corpus, model: Model, seed: number): { contributors: number; everFlagged: number } {
  const next = seededRandom(seed);
  const contributors = 10;
  const byContributor = new Map<string, Ratios>(Array.from({ length: contributors }, (_, c) => [`h${c}`, emptyRatios()]));
  const flagged = new Set<string>();
  for (let n = 1; n <= HONEST_LONG_EVENTS; n += 1) {
    for (const ratios of byContributor.values()) addEvent(ratios, corpus, model, next, null);
    if (n % (CHECK_EVERY * 4) !== 0) continue;
    for (const v of auditRows(rowsOf(byContributor), RULES, PROMPT_TOLERANCE)) if (v.flagged) flagged.add(v.contributorId);
  }
  return { contributors, everFlagged: flagged.size };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

console.log(`| model (counter) | inflated ratio | detected | events to flag: median / max | flagged by | false flags (honest contributors flagged) |`);
console.log(`|---|---|---|---|---|---|`);
for (const model of MODELS) {
  const corpus = countedCorpus(model);
  for (const inflation of INFLATIONS) {
    if (inflation.ratio === 'reasoning' && !model.hiddenReasoning) continue;
    const trials = Array.from({ length: TRIALS }, (_, i) => trial(corpus, model, inflation, 1000 + i));
    const caught = trials.filter((t) => t.eventsToFlag !== null).map((t) => t.eventsToFlag!);
    const falseFlags = trials.reduce((sum, t) => sum + t.falseFlags, 0);
    const by = [...new Set(trials.flatMap((t) => t.flaggedBy))].join(', ') || '-';
    console.log(
      `| ${model.model} | ${inflation.ratio} x${inflation.factor} | ${caught.length}/${TRIALS} | ${caught.length ? `${percentile(caught, 0.5)} / ${Math.max(...caught)}` : '-'} | ${by} | ${falseFlags} of ${TRIALS * HONEST} |`,
    );
  }
  const honest = Array.from({ length: 5 }, (_, i) => honestOnly(corpus, model, 5000 + i));
  console.log(`| ${model.model} | honest only, ${HONEST_LONG_EVENTS} events each | - | - | - | ${honest.reduce((s, h) => s + h.everFlagged, 0)} of ${honest.reduce((s, h) => s + h.contributors, 0)} |`);
}

// Counting cost: 10,000 streams of the corpus through the audit's counter (what the worker does).
const corpus = completionCorpus(10_000, 99);
for (const model of process.argv.includes('--no-cost') ? [] : ['openai/gpt-4o', 'anthropic/claude-sonnet-4']) {
  countSample({ event_id: 'warm', contributor_id: 'c', model, occurred_at: new Date(0).toISOString(), reported_tokens: 0, texts: ['warm up'] });
  const started = performance.now();
  let tokens = 0;
  corpus.forEach((c, i) => {
    tokens += countSample({ event_id: `e${i}`, contributor_id: 'c', model, occurred_at: new Date(0).toISOString(), reported_tokens: 0, texts: texts(c) })?.countedTokens ?? 0;
  });
  const ms = performance.now() - started;
  console.log(`\ncounting 10,000 streams (${model}): ${ms.toFixed(0)} ms, ${tokens} tokens (${((10_000 / ms) * 1000).toFixed(0)} streams/s)`);
}
