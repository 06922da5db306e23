// A plain pg client on a suite's test database, for specs that read or alter tables directly
// (what the API does not show: checkpoints, frontiers, a drift made by hand).
import pg from 'pg';
import type { TestApp } from './test-app.js';

/** terminating connection due to administrator command (pg_terminate_backend, DROP DATABASE ... FORCE). */
const ADMIN_SHUTDOWN = '57P01';

/**
 * For the enclosing describe: a client connected in a beforeAll (after the hooks declared before
 * this call, such as the app's start) and ended in an afterAll. Use it inside tests and hooks.
 */
export function suiteSql(t: TestApp): pg.Client {
  let client: pg.Client | null = null;
  let unexpected: Error | null = null;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: t.databaseUrl });
    // The app's close (an afterAll declared before this one, so it runs first) drops the database
    // WITH (FORCE): the server ends this idle connection (57P01), then the socket closes. Any other
    // error of the idle connection fails the suite.
    let endedByServer = false;
    client.on('error', (error: Error & { code?: string }) => {
      if (error.code === ADMIN_SHUTDOWN) endedByServer = true;
      else if (!endedByServer) unexpected = error;
    });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end().catch(() => undefined);
    if (unexpected) throw unexpected;
  });
  return new Proxy({} as pg.Client, {
    get(_target, property) {
      if (!client) throw new Error('suiteSql: the client is not connected yet: use it inside a test or hook');
      const value: unknown = Reflect.get(client, property);
      return typeof value === 'function' ? value.bind(client) : value;
    },
  });
}
