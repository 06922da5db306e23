// `npm run test:e2e`: the web console in Debian's Chromium against the real stack (API serving the
// built console, worker, Postgres, Redis, Anvil). An admin signs in, checks the overview against
// GET /v1/admin/overview, finds a contributor, prices the unpriced events, approves a settlement and
// watches it confirm on chain; adds a price with a variant, a tier and a fee; adds a webhook endpoint
// (secret shown once), reads its delivery log, retries one, enables one the service disabled and
// removes one; issues a refund (a 422 first, shown as is); a contributor signs in and sees only its
// own earnings and payouts and its statement (figures, CSV and PDF equal to the API's); a bad key is
// refused. Screenshots of every screen go to $CONSOLE_SCREENSHOTS (docs/console with
// `npm run docs:console`), else to a temporary folder.
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { getAddress, hexToString, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { displayUsd, formatDecimal, formatUsdc, parseDecimal, roundUnits } from '../../web/src/money/decimal.js';
import { exampleEvent, seedBilling } from '../support/billing-fixtures.js';
import { launchChromium } from './support/browser.js';
import { startConsoleStack, type ConsoleStack } from './support/console-stack.js';

const UNPRICED_MODEL = 'lab/unreleased-model';
const DESKTOP = { width: 1280, height: 800 };
const NARROW = { width: 390, height: 844 };
const CONFIRM_TIMEOUT_MS = 60_000;
const OVERVIEW_MONEY_FIELDS = ['charged_usd', 'revenue_usd', 'breakage_usd', 'users_balance_usd', 'granted_usd', 'held_usd', 'contributors_payable_usd', 'in_settlement_usd', 'paid_usd'];
const BALANCE_FIELDS = ['payable_usd', 'in_settlement_usd', 'paid_usd', 'accrued_usd'];
/** Anvil dev key #3 (public, default mnemonic): the injected wallet stub of the portal signs with it. */
const ANVIL_KEY_WALLET: Hex = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const PROOF_REFUSED_WRONG_KEY = "payout address proof refused: the signature is not the address's signature of the challenge message";

let stack: ConsoleStack;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let context: BrowserContext;
let page: Page;
let shotsDir: string;
const cspViolations: string[] = [];
const pageErrors: string[] = [];
let contributorKey = '';
let settlementId = '';
/** A webhook receiver on 127.0.0.1 (the stack allows private addresses): every POST it got. */
let receiver: Server;
let receiverUrl = '';
const received: Array<{ headers: Record<string, string>; body: string }> = [];
const goneReceived: string[] = [];
let goneWebhookId = '';
let webhookSecret = '';
let webhookId = '';

async function startReceiver(): Promise<void> {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      // /gone answers 410 Gone once (the service disables the endpoint at once), then 204.
      if (request.url === '/gone') {
        goneReceived.push(body);
        response.writeHead(goneReceived.length === 1 ? 410 : 204).end();
        return;
      }
      received.push({ headers: request.headers as Record<string, string>, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
}

async function waitUntil(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage: true });
}

/** The figure shown for one API field: its exact string (data-value) and its text. */
async function stat(name: string): Promise<{ value: string | null; text: string }> {
  const figure = page.locator(`[data-stat="${name}"] dd [data-value]`).first();
  return { value: await figure.getAttribute('data-value'), text: (await figure.innerText()).trim() };
}

async function signIn(key: string): Promise<void> {
  await page.goto(`${stack.baseUrl}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Elements sticking out of the viewport to the right (empty when the page needs no sideways scrolling). */
async function overflowing(): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    return Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > width + 0.5 && !e.closest('.table-scroll'))
      .slice(0, 8)
      .map((e) => e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
  })()`);
}

async function seed(): Promise<void> {
  const { t } = stack;
  await seedBilling(t, { userCreditUsd: '500' });
  const gateway = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201)).body.key as string;
  const send = (event: Record<string, unknown>, status: number) => t.http.post('/v1/usage-events').set('Authorization', `Bearer ${gateway}`).send(event).expect(status);
  // Today (UTC) in the daily figures, also in the first hour of a day: an hour ago, or midnight if later.
  const todayStartMs = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const hourAgo = new Date(Math.max(Date.now() - 3600_000, todayStartMs)).toISOString();
  for (let i = 0; i < 12; i += 1) {
    const usage = { prompt_tokens: 1000 + 137 * i, completion_tokens: 200 + 41 * i, cached_tokens: 50 * (i % 3), reasoning_tokens: 0 };
    await send(exampleEvent({ event_id: `console-${i}`, contributor_id: i % 3 === 0 ? 'c_prem' : 'c_std', occurred_at: hourAgo, usage }), 201);
  }
  for (let i = 0; i < 3; i += 1) await send(exampleEvent({ event_id: `console-unpriced-${i}`, model: UNPRICED_MODEL, occurred_at: hourAgo }), 202);
}

beforeAll(async () => {
  shotsDir = process.env.CONSOLE_SCREENSHOTS ? resolve(process.env.CONSOLE_SCREENSHOTS) : mkdtempSync(join(tmpdir(), 'console-shots-'));
  mkdirSync(shotsDir, { recursive: true });
  // Above the approval threshold, so the settlement waits for the admin in the console.
  await startReceiver();
  stack = await startConsoleStack('console_browser', {
    SETTLEMENT_MIN_PAYOUT_USD: '0.01',
    SETTLEMENT_APPROVAL_THRESHOLD_USD: '0.01',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '100',
    // The default cool-down (test/setup/env.ts turns it off): a proven new address shows when it becomes payable.
    PAYOUT_ADDRESS_COOLDOWN_HOURS: '24',
  });
  await seed();
  ({ browser, close: closeBrowser } = await launchChromium());
  context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
  page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // A devchain, the API, a worker and Chromium start here: over a minute on a loaded 2-core machine.
}, 300_000);

afterAll(async () => {
  await closeBrowser?.();
  await stack?.close();
  await new Promise((done) => (receiver ? receiver.close(done) : done(undefined)));
});

describe('web console in Chromium', () => {
  it('is served with the strict CSP and refuses a bad key with the API message', async () => {
    const response = await page.goto(`${stack.baseUrl}/console/`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByLabel('API key').fill('not-a-real-key-0000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await expect(alert.locator('.error-message').innerText()).resolves.toBe('unknown or revoked API key');
    expect(await page.evaluate<number>('window.sessionStorage.length')).toBe(0);
    await shot('01-sign-in-refused');
  });

  it('signs in as admin and shows the overview figures of GET /v1/admin/overview', async () => {
    await signIn(stack.adminKey);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.locator('[data-stat="charged_usd"] [data-value]').waitFor();
    const overview = (await stack.get('/v1/admin/overview')).body;
    for (const field of OVERVIEW_MONEY_FIELDS) {
      const shown = await stat(field);
      expect({ field, ...shown }).toEqual({ field, value: overview[field], text: displayUsd(overview[field]) });
    }
    expect((await stat('unpriced_events')).value).toBe(String(overview.unpriced_events));
    expect(overview.unpriced_events).toBe(3);
    expect((await stat('hot_wallet.usdc')).value).toBe(overview.hot_wallet.usdc);
    // The key went into sessionStorage only, sent as Bearer: no cookie at all.
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate<string[]>('Object.keys(window.sessionStorage)')).toEqual(['ledger-console.api-key']);
    await page.getByRole('figure', { name: 'Charged vs paid out per day' }).waitFor();
    await shot('02-overview');
  });

  it('finds a contributor and shows its balances as the API has them', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contributors' }).click();
    await page.getByRole('table', { name: 'Contributors' }).waitFor();
    await shot('03-contributors');
    await page.getByRole('searchbox', { name: 'Find a contributor' }).fill('PREM');
    await page.getByRole('button', { name: 'Search' }).click();
    const table = page.getByRole('table', { name: 'Contributors matching “PREM”' });
    await table.waitFor();
    await expect(table.getByRole('row').count()).resolves.toBe(2);
    await table.getByRole('link', { name: 'c_prem' }).click();
    await page.getByRole('heading', { name: 'Contributor c_prem' }).waitFor();
    await page.locator('[data-stat="payable_usd"] [data-value]').waitFor();
    const contributor = (await stack.get('/v1/admin/contributors/c_prem')).body;
    for (const field of BALANCE_FIELDS) expect({ field, ...(await stat(field)) }).toEqual({ field, value: contributor[field], text: displayUsd(contributor[field]) });
    await page.getByRole('table', { name: 'Earnings by model' }).getByRole('cell', { name: 'openai/gpt-4o' }).waitFor();
    await shot('04-contributor-detail');
  });

  it('adds a webhook endpoint and shows its secret once', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('table', { name: 'Webhook endpoints' }).getByText('No endpoint registered.').waitFor();
    const form = page.getByRole('form', { name: 'Add a webhook endpoint' });
    await form.getByLabel('URL').fill(receiverUrl);
    await form.getByLabel('Description (optional)').fill('console e2e receiver');
    for (const type of ['settlement.created', 'settlement.confirmed', 'payout.paid']) await form.getByRole('checkbox', { name: type, exact: true }).check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const secretShown = form.locator('[data-webhook-secret]');
    webhookSecret = (await secretShown.innerText()).trim();
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    webhookId = (await form.locator('[data-webhook-created]').getAttribute('data-webhook-created'))!;
    const listed = (await stack.get('/v1/admin/webhooks')).body.data;
    expect(listed).toMatchObject([{ id: webhookId, url: receiverUrl, events: ['settlement.created', 'settlement.confirmed', 'payout.paid'], status: 'active' }]);
    expect(JSON.stringify(listed)).not.toContain(webhookSecret);
    await page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('cell', { name: receiverUrl, exact: true }).waitFor();
    await shot('19-webhook-created-secret-once');
    // Once: gone after "stored", and after a reload nothing on the page holds it.
    await form.getByRole('button', { name: 'I have stored it' }).click();
    await expect(form.locator('[data-webhook-secret]').count()).resolves.toBe(0);
    await page.reload();
    await page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('cell', { name: receiverUrl, exact: true }).waitFor();
    expect(await page.content()).not.toContain(webhookSecret);
    // A second endpoint (through the API) that answers 410 Gone to its first refund.created: disabled by the service, enabled in the console below.
    goneWebhookId = (await stack.t.admin(stack.t.http.post('/v1/admin/webhooks')).send({ url: receiverUrl.replace('/hooks', '/gone'), events: ['refund.created'] }).expect(201)).body.id;
  });

  it('adds the missing price and reprices the unpriced events', async () => {
    await page.getByRole('link', { name: 'Unpriced events' }).click();
    const table = page.getByRole('table', { name: 'Unpriced events by model' });
    await table.getByRole('cell', { name: UNPRICED_MODEL, exact: true }).waitFor();
    await shot('05-unpriced');
    await page.getByRole('button', { name: `Add a price for ${UNPRICED_MODEL}` }).click();
    const form = page.getByRole('form', { name: `Add a price for ${UNPRICED_MODEL}` });
    // In force from the first unpriced event (prefilled), so the reprice can price all of them.
    const first = (await stack.get('/v1/admin/usage-events/unpriced-by-model')).body.data[0].first_occurred_at;
    await expect(form.getByLabel('In force from (RFC 3339, empty = now)').inputValue()).resolves.toBe(first);
    await form.getByLabel('Input USD per 1M tokens', { exact: true }).fill('1.5');
    await form.getByLabel('Output USD per 1M tokens', { exact: true }).fill('6');
    await form.getByRole('button', { name: 'Add price' }).click();
    await form.getByRole('status').filter({ hasText: `saved for ${UNPRICED_MODEL}` }).waitFor();
    await page.getByRole('button', { name: 'Reprice unpriced events' }).click();
    await expect(page.locator('[data-reprice-result]').innerText()).resolves.toBe('Priced 3 events; 0 still unpriced.');
    await page.getByText('Every event is priced.').waitFor();
    expect((await stack.get('/v1/admin/overview')).body.unpriced_events).toBe(0);
    const prices = (await stack.get(`/v1/admin/prices?model=${encodeURIComponent(UNPRICED_MODEL)}`)).body.data;
    expect(prices).toMatchObject([{ model: UNPRICED_MODEL, input_usd_per_mtok: '1.5', output_usd_per_mtok: '6', effective_from: first }]);
    await shot('06-unpriced-repriced');
  });

  it('dry-runs, creates a settlement, approves it after seeing its total and watches it confirm on Anvil', async () => {
    await page.getByRole('link', { name: 'Settlements' }).click();
    await page.getByRole('table', { name: 'Settlements, newest first' }).getByText('No settlements yet.').waitFor();
    await page.getByRole('button', { name: 'Dry run' }).click();
    const plan = page.getByRole('table', { name: 'Dry run: who would be paid' });
    await plan.getByRole('cell', { name: 'c_std' }).waitFor();
    await expect(plan.getByRole('row').count()).resolves.toBe(3);
    await shot('07-settlement-dry-run');

    await page.getByRole('button', { name: 'Create settlement' }).click();
    const createDialog = page.getByRole('dialog', { name: 'Create a settlement?' });
    await createDialog.locator('[data-dry-run-total]').waitFor();
    await createDialog.getByRole('button', { name: 'Create settlement' }).click();
    await page.locator('[data-settlement-status="pending_approval"]').waitFor();
    settlementId = /\/console\/settlements\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    const pending = (await stack.get(`/v1/admin/settlements/${settlementId}`)).body;
    expect(pending).toMatchObject({ status: 'pending_approval', payout_count: 2, requires_approval: true });

    await page.getByRole('button', { name: 'Approve…' }).click();
    const approveDialog = page.getByRole('dialog', { name: 'Approve this settlement?' });
    await expect(approveDialog.getByTitle(`${pending.total_usdc} USDC`).innerText()).resolves.toBe(`${formatUsdc(pending.total_usdc)} USDC`);
    await shot('08-settlement-approve');
    await approveDialog.getByRole('button', { name: `Approve and pay ${pending.total_usdc} USDC` }).click();
    await page.locator('[data-settlement-status="confirmed"]').waitFor({ timeout: CONFIRM_TIMEOUT_MS });

    const confirmed = (await stack.get(`/v1/admin/settlements/${settlementId}`)).body;
    expect(confirmed.status).toBe('confirmed');
    const lines = page.getByRole('table', { name: 'Lines' });
    for (const line of confirmed.lines) {
      expect(line.status).toBe('paid');
      // Paid on chain: the address holds exactly the line's USDC, and the hash shown is the mined one.
      const micro = roundUnits(parseDecimal(line.amount_usdc), 6);
      expect(await stack.usdcBalance(getAddress(line.payout_address))).toBe(micro);
      await lines.locator(`[data-tx-hash="${line.tx_hash}"]`).first().waitFor();
      const receipt = await stack.chain.getTransactionReceipt({ hash: line.tx_hash });
      expect(receipt.status).toBe('success');
    }
    await page.getByRole('table', { name: 'Transactions' }).getByText('confirmed').first().waitFor();
    await shot('09-settlement-confirmed');
  });

  it('shows the webhook deliveries of the settlement (status code, latency, attempts) and retries one', async () => {
    // settlement.created, settlement.confirmed and one payout.paid per line, signed with the secret shown.
    await waitUntil(() => received.length >= 4);
    const verifier = new Webhook(webhookSecret);
    const types = received.map((r) => (verifier.verify(r.body, r.headers) as { type: string }).type);
    expect(types.sort()).toEqual(['payout.paid', 'payout.paid', 'settlement.confirmed', 'settlement.created']);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: `Deliveries of ${receiverUrl}` }).click();
    const log = page.getByRole('table', { name: `Delivery log of ${receiverUrl}, newest first` });
    await log.getByRole('cell', { name: 'settlement.created' }).waitFor();
    const deliveries = (await stack.get(`/v1/admin/webhooks/${webhookId}/deliveries`)).body.data as Array<Record<string, unknown>>;
    expect(deliveries).toHaveLength(4);
    for (const d of deliveries) expect(d).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 204 });
    const created = deliveries.find((d) => (d.event as { type: string }).type === 'settlement.created')!;
    const row = log.getByRole('row').filter({ has: page.getByRole('cell', { name: 'settlement.created' }) });
    await expect(row.locator('td[data-label="Last HTTP status"]').innerText()).resolves.toBe('204');
    await expect(row.locator('td[data-label="Latency"]').innerText()).resolves.toBe(`${String(created.last_latency_ms)} ms`);
    await expect(row.locator('td[data-label="Attempts"]').innerText()).resolves.toBe('1');
    await shot('20-webhook-deliveries');
    await row.getByRole('button', { name: `Retry delivery ${String(created.delivery_id)}` }).click();
    await waitUntil(() => received.length >= 5);
    expect(received[4]!.headers['webhook-id']).toBe((created.event as { id: string }).id);
    await row.locator('td[data-label="Attempts"]').getByText('2', { exact: true }).waitFor({ timeout: 15_000 });

  });

  it('shows the prices and a model history, the audit log and the ledger check', async () => {
    await page.getByRole('link', { name: 'Prices' }).click();
    const current = page.getByRole('table', { name: 'Prices in force now (USD per million tokens)' });
    await current.getByRole('link', { name: UNPRICED_MODEL }).waitFor();
    // A version with a variant, a context tier and a fee: the admin POST body of api.md.
    const priceForm = page.getByRole('form', { name: 'Add a price', exact: true });
    await priceForm.getByLabel('Model', { exact: true }).fill('lab/tiered');
    await priceForm.getByLabel('Input USD per 1M tokens', { exact: true }).fill('3');
    await priceForm.getByLabel('Output USD per 1M tokens', { exact: true }).fill('15');
    await priceForm.getByText('Variant, context tiers and fees (optional)').click();
    await priceForm.getByLabel('Variant (empty = standard; e.g. flex, batch, priority)').fill('flex');
    await priceForm.getByLabel('USD per request').fill('0.002');
    await priceForm.getByRole('button', { name: 'Add a tier' }).click();
    const tier = priceForm.getByRole('group', { name: 'Tier 1' });
    await tier.getByLabel('Above input tokens').fill('200000');
    await tier.getByLabel('Input / 1M', { exact: true }).fill('6');
    await tier.getByLabel('Output / 1M', { exact: true }).fill('22.5');
    await priceForm.getByRole('button', { name: 'Add price' }).click();
    await priceForm.getByRole('status').filter({ hasText: 'saved for lab/tiered (flex) with 1 tiers' }).waitFor();
    const tiered = (await stack.get(`/v1/admin/prices?model=${encodeURIComponent('lab/tiered')}`)).body.data;
    expect(tiered).toMatchObject([
      { model: 'lab/tiered', variant: 'flex', input_usd_per_mtok: '3', output_usd_per_mtok: '15', request_usd: '0.002', tiers: [{ above_input_tokens: 200000, inclusive: false, input_usd_per_mtok: '6', output_usd_per_mtok: '22.5' }] },
    ]);
    const tieredRow = current.getByRole('row').filter({ has: page.getByRole('link', { name: 'lab/tiered' }) });
    await tieredRow.getByRole('cell', { name: 'flex', exact: true }).waitFor();
    await tieredRow.getByText('> 200000: input 6, output 22.5').waitFor();
    await tieredRow.getByText('request 0.002').waitFor();
    await shot('10-prices');
    await current.getByRole('link', { name: 'openai/gpt-4o' }).click();
    await page.getByRole('table', { name: 'Price versions of openai/gpt-4o, oldest first' }).getByText('$2.50').waitFor();
    await shot('11-price-history');

    await page.getByRole('link', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Admin actions, newest first' });
    const entries = (await stack.get('/v1/admin/audit-log?limit=50')).body.data;
    expect(entries.length).toBeGreaterThan(3);
    await audit.getByRole('cell', { name: entries[0].action }).first().waitFor();
    await shot('12-audit-log');

    await page.getByRole('link', { name: 'Ledger check' }).click();
    await page.locator('[data-ledger-ok="true"]').waitFor();
    expect((await stack.get('/v1/admin/ledger/check')).body.ok).toBe(true);
    await shot('13-ledger-check');
  });

  it('shows the payout in the overview: paid out total and today in the daily figures', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    const overview = (await stack.get('/v1/admin/overview')).body;
    // The overview was visited before the settlement: the console shows its cached figures while it
    // refetches, so wait for the refreshed value rather than reading the first one painted.
    await page.locator(`[data-stat="paid_usd"] dd [data-value="${overview.paid_usd}"]`).first().waitFor();
    expect(await stat('paid_usd')).toEqual({ value: overview.paid_usd, text: displayUsd(overview.paid_usd) });
    expect(overview.last_settlement.settlement_id).toBe(settlementId);
    const today = new Date().toISOString().slice(0, 10);
    const daily = (await stack.get('/v1/admin/overview/daily')).body.rows.find((r: { day: string }) => r.day === today);
    expect(daily.paid_usd).toBe(overview.paid_usd);
    expect(daily.charged_usd).toBe(overview.charged_usd);
    await page.getByText('Daily figures as a table').click();
    const table = page.getByRole('table', { name: 'Charged, revenue and paid out per day' });
    const todayRow = table.getByRole('row').filter({ has: page.getByRole('cell', { name: today, exact: true }) });
    const paidToday = todayRow.locator(`td[data-label="Paid out"] [data-value="${daily.paid_usd}"]`);
    await paidToday.waitFor();
    // Table columns show a fixed 6 decimals, so the digits of a column line up.
    await expect(paidToday.innerText()).resolves.toBe(formatDecimal(daily.paid_usd, { minDecimals: 6, prefix: '$' }));
    await shot('14-overview-after-settlement');
  });

  it('issues a refund of a paid event from the console: the API\'s 422 shown as is, then the full refund, the list and the debt', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Refunds' }).click();
    await page.getByRole('table', { name: 'Refunds, newest first' }).getByText('No refund matches.').waitFor();
    const form = page.getByRole('form', { name: 'Issue a refund' });
    await form.getByLabel('Usage event id').fill('console-1');
    await form.getByRole('radio', { name: 'Part' }).check();
    await form.getByLabel('Amount USD (for a part)').fill('1000');
    await form.getByLabel('Reason').fill('customer charged twice');
    const refundId = (await form.locator('[data-refund-id]').getAttribute('data-refund-id'))!;
    expect(refundId).toMatch(/^console-[0-9a-f-]{36}$/);
    await form.getByRole('button', { name: 'Issue refund' }).click();
    const refused = form.getByRole('alert');
    await expect(refused.locator('.error-message').innerText()).resolves.toBe('the refund would take the refunded total past the charge');
    await refused.getByText('refund_exceeds_charge').waitFor();
    expect((await stack.get('/v1/admin/refunds?event_id=console-1')).body.data).toEqual([]);
    await shot('22-refund-refused');

    await form.getByRole('radio', { name: 'All not refunded yet' }).check();
    await form.getByRole('button', { name: 'Issue refund' }).click();
    await form.locator(`[data-refund-result="${refundId}"]`).waitFor();
    const refunds = (await stack.get('/v1/admin/refunds?event_id=console-1')).body.data;
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ refund_id: refundId, event_id: 'console-1', contributor_id: 'c_std', reason: 'customer charged twice' });
    expect(refunds[0].amount_usd).toBe(refunds[0].refunded_total_usd);
    const list = page.getByRole('table', { name: 'Refunds, newest first' });
    await list.getByRole('cell', { name: refundId }).waitFor();
    const row = list.getByRole('row').filter({ has: page.getByRole('cell', { name: refundId }) });
    await expect(row.locator(`td[data-label="Clawed back"] [data-value]`).getAttribute('data-value')).resolves.toBe(refunds[0].contributor_clawback_usd);
    await expect(row.locator(`td[data-label="Refunded"] [data-value]`).getAttribute('data-value')).resolves.toBe(refunds[0].amount_usd);
    await shot('23-refunds');

    // c_std was paid in full by the settlement: the clawback is a debt, shown negative.
    const contributor = (await stack.get('/v1/admin/contributors/c_std')).body;
    expect(contributor.payable_usd.startsWith('-')).toBe(true);
    await page.goto(`${stack.baseUrl}/console/contributors/c_std`);
    const payable = page.locator(`[data-stat="payable_usd"] dd [data-value="${contributor.payable_usd}"]`);
    await payable.waitFor();
    await expect(payable.getAttribute('class')).resolves.toContain('negative');
    await page.getByText('A debt: netted against later earnings').waitFor();
    // Filtered by contributor, from its page.
    await page.getByRole('link', { name: 'Refunds and clawbacks of c_std' }).click();
    await page.getByRole('table', { name: 'Refunds, newest first' }).getByRole('cell', { name: refundId }).waitFor();
    expect(page.url()).toContain('contributor_id=c_std');
  });

  it('shows an endpoint the service disabled (410 Gone) with its reason, enables it, removes the other', async () => {
    await waitUntil(() => goneReceived.length >= 1);
    const goneUrl = receiverUrl.replace('/hooks', '/gone');
    let disabled: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && disabled === undefined; i += 1) {
      disabled = ((await stack.get('/v1/admin/webhooks')).body.data as Array<Record<string, unknown>>).find((e) => e.id === goneWebhookId && e.status === 'disabled');
      if (disabled === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    expect(disabled).toBeDefined();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    const table = page.getByRole('table', { name: 'Webhook endpoints' });
    const goneRow = table.getByRole('row').filter({ has: page.getByRole('cell', { name: goneUrl, exact: true }) });
    await goneRow.getByRole('cell', { name: String(disabled!.disabled_reason) }).waitFor();
    await shot('24-webhook-disabled');
    await goneRow.getByRole('button', { name: `Enable ${goneUrl}` }).click();
    await goneRow.locator('td[data-label="Status"]').getByText('active').waitFor();
    // What waited meanwhile is sent: the same refund.created again, answered 204 this time.
    await waitUntil(() => goneReceived.length >= 2);
    expect(goneReceived[1]).toBe(goneReceived[0]);

    await page.getByRole('button', { name: `Remove ${receiverUrl}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this webhook endpoint?' });
    await dialog.getByRole('button', { name: 'Remove endpoint' }).click();
    await table.getByRole('cell', { name: receiverUrl, exact: true }).waitFor({ state: 'detached' });
    expect(((await stack.get('/v1/admin/webhooks')).body.data as Array<{ id: string }>).map((e) => e.id)).toEqual([goneWebhookId]);
  });

  it('issues a portal key; the contributor sees only its own balance, earnings and payouts, and downloads its earnings', async () => {
    await page.goto(`${stack.baseUrl}/console/contributors/c_std`);
    await page.getByRole('button', { name: 'Create a portal key' }).click();
    contributorKey = (await page.locator('[data-created-key]').innerText()).trim();
    expect(contributorKey).toMatch(/\S{20,}/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate<number>('window.sessionStorage.length')).toBe(0);

    await signIn(contributorKey);
    await page.getByRole('heading', { name: 'Earnings of c_std' }).waitFor();
    await page.locator('[data-stat="paid_usd"] [data-value]').waitFor();
    const balance = (await stack.get('/v1/contributors/c_std/balance', contributorKey)).body;
    for (const field of BALANCE_FIELDS) expect({ field, ...(await stat(field)) }).toEqual({ field, value: balance[field], text: displayUsd(balance[field]) });
    // Only its own screen is offered; an admin address sends it back to the portal.
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link').allInnerTexts()).resolves.toEqual(['My earnings']);
    const payouts = (await stack.get('/v1/contributors/c_std/payouts', contributorKey)).body.data;
    expect(payouts).toHaveLength(1);
    await page.getByRole('table', { name: 'Payouts, newest first' }).locator(`[data-tx-hash="${payouts[0].tx_hash}"]`).waitFor();
    const earned = (await stack.get('/v1/contributors/c_std/earnings', contributorKey)).body.totals.earned_usd;
    await page.getByRole('region', { name: 'Earnings by day' }).getByTitle(`${earned} USD`).first().waitFor();
    await shot('15-portal');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await (await download).path();
    const range = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('input[placeholder="YYYY-MM-DD"]')).map((i) => i.value)`);
    const csv = await fetch(`${stack.baseUrl}/v1/contributors/c_std/earnings.csv?group_by=day&from=${range[0]}&to=${range[1]}`, { headers: { authorization: `Bearer ${contributorKey}` } });
    expect(readFileSync(file, 'utf8')).toBe(await csv.text());

    // This month's statement: the figures the API has, its CSV and PDF as the API renders them.
    const month = new Date().toISOString().slice(0, 7);
    const statement = (await stack.get(`/v1/contributors/c_std/statements/${month}`, contributorKey)).body;
    const shownStatement = page.locator(`[data-statement-month="${month}"]`);
    await shownStatement.waitFor();
    for (const field of ['opening_usd', 'earned_usd', 'clawed_back_usd', 'adjustments_usd', 'paid_usd', 'closing_usd']) {
      const figure = shownStatement.locator(`[data-stat="statement.${field}"] dd [data-value]`);
      expect({ field, value: await figure.getAttribute('data-value'), text: (await figure.innerText()).trim() }).toEqual({ field, value: statement[field], text: displayUsd(statement[field]) });
    }
    expect(statement.paid_usd).toBe(balance.paid_usd);
    // The refund above was clawed back this month: the statement closes on the debt the balance shows.
    expect(statement.clawed_back_usd).toMatch(/[1-9]/);
    expect([balance.in_settlement_usd, balance.pending_usd ?? '0']).toEqual(['0', '0']);
    expect(statement.closing_usd).toBe(balance.payable_usd);
    await shownStatement.locator(`[data-tx-hash="${payouts[0].tx_hash}"]`).waitFor();
    const statementCsv = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download statement CSV' }).click();
    const apiCsv = await fetch(`${stack.baseUrl}/v1/contributors/c_std/statements/${month}`, { headers: { authorization: `Bearer ${contributorKey}`, accept: 'text/csv' } });
    expect(readFileSync(await (await statementCsv).path(), 'utf8')).toBe(await apiCsv.text());
    const statementPdf = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download statement PDF' }).click();
    const pdf = await statementPdf;
    expect(pdf.suggestedFilename()).toMatch(/\.pdf$/);
    const apiPdf = await fetch(`${stack.baseUrl}/v1/contributors/c_std/statements/${month}`, { headers: { authorization: `Bearer ${contributorKey}`, accept: 'application/pdf' } });
    expect(readFileSync(await pdf.path()).equals(Buffer.from(await apiPdf.arrayBuffer()))).toBe(true);
    await shot('21-portal-statement');

    await page.goto(`${stack.baseUrl}/console/contributors`);
    await page.getByRole('heading', { name: 'Earnings of c_std' }).waitFor();
    expect(page.url()).toBe(`${stack.baseUrl}/console/portal`);
    expect((await stack.get('/v1/contributors/c_prem/balance', contributorKey)).status).toBe(403);
  });

  it('proves the payout address from the portal with the injected wallet (EIP-1193 personal_sign), the key staying in the test', async () => {
    const account = privateKeyToAccount(ANVIL_KEY_WALLET);
    // window.ethereum is a stub whose personal_sign is answered here, in Node, by the Anvil key.
    const walletCalls: Array<{ data: Hex; address: string }> = [];
    await page.exposeFunction('__consoleTestPersonalSign', async (data: Hex, address: string) => {
      walletCalls.push({ data, address });
      if (address.toLowerCase() !== account.address.toLowerCase()) throw new Error(`stub wallet holds ${account.address}, asked for ${address}`);
      return account.signMessage({ message: { raw: data } });
    });
    await page.addInitScript(`window.ethereum = { request: async ({ method, params }) => {
      if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [${JSON.stringify(account.address)}];
      if (method === 'personal_sign') return window.__consoleTestPersonalSign(params[0], params[1]);
      throw new Error('stub wallet: ' + method + ' not supported');
    } };`);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
    await page.reload();
    const before = (await stack.get('/v1/contributors/c_std/payout-address', contributorKey)).body;
    expect(before).toMatchObject({ payout_address: getAddress('0x1111111111111111111111111111111111111111'), payout_address_proven: false });
    const ask = page.getByRole('form', { name: 'Prove the payout address of c_std' });
    await expect(ask.getByLabel('Address to prove').inputValue()).resolves.toBe(before.payout_address);
    await ask.getByLabel('Address to prove').fill(account.address);
    await ask.getByRole('button', { name: 'Get the message to sign' }).click();
    const sign = page.getByRole('form', { name: `Send the signature for ${account.address}` });
    const shown = sign.locator('[data-proof-message]');
    const message = await shown.innerText();
    const nonce = (await shown.getAttribute('data-nonce'))!;
    expect(message).toContain('c_std');
    expect(message).toContain(account.address);
    expect(message).toContain(`Nonce: ${nonce}`);
    await sign.getByRole('button', { name: 'Copy message' }).click();
    await sign.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(message);
    await sign.getByRole('button', { name: 'Sign with the browser wallet' }).click();
    const field = sign.getByLabel('Signature (0x…)');
    for (let i = 0; i < 100 && !/^0x[0-9a-f]{130}$/.test(await field.inputValue()); i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(await field.inputValue()).toMatch(/^0x[0-9a-f]{130}$/);
    // The wallet was asked for exactly the shown message, as UTF-8 hex, by the address.
    expect(walletCalls).toHaveLength(1);
    expect(hexToString(walletCalls[0]!.data)).toBe(message);
    expect(await field.inputValue()).toBe(await account.signMessage({ message }));
    await shot('25-portal-address-proof');
    await sign.getByRole('button', { name: 'Prove address' }).click();
    await page.locator(`[data-address-proven="${account.address}"]`).waitFor();
    const after = (await stack.get('/v1/contributors/c_std/payout-address', contributorKey)).body;
    expect(after).toMatchObject({ payout_address: account.address, payout_address_proven: true });
    // A changed address: proven, and cooling down (default 24 h) until payable_from.
    expect(Date.parse(after.payout_address_payable_from)).toBeGreaterThan(Date.now());
    const trust = page.locator('[data-payout-address-trust]');
    await trust.getByText('address proven').waitFor();
    await trust.getByText('new address: payable from').waitFor();
    await shot('26-portal-address-proven');
  });

  it('fits a 390 px wide screen without sideways scrolling of the page', async () => {
    await page.setViewportSize(NARROW);
    await page.reload();
    await page.getByRole('heading', { name: 'Earnings of c_std' }).waitFor();
    await page.locator('[data-stat="paid_usd"] [data-value]').waitFor();
    expect(await overflowing()).toEqual([]);
    await shot('16-portal-390px');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(stack.adminKey);
    await page.locator('[data-stat="charged_usd"] [data-value]').waitFor();
    expect(await overflowing()).toEqual([]);
    await shot('17-overview-390px');
    await page.goto(`${stack.baseUrl}/console/settlements/${settlementId}`);
    await page.locator('[data-settlement-status="confirmed"]').waitFor();
    expect(await overflowing()).toEqual([]);
    await shot('18-settlement-390px');
    await page.setViewportSize(DESKTOP);
  });

  it('proves a payout address on the admin screen with a pasted signature: a wrong key\'s 422 shown as is, nothing changed, then proven', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    await page.goto(`${stack.baseUrl}/console/contributors/c_prem`);
    await page.getByRole('heading', { name: 'Contributor c_prem' }).waitFor();
    const ask = page.getByRole('form', { name: 'Prove the payout address of c_prem' });
    await ask.getByLabel('Address to prove').fill(owner.address);
    await ask.getByRole('button', { name: 'Get the message to sign' }).click();
    const sign = page.getByRole('form', { name: `Send the signature for ${owner.address}` });
    const message = await sign.locator('[data-proof-message]').innerText();
    // Signed outside the browser (as `cast wallet sign` would), pasted: first by the wrong key.
    await sign.getByLabel('Signature (0x…)').fill(await stranger.signMessage({ message }));
    await sign.getByRole('button', { name: 'Prove address' }).click();
    const refused = sign.getByRole('alert');
    await expect(refused.locator('.error-message').innerText()).resolves.toBe(PROOF_REFUSED_WRONG_KEY);
    await refused.getByText('address_proof_invalid').waitFor();
    await refused.getByText('HTTP 422', { exact: false }).waitFor();
    const unchanged = (await stack.get('/v1/admin/contributors/c_prem')).body;
    expect(unchanged).toMatchObject({ payout_address: getAddress('0x2222222222222222222222222222222222222222'), payout_address_proven: false });
    await shot('27-address-proof-refused');
    // The same challenge (a refused proof does not use the nonce up), the owner's signature pasted with a line break.
    const signature = await owner.signMessage({ message });
    await sign.getByLabel('Signature (0x…)').fill(`${signature.slice(0, 66)}\n${signature.slice(66)}`);
    await sign.getByRole('button', { name: 'Prove address' }).click();
    await page.locator(`[data-address-proven="${owner.address}"]`).waitFor();
    const proven = (await stack.get('/v1/admin/contributors/c_prem')).body;
    expect(proven).toMatchObject({ payout_address: owner.address, payout_address_proven: true });
    await page.locator('[data-payout-address-trust]').getByText('address proven').waitFor();
    await expect(page.getByRole('form', { name: 'Edit c_prem' }).getByLabel('Payout address').inputValue()).resolves.toBe(owner.address);
    await shot('28-contributor-address-proven');
  });

  it('ran without a CSP violation or a page error', () => {
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
