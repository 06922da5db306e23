// `npm run test:e2e`: the operator's screens in Chromium against the real stack (#36). An admin
// filters usage by user, key and model and sees the API's totals, downloads the CSV the API
// streams, sorts a table by exact money, finds a user and credits them, creates, lists and revokes
// an API key (the revoked key stops working), and picks the overview's period; every date shown or
// typed is ISO (UTC); grants credit that expires on a user's screen. Screenshots go to $CONSOLE_SCREENSHOTS (docs/console with npm run docs:console).
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DatabaseService } from '../../src/database/database.service.js';
import { compareDecimal, formatDecimal } from '../../web/src/money/decimal.js';
import { exampleEvent, GPT4O, seedBilling } from '../support/billing-fixtures.js';
import { launchChromium } from './support/browser.js';
import { startConsoleStack, type ConsoleStack } from './support/console-stack.js';

const CLAUDE = 'anthropic/claude-sonnet-4';
const DESKTOP = { width: 1280, height: 800 };

let stack: ConsoleStack;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
let shotsDir: string;
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage: true });
/** A money cell's text in a column: the column's fixed 6 decimals. */
const columnUsd = (value: string) => formatDecimal(value, { minDecimals: 6, prefix: '$' });

beforeAll(async () => {
  shotsDir = process.env.CONSOLE_SCREENSHOTS ? resolve(process.env.CONSOLE_SCREENSHOTS) : mkdtempSync(join(tmpdir(), 'console-shots-'));
  mkdirSync(shotsDir, { recursive: true });
  stack = await startConsoleStack('console_operator');
  const { t } = stack;
  await seedBilling(t, { userCreditUsd: '500' });
  await t.admin(t.http.post('/v1/admin/prices')).send({ model: CLAUDE, input_usd_per_mtok: '3', output_usd_per_mtok: '15', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
  await t.admin(t.http.post('/v1/admin/users/u_7/credits')).send({ amount_usd: '50', reference: 'seed-u7' }).expect(201);
  const gateway = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'gateway-1' }).expect(201)).body.key as string;
  const hourAgo = new Date(Math.max(Date.now() - 3600_000, Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`))).toISOString();
  const events = Array.from({ length: 16 }, (_, i) =>
    exampleEvent({ event_id: `op-${i}`, user_id: i % 2 ? 'u_7' : 'u_42', model: i % 4 < 2 ? GPT4O : CLAUDE, occurred_at: hourAgo, usage: { prompt_tokens: 900 + 111 * i, completion_tokens: 100 + 37 * i, cached_tokens: 0, reasoning_tokens: 0 } }),
  );
  await t.http.post('/v1/usage-events/batch').set('Authorization', `Bearer ${gateway}`).send({ events }).expect(200);
  ({ browser, close: closeBrowser } = await launchChromium());
  const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${stack.baseUrl}/console/`);
  await page.getByLabel('API key').fill(stack.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  // A devchain, the API, a worker and Chromium start here: minutes on a loaded 2-core machine.
}, 300_000);

afterAll(async () => {
  await closeBrowser?.();
  await stack?.close();
});

describe('operator screens in Chromium', () => {
  const sql = { query: (text: string) => stack.t.app.get(DatabaseService).pool.query(text) };

  it('filters usage by user, key and model, with the API totals, a chart by day and the CSV', async () => {
    // key_id as a gateway that passes it stores it (its ingestion lands with the budgets work).
    await sql.query(`UPDATE usage_events SET key_id = 'key-' || user_id WHERE event_id LIKE 'op-%'`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('heading', { name: 'Usage', exact: true }).waitFor();
    const form = page.getByRole('form', { name: 'Usage filters' });
    // The one date format: ISO days, typed and shown, never the browser's mm/dd/yyyy.
    const from = form.getByLabel('From (UTC day)');
    expect(await from.getAttribute('type')).toBe('text');
    expect(await from.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await form.getByLabel('User').fill('u_7');
    await form.getByLabel('API key (gateway)').fill('key-u_7');
    await form.getByLabel('Model').fill(CLAUDE);
    await form.getByRole('button', { name: 'Apply filters' }).click();
    const table = page.getByRole('table', { name: 'Usage events' });
    await table.getByRole('cell', { name: 'op-15', exact: true }).waitFor();
    const query = `user_id=u_7&key_id=key-u_7&model=${encodeURIComponent(CLAUDE)}&from=${await from.inputValue()}T00:00:00Z&to=${await form.getByLabel('To (exclusive)').inputValue()}T00:00:00Z`;
    const listed = (await stack.get(`/v1/admin/usage-events?${query}`)).body;
    const listedIds: string[] = listed.data.map((e: { event_id: string }) => e.event_id);
    // One batch: the order within it is the order the writer recorded them (ids), not the input's.
    expect([...listedIds].sort()).toEqual(['op-11', 'op-15', 'op-3', 'op-7']);
    await expect(table.locator('tbody td[data-label="Event"]').allInnerTexts()).resolves.toEqual(listedIds);
    await expect(table.getByRole('row').count()).resolves.toBe(1 + listed.data.length);
    for (const e of listed.data) {
      const row = table.getByRole('row').filter({ has: page.getByRole('cell', { name: e.event_id, exact: true }) });
      await expect(row.locator('td[data-label="Charged"] .money').innerText()).resolves.toBe(columnUsd(e.charge_usd));
      await expect(row.locator('td[data-label="Occurred"]').innerText()).resolves.toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})? UTC$/);
    }
    const summary = (await stack.get(`/v1/admin/usage/summary?group_by=day&${query}`)).body;
    await expect(page.locator('[data-stat="charge_usd"] [data-value]').getAttribute('data-value')).resolves.toBe(summary.totals.charge_usd);
    await expect(page.locator('[data-stat="events"] [data-value]').getAttribute('data-value')).resolves.toBe('4');
    await page.getByRole('figure', { name: 'Charged per day (UTC)' }).waitFor();
    await shot('30-usage-filtered');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8').trim().split('\r\n');
    expect(csv[0]!.startsWith('event_id,status,occurred_at')).toBe(true);
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual(listedIds);
  });

  it('sorts a breakdown by exact money and filters its rows', async () => {
    // No filter but the default period (the previous test's are in the address).
    await page.goto(`${stack.baseUrl}/console/usage`);
    await page.getByLabel('Breakdown by').selectOption('user');
    const table = page.getByRole('table', { name: 'Priced usage by user' });
    await table.getByRole('cell', { name: 'u_7', exact: true }).waitFor();
    const users = async () => table.locator('tbody td[data-label="User"]').allInnerTexts();
    const api = (await stack.get('/v1/admin/usage/summary?group_by=user')).body.data as Array<{ key: string; charge_usd: string }>;
    const byCharge = [...api].sort((a, b) => compareDecimal(a.charge_usd, b.charge_usd));
    await table.getByRole('button', { name: 'Charged' }).click();
    expect(await table.locator('th', { hasText: 'Charged' }).getAttribute('aria-sort')).toBe('ascending');
    expect(await users()).toEqual(byCharge.map((r) => r.key));
    await table.getByRole('button', { name: 'Charged' }).click();
    expect(await users()).toEqual(byCharge.map((r) => r.key).reverse());
    // Every money cell of a column has the same number of decimals, so the digits line up.
    const charged = await table.locator('tbody td[data-label="Charged"] .money').allInnerTexts();
    expect(new Set(charged.map((text) => text.split('.')[1]!.length))).toEqual(new Set([6]));
    await page.getByLabel('Filter priced usage by user').fill('42');
    expect(await users()).toEqual(['u_42']);
    await shot('31-usage-breakdown-sorted');
  });

  it('lists users with balances and credits one', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    const table = page.getByRole('table', { name: 'Users with their balances' });
    await table.getByRole('link', { name: 'u_7' }).waitFor();
    const listed = (await stack.get('/v1/admin/users')).body.data as Array<{ user_id: string; balance_usd: string }>;
    for (const user of listed) {
      const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: user.user_id, exact: true }) });
      await expect(row.locator('td[data-label="Balance"] .money').getAttribute('data-value')).resolves.toBe(user.balance_usd);
    }
    await shot('32-users');
    await table.getByRole('link', { name: 'u_7' }).click();
    await page.getByRole('heading', { name: 'User u_7' }).waitFor();
    await page.getByLabel('Amount (USD; negative: an adjustment)').fill('12.5');
    await page.getByRole('button', { name: 'Credit', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'the balance is now' }).waitFor();
    const after = (await stack.get('/v1/users/u_7/balance')).body;
    await page.getByRole('status').filter({ hasText: `the balance is now ${after.balance_usd} USD` }).waitFor();
    await expect(page.locator('[data-stat="balance_usd"] [data-value]').getAttribute('data-value')).resolves.toBe(after.balance_usd);
    await shot('33-user-detail');
  });

  it('grants credit that expires on the user screen and lists it with its amount, remaining and ISO expiry (#37)', async () => {
    await page.goto(`${stack.baseUrl}/console/users/u_7`);
    await page.getByRole('heading', { name: 'User u_7' }).waitFor();
    const form = page.getByRole('form', { name: 'Grant credit' });
    // A past expiry is refused in the form: nothing is sent.
    await form.getByLabel('Grant amount (USD)').fill('3');
    await form.getByLabel('Expires at (ISO, UTC)').fill('2020-01-01T00:00:00Z');
    await form.getByRole('alert').filter({ hasText: 'The expiry must be in the future.' }).waitFor();
    await form.getByRole('button', { name: 'Grant', exact: true }).click();
    expect((await stack.get('/v1/users/u_7/balance')).body.grants).toEqual([]);
    const expiresAt = `${new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 19)}Z`;
    await form.getByLabel('Expires at (ISO, UTC)').fill(expiresAt);
    await form.getByLabel('Name (optional)').fill('Trial');
    await form.getByRole('button', { name: 'Grant', exact: true }).click();
    const table = page.getByRole('table', { name: 'Credit grants, the one expiring first first' });
    await table.getByRole('cell', { name: 'Trial', exact: true }).waitFor();
    const balance = (await stack.get('/v1/users/u_7/balance')).body;
    expect(balance.grants).toEqual([{ grant_id: expect.stringMatching(/^console-grant-/), name: 'Trial', amount_usd: '3', remaining_usd: '3', expires_at: new Date(expiresAt).toISOString() }]);
    const row = table.getByRole('row').filter({ hasText: 'Trial' });
    await expect(row.locator('td[data-label="Amount"] .money').getAttribute('data-value')).resolves.toBe('3');
    await expect(row.locator('td[data-label="Remaining"] .money').textContent()).resolves.toBe(columnUsd('3'));
    await expect(row.locator('td[data-label="Expires (UTC)"]').textContent()).resolves.toBe(new Date(expiresAt).toISOString());
    await page.locator('[data-stat="granted_usd"] [data-value="3"]').waitFor();
    await expect(page.locator('[data-stat="balance_usd"] [data-value]').getAttribute('data-value')).resolves.toBe(balance.balance_usd);
    await shot('36-user-grants');
  });

  it('creates, lists and revokes an API key, and the revoked key stops working', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('console-made');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('created-key').innerText()).trim();
    expect((await stack.get('/v1/me', key)).status).toBe(200);
    const table = page.getByRole('table', { name: 'API keys, newest first' });
    const row = table.getByRole('row').filter({ has: page.getByRole('cell', { name: 'console-made', exact: true }) });
    await row.waitFor();
    expect(await table.innerText()).not.toContain(key);
    await shot('34-api-keys');
    await row.getByRole('button', { name: 'Revoke console-made' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('revoked').waitFor();
    expect((await stack.get('/v1/me', key)).status).toBe(401);
  });

  it('shows the overview for the period picked', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByLabel('Period').selectOption('7');
    await page.getByRole('heading', { name: 'Charged and paid out per day (last 7 days, UTC)' }).waitFor();
    // The choice is in the address (TanStack Router writes search values as JSON).
    expect(new URL(page.url()).searchParams.get('days')).toMatch(/^"?7"?$/);
    // The hot wallet's USDC stays on one line.
    const usdc = page.locator('[data-stat="hot_wallet.usdc"] .money');
    const box = await usdc.boundingBox();
    // Runs in the page: the window's getComputedStyle (the test project's types have no DOM lib).
    const lineHeight = await usdc.evaluate((e) => parseFloat((globalThis as unknown as { getComputedStyle(el: unknown): { lineHeight: string } }).getComputedStyle(e).lineHeight) || 24);
    expect(box!.height).toBeLessThan(lineHeight * 1.5);
    await shot('35-overview-period');
    expect(pageErrors).toEqual([]);
  });
});
