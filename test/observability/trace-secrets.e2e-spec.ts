// No secret in an exported span (api.md "Operations", issue 34 item 13): the RPC URL's path and
// query (where providers put their key) and a webhook URL's path and query were exported in
// `url.full`, `url.path` and `url.query` of the undici spans and `url.path` of webhook.deliver.
// API and worker run as child processes with tracing on (the instrumentations patch modules as
// Node loads them), export over OTLP/JSON to a receiver on 127.0.0.1, and call a real Anvil through
// a loopback proxy that, like a provider, answers only on its secret path and query; the webhook
// receiver's URL carries a token too. Every byte exported is searched for the secrets.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devchainEnv, startDevchain, type Devchain } from '../../scripts/lib/devchain.js';
import { findFreePort, waitForReady } from '../../scripts/lib/processes.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { createTestDatabase } from '../support/test-db.js';
import { TEST_ADMIN_KEY } from '../support/test-app.js';
import { waitFor } from '../support/wait-for.js';

const register = fileURLToPath(new URL('../support/ts-node/swc-register.mjs', import.meta.url));
const entry = (name: 'main' | 'worker') => fileURLToPath(new URL(`../../src/${name}.ts`, import.meta.url));
const SPAN_WAIT_MS = 60_000;
const CLIENT = 3;

const RPC_PATH_SECRET = `rpc-path-${randomBytes(8).toString('hex')}`;
const RPC_QUERY_SECRET = `rpc-query-${randomBytes(8).toString('hex')}`;
const HOOK_PATH_SECRET = `hook-path-${randomBytes(8).toString('hex')}`;
const HOOK_QUERY_SECRET = `hook-query-${randomBytes(8).toString('hex')}`;
const SECRETS = [RPC_PATH_SECRET, RPC_QUERY_SECRET, HOOK_PATH_SECRET, HOOK_QUERY_SECRET];

const children: ChildProcess[] = [];
const servers: Server[] = [];
let devchain: Devchain;
let receiver: OtlpReceiver;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let rpcOrigin: string;
let hookOrigin: string;
let baseUrl: string;
let rpcCalls = 0;
const hookCalls: string[] = [];

async function listen(handler: (req: IncomingMessage, body: Buffer) => Promise<{ status: number; body?: string }>): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handler(req, Buffer.concat(chunks)).then(
        (answer) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? ''),
        () => res.writeHead(502).end(),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function start(name: 'main' | 'worker', env: Record<string, string>): void {
  const child = spawn(process.execPath, ['--import', register, entry(name)], {
    env: { ...process.env, ...env, DATABASE_URL: db.url, ADMIN_API_KEY: TEST_ADMIN_KEY, QUEUE_PREFIX: `test-secrets-${randomBytes(4).toString('hex')}`, LOG_LEVEL: 'error', SETTLEMENT_SCHEDULER_ENABLED: 'false', OTEL_BSP_SCHEDULE_DELAY: '100' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
}

beforeAll(async () => {
  devchain = await startDevchain();
  // A provider-like RPC endpoint: the key is in the path and the query, anything else is 404.
  rpcOrigin = await listen(async (req, body) => {
    if (req.url !== `/v3/${RPC_PATH_SECRET}?apikey=${RPC_QUERY_SECRET}`) return { status: 404 };
    rpcCalls += 1;
    const answer = await fetch(devchain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: answer.status, body: await answer.text() };
  });
  hookOrigin = await listen(async (req) => {
    hookCalls.push(req.url ?? '');
    return { status: 204 };
  });
  receiver = await startOtlpReceiver();
  db = await createTestDatabase('trace_secrets');
  const port = await findFreePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...devchainEnv(devchain),
    RPC_URL: `${rpcOrigin}/v3/${RPC_PATH_SECRET}?apikey=${RPC_QUERY_SECRET}`,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '100',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  };
  start('main', { ...env, PORT: String(port) });
  start('worker', env);
  await waitForReady(`${baseUrl}/health`, undefined, 90_000);
}, 180_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await receiver?.close();
  await db?.drop();
  await devchain?.stop();
});

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const admin = (req: request.Test) => req.set('Authorization', `Bearer ${TEST_ADMIN_KEY}`);

it('exports chain RPC and webhook calls with scheme, host and port only: no path or query of either URL anywhere in a span', async () => {
  const http = request(baseUrl);
  const traceId = randomBytes(16).toString('hex');
  // Readiness asks the chain (inside the request's trace, so the fetch gets a span).
  await http.get('/health/ready').set('traceparent', `00-${traceId}-${randomBytes(8).toString('hex')}-01`).expect(200);
  expect(rpcCalls).toBeGreaterThan(0);
  // An address change emits contributor.payout_address_changed, which the worker delivers.
  await admin(http.post('/v1/admin/webhooks')).send({ url: `${hookOrigin}/hooks/${HOOK_PATH_SECRET}?token=${HOOK_QUERY_SECRET}`, events: ['contributor.payout_address_changed'] }).expect(201);
  await admin(http.put('/v1/admin/contributors/c_secret')).send({ tier: 'standard', payout_address: randomAddress() }).expect(201);
  await admin(http.put('/v1/admin/contributors/c_secret')).send({ tier: 'standard', payout_address: randomAddress() }).expect(200);

  const spans = await waitFor(async () => {
    const rpc = receiver.spans.filter((s) => s.traceId === traceId && s.kind === CLIENT && typeof s.attributes['url.full'] === 'string');
    const deliver = receiver.spans.filter((s) => s.name === 'webhook.deliver');
    return hookCalls.length > 0 && rpc.length > 0 && deliver.length > 0 && { rpc, deliver };
  }, SPAN_WAIT_MS);
  expect(hookCalls[0]).toBe(`/hooks/${HOOK_PATH_SECRET}?token=${HOOK_QUERY_SECRET}`);
  const urlAttributes = (span: ReceivedSpan) => Object.fromEntries(Object.entries(span.attributes).filter(([key]) => key.startsWith('url.') || key === 'http.url' || key === 'http.target'));
  for (const span of spans.rpc) expect(urlAttributes(span)).toEqual({ 'url.full': rpcOrigin, 'url.scheme': 'http' });
  for (const span of spans.deliver) {
    expect(urlAttributes(span)).toEqual({});
    expect(span.attributes['server.address']).toBe('127.0.0.1');
  }
  // Nothing exported, by either process, in any span, attribute, event or status.
  const exported = receiver.rawBodies.map((body) => body.toString('utf8')).join('\n');
  for (const secret of SECRETS) expect({ secret, found: exported.includes(secret) }).toEqual({ secret, found: false });
}, 120_000);
