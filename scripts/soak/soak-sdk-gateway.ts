// The SDK gateway of the soak, run as a child process (node --import tsx) so it can be killed with
// -9: a LedgerClient from the built sdk/ with its durable outbox, and a loopback HTTP port on which
// the soak hands it usage reports. POST /report answers 200 once the report is on disk (the SDK's
// report() resolves after the outbox write and one delivery attempt); POST /flush sends what the
// outbox holds. Reports the ledger refuses for good are appended to refused.ndjson for the soak.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { LedgerClient, type UsageEventBody } from '../../sdk/dist/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const outboxDir = env('SOAK_OUTBOX_DIR');
const ledger = new LedgerClient({
  baseUrl: env('SOAK_LEDGER_URL'),
  apiKey: env('SOAK_LEDGER_KEY'),
  outboxDir,
  outboxIntervalMs: 1_000,
  requestTimeoutMs: 10_000,
  onReportError: (error, report) => appendFileSync(join(outboxDir, '..', 'refused.ndjson'), `${JSON.stringify({ event_id: report?.event_id, error: error.message })}\n`),
});

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'POST' && req.url === '/report') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as UsageEventBody;
      ledger.report({ kind: 'event', event_id: body.event_id, body }).then(
        () => answer(200, { accepted: body.event_id }),
        (error: Error) => answer(500, { error: error.message }),
      );
      return;
    }
    if (req.method === 'POST' && req.url === '/flush') {
      ledger.flush().then((r) => answer(200, r), (error: Error) => answer(500, { error: error.message }));
      return;
    }
    answer(404, { error: 'not found' });
  });
});
server.listen(Number(env('SOAK_GATEWAY_PORT')), '127.0.0.1', () => console.log(`sdk gateway ready (pid ${process.pid})`));
