// npm run soak -- --seed N --minutes M [--report FILE] [--replay STEP] [--clean] [--keep-going]
// The seeded soak (docs/reliability.md, operations.md): the whole stack of its own under a random
// schedule of operations and faults drawn from the seed, every invariant checked after every step.
// Prints the seed first and the JSON report last; exits 0 only when every invariant held.
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createRunDir } from './lib/bench-stack.js';
import { writeReport } from './soak/soak-report.js';
import { runSoak } from './soak/soak-runner.js';

const USAGE = 'usage: npm run soak -- --seed N --minutes M [--report FILE] [--replay STEP] [--clean] [--keep-going]';

function wholeNumber(text: string | undefined, name: string, fallback?: number): number {
  if (text === undefined && fallback !== undefined) return fallback;
  const value = Number(text);
  if (text === undefined || !Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number (${USAGE})`);
  return value;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      minutes: { type: 'string' },
      report: { type: 'string' },
      replay: { type: 'string' },
      clean: { type: 'boolean', default: false },
      'keep-going': { type: 'boolean', default: false },
    },
    strict: true,
  });
  // No seed: a random one, printed first so any failure can be replayed.
  const seed = wholeNumber(values.seed, '--seed', randomInt(1, 2 ** 31));
  const replay = values.replay === undefined ? null : wholeNumber(values.replay, '--replay');
  const minutes = Number(values.minutes ?? (replay !== null ? '0' : '10'));
  if (!Number.isFinite(minutes) || minutes < 0) throw new Error(`--minutes must be a number of minutes (${USAGE})`);
  console.log(`soak seed ${seed}`);
  const runDir = createRunDir(`soak-${seed}`);
  const log = (line: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);
  log(`run directory ${runDir} (service logs)`);
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  const report = await runSoak({ seed, minutes, replay, clean: values.clean, keepGoing: values['keep-going'], runDir, commit, log });
  log(`${report.steps} steps in ${report.duration_s} s: ${report.ok ? 'every invariant held after every step' : `${report.failures.length} failure(s)`}`);
  if (report.first_failure) log(`first failure: seed ${seed}, step ${report.first_failure.step}, invariant ${report.first_failure.invariant}`);
  writeReport(report, values.report);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error((error as Error).message);
    process.exit(2);
  },
);
