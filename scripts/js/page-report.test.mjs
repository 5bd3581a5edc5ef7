// The page's content-free report, in headless Chromium against the real dev
// server: the draft request carries a "page" member with exactly fillMs
// (time from the form's first render to Review), automation
// (navigator.webdriver: true under Playwright), solveMs (a solve-time
// bucket) and workers, and nothing the visitor typed; the service keeps
// what it reads in the ledger entry (abuse.solve, abuse.signals), and none
// of the typed canaries reaches the dev server's log. A revision carries
// no report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, devServer, skipReason } from './harness.mjs';

const skip = skipReason();
let server, browser;

before(async () => {
  if (skip) return;
  [server, browser] = await Promise.all([devServer(), launch()]);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

// The service's intake.SolveBuckets.
const buckets = [0, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 15000, 20000, 30000, 60000];

const isDraft = (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/introductions';
const isRevision = (r) => r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/revision');

test('the draft carries the page report, content-free, and the ledger keeps it', { skip }, async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const sent = [];
  page.on('request', (r) => (isDraft(r) || isRevision(r)) && sent.push(r));
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  await page.waitForSelector('[data-pow="ready"]');
  const typed = {
    name: 'Canaryname Quillfeather',
    company: 'Canarycompany Works',
    role: 'Canaryrole',
    email: 'canary.mail@example.com',
    message: 'Canarymessage: I would like to talk about the engine next week.',
  };
  for (const [name, value] of Object.entries(typed)) await page.fill(`#intro-${name}`, value);
  await page.waitForTimeout(400); // some time on the form: fillMs is above it
  const answer = page.waitForResponse((r) => isDraft(r.request()));
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  const res = await answer;
  assert.equal(res.status(), 201);
  const kept = await res.json();

  const body = sent[0].postDataJSON();
  const report = body.page;
  assert.deepEqual(Object.keys(report).sort(), ['automation', 'fillMs', 'solveMs', 'workers']);
  assert.ok(Number.isSafeInteger(report.fillMs) && report.fillMs >= 400, `fillMs ${report.fillMs}`);
  assert.equal(report.automation, true, 'Playwright sets navigator.webdriver');
  assert.ok(buckets.includes(report.solveMs), `solveMs ${report.solveMs} is a bucket`);
  assert.ok(Number.isSafeInteger(report.workers) && report.workers >= 1 && report.workers <= 64, `workers ${report.workers}`);
  const text = JSON.stringify(report);
  for (const value of Object.values(typed)) {
    for (const word of value.split(/[^A-Za-z]+/).filter((w) => w.length > 3)) {
      assert.ok(!text.includes(word), `the report holds no typed word (${word})`);
    }
  }

  // An edit revises the same draft: no report goes with a revision.
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.fill('#intro-role', 'Canaryrole Two');
  const revised = page.waitForResponse((r) => isRevision(r.request()));
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  assert.equal((await revised).status(), 200);
  assert.equal(sent.length, 2);
  assert.equal(sent[1].postDataJSON().page, undefined, 'a revision carries no report');

  const confirmed = page.waitForResponse((r) => r.url().endsWith(`/api/introductions/${kept.id}/confirmation`));
  await page.getByRole('button', { name: 'Confirm and send' }).click();
  assert.equal((await confirmed).status(), 200);
  const detail = await (await fetch(`${server.origin}/admin/api/introductions/${kept.id}`)).json();
  const abuse = detail.ledger.abuse;
  assert.deepEqual(abuse.solve && { millis: abuse.solve.millis, workers: abuse.solve.workers },
    { millis: report.solveMs, workers: report.workers }, 'the ledger keeps the reported solve');
  assert.ok(abuse.signals.includes('automation'), `signals ${abuse.signals}`);
  assert.equal(abuse.likelySpam, true, 'automation alone makes it likely spam');

  for (const value of Object.values(typed)) assert.ok(!server.log().includes(value), 'no typed value in the log');
  assert.deepEqual(errors, []);
  await page.close();
});
