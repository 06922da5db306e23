// kill -9 of the worker in the middle of a delivery: the delivery is still made (the next worker
// sends it again, same webhook-id: at least once). The worker is src/worker.ts in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { holdExpired, startWebhookHarness, type WebhookHarness } from './support/webhook-harness.js';
import { waitFor } from '../support/test-worker.js';

const register = fileURLToPath(new URL('../support/ts-node/swc-register.mjs', import.meta.url));
const workerEntry = fileURLToPath(new URL('../../src/worker.ts', import.meta.url));

let h: WebhookHarness;
let receiver: WebhookReceiver;
const children: ChildProcess[] = [];

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', register, workerEntry], {
    env: { ...process.env, ...h.env, LOG_LEVEL: 'error', SETTLEMENT_SCHEDULER_ENABLED: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

beforeAll(async () => {
  h = await startWebhookHarness('webhook_worker_crash');
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await h?.close();
  await receiver?.close();
});

describe('webhook delivery across a worker crash', () => {
  it('still delivers an event whose delivery was cut off by kill -9', async () => {
    const created = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url: receiver.url, events: ['hold.expired'] }).expect(201);
    receiver.secret = created.body.secret;
    receiver.script = ['hang'];
    await h.emit([holdExpired('crash-1')]);
    const first = startWorkerProcess();
    // The first attempt reached the receiver, which holds it open: the worker is mid-delivery.
    await waitFor(async () => receiver.received.length >= 1, 60_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const [attempt] = await h.sql<{ finished_at: Date | null }>(`SELECT finished_at FROM webhook_attempts`);
    expect(attempt!.finished_at).toBeNull(); // the log shows the attempt the crash cut off

    startWorkerProcess();
    const delivery = await waitFor(async () => {
      const res = await h.t.admin(h.t.http.get(`/v1/admin/webhooks/${created.body.id}/deliveries`)).expect(200);
      return res.body.data[0]?.status === 'delivered' && res.body.data[0];
    }, 90_000);
    expect(receiver.received.map((r) => r.id)).toEqual([delivery.event.id, delivery.event.id]);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(delivery.attempts).toBe(2);
    expect(delivery.attempt_log.map((a: { finished_at: string | null; status_code: number | null }) => [a.finished_at !== null, a.status_code])).toEqual([
      [false, null],
      [true, 200],
    ]);
  }, 180_000);
});
