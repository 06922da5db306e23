// Webhook receivers on loopback for the soak: one always answers 200, one is sometimes slow, one
// sometimes dead (500 or the socket destroyed). The schedule switches the modes (op webhook_mode);
// the service must deliver to the healthy one whatever the others do.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { parseUsdToAtto } from '../../src/common/money/index.js';
import { LOOPBACK_HOST } from '../lib/processes.js';

export type ReceiverMode = 'ok' | 'slow' | 'dead' | 'error';
export const RECEIVER_NAMES = ['healthy', 'flaky-slow', 'flaky-dead'] as const;
export type ReceiverName = (typeof RECEIVER_NAMES)[number];
const SLOW_ANSWER_MS = 8_000;

export interface WebhookReceivers {
  urls: Record<ReceiverName, string>;
  setMode(name: ReceiverName, mode: ReceiverMode): void;
  /** Deliveries received (any answer) per receiver, and distinct webhook-ids per receiver. */
  received: Record<ReceiverName, { requests: number; ids: Set<string> }>;
  /**
   * user.budget_threshold_crossed per receiver: webhook-ids per (user, budget, period_start,
   * threshold), and alerts whose spent was below threshold x limit in their own data.
   */
  budgetAlerts: Record<ReceiverName, { ids: Map<string, Set<string>>; unreached: string[] }>;
  /** Distinct webhook-ids per event type per receiver. */
  byType: Record<ReceiverName, Map<string, Set<string>>>;
  /** user.topup_requested per receiver, in the order they first arrived: webhook-ids per request id. */
  topupRequests: Record<ReceiverName, Map<string, TopupRequestSeen>>;
  close(): Promise<void>;
}

export interface TopupRequestSeen {
  request_id: string;
  user_id: string;
  amount_usd: string;
  ids: Set<string>;
}

export async function startWebhookReceivers(): Promise<WebhookReceivers> {
  const modes: Record<ReceiverName, ReceiverMode> = { healthy: 'ok', 'flaky-slow': 'ok', 'flaky-dead': 'ok' };
  const received = Object.fromEntries(RECEIVER_NAMES.map((n) => [n, { requests: 0, ids: new Set<string>() }])) as WebhookReceivers['received'];
  const budgetAlerts = Object.fromEntries(RECEIVER_NAMES.map((n) => [n, { ids: new Map<string, Set<string>>(), unreached: [] as string[] }])) as WebhookReceivers['budgetAlerts'];
  const topupRequests = Object.fromEntries(RECEIVER_NAMES.map((n) => [n, new Map<string, TopupRequestSeen>()])) as WebhookReceivers['topupRequests'];
  const byType = Object.fromEntries(RECEIVER_NAMES.map((n) => [n, new Map<string, Set<string>>()])) as WebhookReceivers['byType'];
  const servers: Server[] = [];
  const urls = {} as Record<ReceiverName, string>;
  for (const name of RECEIVER_NAMES) {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received[name].requests += 1;
        const id = req.headers['webhook-id'];
        if (typeof id === 'string') {
          received[name].ids.add(id);
          noteSpendEvent(budgetAlerts[name], topupRequests[name], byType[name], id, Buffer.concat(chunks).toString('utf8'));
        }
        const mode = modes[name];
        if (mode === 'dead') return req.socket.destroy();
        if (mode === 'error') return res.writeHead(500).end('receiver down');
        if (mode === 'slow') return void setTimeout(() => res.writeHead(200).end('ok'), SLOW_ANSWER_MS).unref();
        res.writeHead(200).end('ok');
      });
    });
    server.listen(0, LOOPBACK_HOST);
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('webhook receiver has no port');
    urls[name] = `http://${LOOPBACK_HOST}:${address.port}/hook/${name}`;
    servers.push(server);
  }
  return {
    urls,
    received,
    budgetAlerts,
    topupRequests,
    byType,
    setMode: (name, mode) => {
      modes[name] = mode;
    },
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
}

/** Exact: spent >= threshold x limit, in decimal strings (threshold a fraction like "0.5"). */
function reached(spentUsd: string, thresholdText: string, limitUsd: string): boolean {
  const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });
  const [whole, decimals = ''] = thresholdText.split('.');
  return atto(spentUsd) * 10n ** BigInt(decimals.length) >= atto(limitUsd) * BigInt(`${whole}${decimals}`);
}

function noteSpendEvent(into: WebhookReceivers['budgetAlerts'][ReceiverName], topups: Map<string, TopupRequestSeen>, byType: Map<string, Set<string>>, webhookId: string, body: string): void {
  let event: { type?: string; data?: Record<string, string> };
  try {
    event = JSON.parse(body);
  } catch {
    return;
  }
  if (typeof event.type === 'string') byType.set(event.type, (byType.get(event.type) ?? new Set<string>()).add(webhookId));
  if (event.type === 'user.topup_requested' && event.data) {
    const d = event.data;
    const seen = topups.get(d.request_id!) ?? { request_id: d.request_id!, user_id: d.user_id!, amount_usd: d.amount_usd!, ids: new Set<string>() };
    seen.ids.add(webhookId);
    topups.set(d.request_id!, seen);
    return;
  }
  if (event.type !== 'user.budget_threshold_crossed' || !event.data) return;
  const d = event.data;
  const key = `${d.user_id}:${d.budget_id}:${d.period_start}:${d.threshold}`;
  const ids = into.ids.get(key) ?? new Set<string>();
  ids.add(webhookId);
  into.ids.set(key, ids);
  if (!reached(d.spent_usd!, d.threshold!, d.limit_usd!)) into.unreached.push(`${key} spent ${d.spent_usd} limit ${d.limit_usd}`);
}
