// A gateway that keeps its own outbox: every event is tried once during the fault, then every
// event without a 2xx is resent (same payload, same event_id) until acknowledged. This is the
// client half of "no acknowledged event lost": the service may lose an unacknowledged request,
// never an acknowledged one, and a resend of something it did commit must be a replay.
import { chunk, runPool, sendBatch, sendSingle, type Client } from './http-client.js';
import { sleep } from '../../../scripts/lib/processes.js';
import type { UsageBody } from './usage-oracle.js';

const BATCH_SIZE = 50;
/** After a network error a lane waits a little, as a real client would, instead of spinning. */
const FAILURE_PAUSE_MS = 250;
const RESEND_ROUNDS_MAX = 20;
const RESEND_PAUSE_MS = 500;

export interface Outbox {
  events: UsageBody[];
  /** The endpoint each event was first sent to; resends use the same one. */
  pathOf: Map<string, 'single' | 'batch'>;
  /** event_id -> acknowledged (2xx or a batch item status) at least once. */
  acked: Set<string>;
  /** Events tried so far in the first pass (acknowledged or not): drives fault timing. */
  attempted: number;
  /** Acknowledged during the first pass, i.e. while faults were being injected. */
  ackedFirstPass: number;
  /** Resends answered as replays: committed earlier without the client knowing. */
  replayedOnResend: number;
  resendRounds: number;
  resent: number;
}

export function newOutbox(events: UsageBody[]): Outbox {
  return { events, pathOf: new Map(), acked: new Set(), attempted: 0, ackedFirstPass: 0, replayedOnResend: 0, resendRounds: 0, resent: 0 };
}

async function deliverSingles(client: Client, outbox: Outbox, events: UsageBody[], concurrency: number, resend: boolean): Promise<void> {
  await runPool(events, concurrency, async (event) => {
    if (!resend) outbox.attempted += 1;
    const r = await sendSingle(client, event);
    if (r.acked) {
      outbox.acked.add(event.event_id);
      if (resend && r.replayed) outbox.replayedOnResend += 1;
    } else {
      await sleep(FAILURE_PAUSE_MS);
    }
  });
}

async function deliverBatches(client: Client, outbox: Outbox, events: UsageBody[], concurrency: number, resend: boolean): Promise<void> {
  await runPool(chunk(events, BATCH_SIZE), concurrency, async (group) => {
    if (!resend) outbox.attempted += group.length;
    const r = await sendBatch(client, group);
    for (const id of r.acked) outbox.acked.add(id);
    if (resend) outbox.replayedOnResend += r.duplicates;
    if (r.status !== 200) await sleep(FAILURE_PAUSE_MS);
  });
}

/** First pass: each event once, half over the single endpoint and half in batches. */
export async function firstPass(client: Client, outbox: Outbox, concurrency: { single: number; batch: number }): Promise<void> {
  const singles = outbox.events.filter((_, i) => i % 2 === 0);
  const batched = outbox.events.filter((_, i) => i % 2 === 1);
  for (const e of singles) outbox.pathOf.set(e.event_id, 'single');
  for (const e of batched) outbox.pathOf.set(e.event_id, 'batch');
  await Promise.all([
    deliverSingles(client, outbox, singles, concurrency.single, false),
    deliverBatches(client, outbox, batched, concurrency.batch, false),
  ]);
  outbox.ackedFirstPass = outbox.acked.size;
}

/** Resends every event without an acknowledgement over the path it first took, until none is left. */
export async function resendUnacknowledged(client: Client, outbox: Outbox): Promise<void> {
  const pathOf = outbox.pathOf;
  for (let round = 1; round <= RESEND_ROUNDS_MAX; round += 1) {
    const missing = outbox.events.filter((e) => !outbox.acked.has(e.event_id));
    if (missing.length === 0) return;
    outbox.resendRounds = round;
    outbox.resent += missing.length;
    await Promise.all([
      deliverSingles(client, outbox, missing.filter((e) => pathOf.get(e.event_id) === 'single'), 16, true),
      deliverBatches(client, outbox, missing.filter((e) => pathOf.get(e.event_id) === 'batch'), 2, true),
    ]);
    await sleep(RESEND_PAUSE_MS);
  }
}

/**
 * Steady load until stop(): lanes take fresh events from `next()` (single lanes one at a time,
 * batch lanes BATCH_SIZE at a time) and add them to the outbox, so the load spans a fault whose
 * timing is driven by the test rather than by how fast this machine drains a fixed list.
 */
export function steadyLoad(input: { client: Client; outbox: Outbox; next: () => UsageBody; lanes: { single: number; batch: number }; pauseMs: number }) {
  let stopped = false;
  const { client, outbox } = input;
  const take = (n: number, path: 'single' | 'batch') => {
    const taken = Array.from({ length: n }, input.next);
    outbox.events.push(...taken);
    for (const e of taken) outbox.pathOf.set(e.event_id, path);
    outbox.attempted += n;
    return taken;
  };
  const singleLane = async () => {
    while (!stopped) {
      const [event] = take(1, 'single');
      const r = await sendSingle(client, event!);
      if (r.acked) outbox.acked.add(event!.event_id);
      await sleep(r.acked ? input.pauseMs : FAILURE_PAUSE_MS);
    }
  };
  const batchLane = async () => {
    while (!stopped) {
      const group = take(BATCH_SIZE, 'batch');
      const r = await sendBatch(client, group);
      for (const id of r.acked) outbox.acked.add(id);
      await sleep(r.status === 200 ? input.pauseMs : FAILURE_PAUSE_MS);
    }
  };
  const lanes = [...Array.from({ length: input.lanes.single }, singleLane), ...Array.from({ length: input.lanes.batch }, batchLane)];
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(lanes);
      outbox.ackedFirstPass = outbox.acked.size;
    },
  };
}
