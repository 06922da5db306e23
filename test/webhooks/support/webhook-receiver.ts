// A real local HTTP receiver (127.0.0.1, a free port) that verifies every delivery with the
// standardwebhooks package, as a customer would, and answers as the test scripts it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  verified: boolean;
  verifyError: string | null;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
  rawBody: string;
  answeredStatus: number | null;
  /** When the request had arrived in full (Date.now()). */
  receivedAtMs: number;
}

/** What to do with the next request: answer a status, or hang (never answer). */
export type Answer = number | 'hang';

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Answers to give, in order, before falling back to `fallback`. */
  script: Answer[];
  fallback: Answer;
  /** The secret to verify with (set after the endpoint is registered). */
  secret: string | null;
  verifiedOf(type?: string): ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const hanging: ServerResponse[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    script: [],
    fallback: 200,
    secret: null,
    verifiedOf: (type) => receiver.received.filter((r) => r.verified && (type === undefined || r.body.type === type)),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(req.headers['webhook-id'] ?? ''), 'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''), 'webhook-signature': String(req.headers['webhook-signature'] ?? '') };
      let verified = false;
      let verifyError: string | null = null;
      try {
        if (!receiver.secret) throw new Error('no secret set');
        new Webhook(receiver.secret).verify(rawBody, headers);
        verified = true;
      } catch (error) {
        verifyError = (error as Error).message;
      }
      const answer = receiver.script.length > 0 ? receiver.script.shift()! : receiver.fallback;
      receiver.received.push({ id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], verified, verifyError, body: JSON.parse(rawBody || '{}'), rawBody, answeredStatus: answer === 'hang' ? null : answer, receivedAtMs: Date.now() });
      if (answer === 'hang') return void hanging.push(res);
      res.statusCode = answer;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
