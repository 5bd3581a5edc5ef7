// The page and the escalating work, in headless Chromium against the real
// dev server: a source's fourth draft within the hour is refused
// POW_TOO_EASY; the page fetches the harder challenge it names, solves it
// and sends the same content again, telling the visitor that this takes a
// little longer than usual. The state with the notice is checked with
// axe-core while the harder challenge is held back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, devServer, skipReason } from './harness.mjs';
import { checkState } from './a11y.mjs';

const skip = skipReason();
let server, browser;

before(async () => {
  if (skip) return;
  [server, browser] = await Promise.all([devServer({ POW_MAX_ESCALATED: '20000000' }), launch()]);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const isDraft = (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/introductions';

async function open() {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  return { page, errors };
}

async function fill(page, i) {
  const v = { name: 'Ada Lovelace', company: 'Analytical Engines', role: 'CTO', email: `ada${i}@example.com`, message: `Hello, draft ${i}: I would like to talk about the engine.` };
  for (const [name, value] of Object.entries(v)) await page.fill(`#intro-${name}`, value);
}

test('a fourth draft from one source solves a harder challenge, with the same content and a notice', { skip }, async () => {
  // Three drafts at the base cost, each from a new tab (no draft to revise).
  for (let i = 1; i <= 3; i++) {
    const { page } = await open();
    await fill(page, i);
    const answer = page.waitForResponse(isDraft);
    await page.getByRole('button', { name: 'Review', exact: true }).click();
    assert.equal((await answer).status(), 201, `draft ${i}`);
    await page.waitForSelector('text=Please check your introduction');
    await page.close();
  }

  const { page, errors } = await open();
  const drafts = [];
  page.on('response', (r) => isDraft(r) && drafts.push(r));
  let release;
  const held = new Promise((r) => (release = r));
  const harder = [];
  await page.route((url) => url.pathname === '/api/introductions/challenge' && url.searchParams.has('maxnumber'), async (route) => {
    harder.push(route.request().url());
    await held;
    await route.continue();
  });
  await fill(page, 4);
  await page.getByRole('button', { name: 'Review', exact: true }).click();

  // Refused for too little work: the notice shows while the harder
  // challenge is on its way.
  const notice = page.getByRole('button', { name: /^This is taking a little longer than usual… \d+%$/ });
  await notice.waitFor();
  assert.equal(drafts.length, 1);
  const refusal = await drafts[0].json();
  assert.equal(drafts[0].status(), 422);
  assert.equal(refusal.code, 'POW_TOO_EASY');
  assert.equal(refusal.requiredMaxNumber, 40000, 'the 4th draft owes twice the base (20000)');
  assert.equal(harder.length, 1);
  assert.equal(new URL(harder[0]).searchParams.get('maxnumber'), '40000');
  assert.equal(await page.locator('.intro-progress').getAttribute('aria-live'), 'polite', 'the notice is announced');
  assert.equal(await page.locator('.intro-summary li').count(), 0, 'no problem is shown for it');
  await checkState(page, 'escalated: this is taking a little longer');

  release();
  await page.waitForSelector('text=Please check your introduction');
  assert.equal(drafts.length, 2);
  assert.equal(drafts[1].status(), 201);
  const [first, second] = drafts.map((r) => r.request().postDataJSON());
  assert.notEqual(second.altcha, first.altcha, 'a new solution');
  const challenge = JSON.parse(Buffer.from(second.altcha, 'base64').toString()).salt;
  assert.match(challenge, /[?&]mn=40000&/, 'of the harder challenge');
  assert.ok(Number.isSafeInteger(second.page.solveMs) && second.page.workers >= 1, 'the retry reports its own solve');
  for (const d of [first, second]) {
    delete d.altcha;
    delete d.page; // the content-free report: its times differ
  }
  assert.deepEqual(second, first, 'the same content');
  assert.equal(await notice.count(), 0, 'the notice is gone once the draft is kept');
  await checkState(page, 'escalated: review');
  assert.deepEqual(errors, []);
  await page.close();
});
