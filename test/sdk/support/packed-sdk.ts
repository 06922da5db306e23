// The SDK as a gateway installs it: the tarball `npm pack` makes in sdk/, unpacked into
// <dir>/node_modules/@contributor-ledger/sdk. Its dependencies (and the optional peers a test asks
// for) are linked from the repository's node_modules: tests never reach the registry.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..');

const PACK_LOCK_WAIT_MS_MAX = 120_000;

/** npm pack rebuilds sdk/dist (prepack): two test files packing at once must not interleave. */
function packExclusively(dir: string): string {
  const lock = join(tmpdir(), `ledger-sdk-pack-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + PACK_LOCK_WAIT_MS_MAX;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    return execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: join(ROOT, 'sdk'), encoding: 'utf8' }).trim().split('\n').at(-1)!;
  } finally {
    rmdirSync(lock);
  }
}

export function installPackedSdk(dir: string, peers: string[] = []): { dependencies: Record<string, string> } {
  const tarball = packExclusively(dir);
  const target = join(dir, 'node_modules', '@contributor-ledger', 'sdk');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', target, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const dependency of [...Object.keys(manifest.dependencies), ...peers]) {
    mkdirSync(dirname(join(dir, 'node_modules', dependency)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dependency), join(dir, 'node_modules', dependency));
  }
  return manifest;
}
