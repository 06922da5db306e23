// A Node gateway using the packed SDK (copied next to an install of the tarball by
// sdk-outbox-crash.e2e-spec.ts): makes CALLS streamed chat completions through ledgerFetch with an
// outbox, printing `done <event_id>` once each call's report is durable, then flushes and prints
// `flushed <json>`. Killed with SIGKILL mid-run by the test, then started again.
import { LedgerClient, ledgerFetch } from '@contributor-ledger/sdk';

const env = (name) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const ledger = new LedgerClient({ baseUrl: env('LEDGER_URL'), apiKey: env('LEDGER_KEY'), outboxDir: env('OUTBOX_DIR'), outboxIntervalMs: 200, retry: { attemptsMax: 1 } });
const fetchWithLedger = ledgerFetch(fetch, {
  ledger,
  attribution: (request) => ({ event_id: request.headers.get('x-call-id'), user_id: 'u_42', contributor_id: 'c_std', model: 'openai/gpt-4o' }),
});
const calls = Number(env('CALLS'));
for (let i = 0; i < calls; i += 1) {
  const eventId = `${env('RUN')}-call-${i}`;
  const response = await fetchWithLedger(`${env('UPSTREAM_URL')}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-call-id': eventId },
    body: JSON.stringify({ model: 'fixture:03-openai-tool-single-fragmented', stream: true, messages: [{ role: 'user', content: `call ${i}` }] }),
  });
  await response.arrayBuffer();
  await ledger.flush();
  console.log(`done ${eventId}`);
}
console.log(`flushed ${JSON.stringify(await ledger.flush())}`);
ledger.close();
