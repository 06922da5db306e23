// Scenario 1's load, shared by the reliability run (built API replicas as child processes) and
// the scaled-down integration test (in-process app): unique events plus duplicates, sent at the
// same time over the single, batch and queue paths, with a few events raced on every path at once.
import { chunk, runPool, sendBatch, sendSingle, type Client } from './http-client.js';
import type { QueueClient } from './queue-client.js';
import { generateEvents, planSends, type IngestPath, type UsageBody } from './usage-oracle.js';

export interface ExactlyOnceLoad {
  events: UsageBody[];
  sends: number;
  duplicates: number;
  sentByPath: Record<IngestPath, number>;
  /** event_ids acknowledged by the HTTP paths (2xx / batch item status); queue acks come from the DB. */
  acknowledged: Set<string>;
  ackedByPath: Record<IngestPath, number>;
  /** HTTP sends answered as replays (200 Idempotent-Replayed or batch item `duplicate`). */
  replayedHttp: number;
  httpNotAcked: number;
  durationMs: number;
}

const BATCH_SIZE = 100;

export async function runExactlyOnceLoad(input: {
  clients: Client[];
  queue: QueueClient;
  totalSends: number;
  duplicateRatio: number;
  raceEvents: number;
  seed: number;
  prefix: string;
  concurrency: number;
}): Promise<ExactlyOnceLoad> {
  const uniqueCount = Math.round(input.totalSends * (1 - input.duplicateRatio));
  const events = generateEvents({ prefix: input.prefix, count: uniqueCount, seed: input.seed });
  // Race set: each sent once per HTTP replica, once in a batch and once on the queue, all at once.
  const raceWays = input.clients.length + 2;
  const race = events.slice(0, input.raceEvents);
  const raceDuplicates = race.length * (raceWays - 1);
  const planned = events.slice(input.raceEvents);
  const planDuplicateRatio = (input.totalSends - uniqueCount - raceDuplicates) / (input.totalSends - race.length * raceWays);
  const sends = planSends({ events: planned, duplicateRatio: planDuplicateRatio, seed: input.seed + 1, paths: ['single', 'batch', 'queue'] });

  const acknowledged = new Set<string>();
  const ackedByPath: Record<IngestPath, number> = { single: 0, batch: 0, queue: 0 };
  const sentByPath: Record<IngestPath, number> = { single: 0, batch: 0, queue: 0 };
  let replayedHttp = 0;
  let httpNotAcked = 0;
  let rr = 0;
  const nextClient = () => input.clients[rr++ % input.clients.length]!;

  const single = async (event: UsageBody) => {
    sentByPath.single += 1;
    const r = await sendSingle(nextClient(), event);
    if (r.acked) {
      acknowledged.add(event.event_id);
      ackedByPath.single += 1;
      if (r.replayed) replayedHttp += 1;
    } else {
      httpNotAcked += 1;
    }
  };
  const batch = async (group: UsageBody[]) => {
    sentByPath.batch += group.length;
    const r = await sendBatch(nextClient(), group);
    for (const id of r.acked) acknowledged.add(id);
    ackedByPath.batch += r.acked.length;
    replayedHttp += r.duplicates;
    httpNotAcked += group.length - r.acked.length;
  };
  const queued = async (event: UsageBody) => {
    sentByPath.queue += 1;
    if (await input.queue.publish(event)) ackedByPath.queue += 1;
  };

  const started = Date.now();
  const raceAll = Promise.all(
    race.flatMap((event) => [...input.clients.map((client) => sendSingle(client, event).then((r) => {
      sentByPath.single += 1;
      if (r.acked) {
        acknowledged.add(event.event_id);
        ackedByPath.single += 1;
        if (r.replayed) replayedHttp += 1;
      } else httpNotAcked += 1;
    })), batch([event]), queued(event)]),
  );
  const byPath = (path: IngestPath) => sends.filter((s) => s.path === path).map((s) => s.body);
  await Promise.all([
    raceAll,
    runPool(byPath('single'), input.concurrency, single),
    runPool(chunk(byPath('batch'), BATCH_SIZE), Math.max(1, Math.floor(input.concurrency / 8)), batch),
    runPool(byPath('queue'), input.concurrency, queued),
  ]);
  return {
    events,
    sends: sends.length + race.length * raceWays,
    duplicates: sends.filter((s) => s.duplicate).length + raceDuplicates,
    sentByPath,
    acknowledged,
    ackedByPath,
    replayedHttp,
    httpNotAcked,
    durationMs: Date.now() - started,
  };
}
