// Issue 24 item 5 (api.md "Webhooks", last bullet): 60 receivers that accept the connection and
// never answer must not delay a healthy endpoint. Real worker, real Redis and Postgres, 61 local
// servers. Before the fix every hanging receiver held one of the worker's 8 dispatch slots for the
// 10 s timeout, and the healthy endpoint got its events after 10 s and more.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { holdExpired, startWebhookHarness, type WebhookHarness } from './support/webhook-harness.js';
import { waitFor } from '../support/test-worker.js';

const HANGING_RECEIVERS = 60;
const MEASURED_EVENTS = 8;
const EVENT_SPACING_MS = 500;
/** api.md's target is p99 < 2 s; the bound leaves room for a loaded shared machine, and stays far below the 10 s a hanging attempt holds a slot. */
const P99_BOUND_MS = 4_000;

let h: WebhookHarness;
let healthy: WebhookReceiver;
const hangers: Array<{ server: Server; sockets: Set<Socket>; url: string }> = [];

async function startHangingReceiver() {
  const sockets = new Set<Socket>();
  // Accepts the connection, reads the request, never answers.
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, sockets, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

async function register(url: string): Promise<{ id: string; secret: string }> {
  const res = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url, events: ['hold.expired'] }).expect(201);
  return res.body;
}

beforeAll(async () => {
  h = await startWebhookHarness('webhook_isolation');
  healthy = await startWebhookReceiver();
  for (let i = 0; i < HANGING_RECEIVERS; i += 1) {
    const hanger = await startHangingReceiver();
    hangers.push(hanger);
    await register(hanger.url);
  }
  healthy.secret = (await register(healthy.url)).secret;
  await h.startWorker();
}, 60_000);
afterAll(async () => {
  await h?.close();
  await healthy?.close();
  for (const { server, sockets } of hangers) {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('a dead receiver never delays a healthy one', () => {
  it(`delivers to the healthy endpoint with p99 < ${P99_BOUND_MS} ms while ${HANGING_RECEIVERS} receivers hang`, async () => {
    // Every hanging receiver gets a delivery first and holds it open.
    await h.emit([holdExpired('iso-warm')]);
    await waitFor(async () => hangers.filter((x) => x.sockets.size > 0).length === HANGING_RECEIVERS && healthy.received.length === 1, 20_000);

    const emittedAtMs = new Map<string, number>();
    for (let i = 0; i < MEASURED_EVENTS; i += 1) {
      const holdId = `iso-${i}`;
      emittedAtMs.set(holdId, Date.now());
      await h.emit([holdExpired(holdId)]);
      await new Promise((resolve) => setTimeout(resolve, EVENT_SPACING_MS));
    }
    await waitFor(async () => healthy.received.length === MEASURED_EVENTS + 1, 30_000);
    const latenciesMs = healthy.received
      .filter((r) => emittedAtMs.has(String(r.body.data.hold_id)))
      .map((r) => r.receivedAtMs - emittedAtMs.get(String(r.body.data.hold_id))!)
      .sort((a, b) => a - b);
    const p99Ms = latenciesMs[Math.ceil(latenciesMs.length * 0.99) - 1]!;
    // The figure docs/webhooks.md quotes.
    process.stdout.write(`healthy endpoint delivery latency with ${HANGING_RECEIVERS} hanging: p50 ${latenciesMs[Math.floor(latenciesMs.length / 2)]} ms, max ${p99Ms} ms (${latenciesMs.join(', ')})\n`);
    expect(healthy.received.every((r) => r.verified)).toBe(true);
    expect(p99Ms).toBeLessThan(P99_BOUND_MS);
    // The hanging ones are still being tried (each holds its own lane, nothing else).
    expect(hangers.filter((x) => x.sockets.size > 0).length).toBeGreaterThan(HANGING_RECEIVERS / 2);
  }, 60_000);
});
