// The bench's floor (docs/operations.md "The bench's floor phase", issue 35): the cheapest correct
// service of this kind on this machine. A minimal Fastify 5 + `pg` server, no Nest, no zod, no
// auth: POST /v1/usage-events takes the same single-event JSON as the service, queues it, and each
// group of queued events is committed in one transaction (one statement: a multi-row insert of the
// events under their unique event_id, and one upsert of the balances they move, in key order);
// every request is answered after its group commits. Plain JavaScript, run by plain `node`, so
// that its CPU is the server's only (no TypeScript loader).
//
// env: DATABASE_URL, PORT; FLOOR_POOL_MAX (4), FLOOR_TX_CONCURRENCY (2), FLOOR_GROUP_MAX (64).
import Fastify from 'fastify';
import pg from 'pg';

const POOL_MAX = Number(process.env.FLOOR_POOL_MAX ?? 4);
const TX_CONCURRENCY = Number(process.env.FLOOR_TX_CONCURRENCY ?? 2);
const GROUP_MAX = Number(process.env.FLOOR_GROUP_MAX ?? 64);
/** atto-USD per token: a fixed price, so the amount is exact integer arithmetic. */
const ATTO_PER_PROMPT_TOKEN = 2_500_000_000_000n;
const ATTO_PER_COMPLETION_TOKEN = 10_000_000_000_000n;

const FLOOR_SCHEMA_SQL = `
  CREATE TABLE IF NOT EXISTS floor_events (
    id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, user_id text NOT NULL, contributor_id text NOT NULL,
    model text NOT NULL, prompt_tokens int NOT NULL, completion_tokens int NOT NULL, cached_tokens int NOT NULL,
    reasoning_tokens int NOT NULL, charge_atto numeric(38, 0) NOT NULL, received_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE IF NOT EXISTS floor_balances (account text PRIMARY KEY, balance_atto numeric(38, 0) NOT NULL);`;

// One statement, so one transaction: the events new to the table, then the balances of their
// users (debited) and contributors (credited), summed per account and upserted in key order (two
// groups in flight lock the same rows in the same order, so they queue instead of deadlocking).
const GROUP_COMMIT = {
  name: 'floor-group-commit',
  text: `WITH ins AS (
      INSERT INTO floor_events (event_id, user_id, contributor_id, model, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, charge_atto)
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::int[], $9::numeric[])
      ON CONFLICT (event_id) DO NOTHING
      RETURNING user_id, contributor_id, charge_atto)
    INSERT INTO floor_balances AS b (account, balance_atto)
    SELECT account, sum(amount) FROM (
      SELECT 'user:' || user_id AS account, -charge_atto AS amount FROM ins
      UNION ALL SELECT 'contributor:' || contributor_id, charge_atto FROM ins) AS moves
    GROUP BY account ORDER BY account
    ON CONFLICT (account) DO UPDATE SET balance_atto = b.balance_atto + excluded.balance_atto`,
};

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: POOL_MAX });
const queue = [];
let inFlight = 0;

function flush() {
  while (inFlight < TX_CONCURRENCY && queue.length > 0) {
    const group = queue.splice(0, GROUP_MAX);
    inFlight += 1;
    const columns = Array.from({ length: 9 }, () => new Array(group.length));
    group.forEach(({ e, charge }, i) => {
      columns[0][i] = e.event_id;
      columns[1][i] = e.user_id;
      columns[2][i] = e.contributor_id;
      columns[3][i] = e.model;
      columns[4][i] = e.usage.prompt_tokens;
      columns[5][i] = e.usage.completion_tokens;
      columns[6][i] = e.usage.cached_tokens ?? 0;
      columns[7][i] = e.usage.reasoning_tokens ?? 0;
      columns[8][i] = charge;
    });
    pool.query({ ...GROUP_COMMIT, values: columns }).then(
      () => group.forEach((g) => g.resolve()),
      (error) => group.forEach((g) => g.reject(error)),
    ).finally(() => {
      inFlight -= 1;
      flush();
    });
  }
}

const isCount = (n) => Number.isInteger(n) && n >= 0 && n <= 2_147_483_647;
const app = Fastify({ logger: false });
app.post('/v1/usage-events', async (request, reply) => {
  const e = request.body;
  // The least a correct service checks before it writes.
  if (typeof e?.event_id !== 'string' || typeof e.user_id !== 'string' || typeof e.contributor_id !== 'string' || typeof e.model !== 'string' ||
      !isCount(e.usage?.prompt_tokens) || !isCount(e.usage.completion_tokens)) {
    return reply.code(400).send({ error: { code: 'validation_failed' } });
  }
  const charge = (BigInt(e.usage.prompt_tokens) * ATTO_PER_PROMPT_TOKEN + BigInt(e.usage.completion_tokens) * ATTO_PER_COMPLETION_TOKEN).toString();
  await new Promise((resolve, reject) => {
    queue.push({ e, charge, resolve, reject });
    flush();
  });
  return reply.code(201).send({ event_id: e.event_id, status: 'priced', charge_atto: charge });
});
app.get('/health', async () => ({ status: 'ok' }));

await pool.query(FLOOR_SCHEMA_SQL);
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`floor ready on ${app.server.address().port}`);
