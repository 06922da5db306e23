// Without --clean the soak's database outlives its own Postgres (whose data directory goes with the
// run): it is copied (pg_dump | psql) into a database `soak_<seed>_<time>` on the machine's shared
// Postgres, and the report's database_url names that copy.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { POSTGRES_ADMIN_URL } from '../lib/bench-stack.js';
import type { SoakStack } from './soak-stack.js';

function postgresBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const version = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', name))).sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error(`no ${name} under ${root}/*/bin`);
  return join(root, version, 'bin', name);
}

export async function keepDatabase(stack: SoakStack, seed: number, log: (line: string) => void): Promise<string> {
  const name = `soak_${seed}_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const target = POSTGRES_ADMIN_URL.replace(/\/postgres$/, `/${name}`);
  await new Promise<void>((resolve, reject) => {
    const dump = spawn(postgresBin('pg_dump'), ['--no-owner', stack.databaseUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
    const restore = spawn(postgresBin('psql'), ['-q', '-v', 'ON_ERROR_STOP=0', target], { stdio: ['pipe', 'ignore', 'ignore'] });
    dump.stdout.pipe(restore.stdin);
    restore.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql exit ${code}`))));
    dump.on('error', reject);
  });
  log(`database kept: ${target}`);
  return target;
}
