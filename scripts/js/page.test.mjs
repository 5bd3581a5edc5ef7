// The site's form page in headless Chromium against the real dev server
// (scripts/devserver on the Firestore emulator, a project id of its own):
// the whole flow, what the review shows, field errors, the honeypot,
// keyboard-only use, a phone viewport, strict CSP, same-origin requests, no
// browser storage left behind, and the silent recovery from a challenge of
// another instance, then the rate limit. Every state is checked with axe-core
// (checkState). UPDATE_SCREENSHOTS=1 writes the README's screenshots to
// shared/sitepage/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, devServer, staticServer, skipReason, screenshotDir, pageCSP, assetsDir } from './harness.mjs';
import { checkState, checked } from './a11y.mjs';

const skip = skipReason();
const shotDir = screenshotDir('shared/sitepage/screenshots');

let server, browser;

before(async () => {
  if (skip) return;
  [server, browser] = await Promise.all([devServer(), launch()]);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

// open loads the page in a fresh page of the browser and records CSP
// violations, requests, page errors and console errors.
async function open(origin, viewport) {
  const page = await browser.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const seen = { requests: [], errors: [] };
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) seen.errors.push(m.text());
  });
  const res = await page.goto(`${origin}/`);
  await page.waitForSelector('form');
  return { page, res, seen };
}

async function fill(page, v) {
  for (const [name, value] of Object.entries(v)) await page.fill(`#intro-${name}`, value);
}

const ada = {
  name: 'Ada Lovelace',
  company: 'Analytical Engines',
  role: 'CTO',
  email: 'ada@example.com',
  message: 'Hello! I would like to talk about the engine.\nSecond line.',
};

function draftResponse(page) {
  return page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/introductions');
}

// turns makes a guide conversation of n turns of about size characters each.
function turns(n, size) {
  return Array.from({ length: n }, (_, i) => ({
    role: i % 2 ? 'guide' : 'visitor',
    text: `Turn ${i}: ` + 'lorem ipsum '.repeat(Math.ceil(size / 12)).slice(0, size),
  }));
}

test('the whole flow: fill, review shows what was kept, confirm, withdraw; strict CSP, same origin, no storage', { skip }, async () => {
  const { page, res, seen } = await open(server.origin);
  assert.equal(res.headers()['content-security-policy'], pageCSP);
  const def = await (await fetch(`${server.origin}/api/forms/introduction`)).json();
  await checkState(page, 'empty');

  await fill(page, ada);
  // A transcript longer than 12,000 characters: the oldest turns are dropped.
  const handed = turns(40, 500);
  const kept = await page.evaluate((t) => window.introductions.attachConversation(t), handed);
  assert.ok(kept.dropped > 0 && kept.kept > 0 && kept.kept + kept.dropped === handed.length, JSON.stringify(kept));
  const shown = await page.textContent('#intro-conversation');
  assert.ok([...shown].length <= 12000, `shown ${[...shown].length} characters`);
  assert.ok(shown.includes('Turn 39:') && !shown.includes('Turn 0:'), 'the newest turns stay, the oldest go');
  assert.match(await page.textContent('.intro-conversation'), new RegExp(`oldest ${kept.dropped} turns were left out`));
  await page.getByLabel(/Attach my conversation/).check();
  await checkState(page, 'filled, with a conversation');

  const answer = draftResponse(page);
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  const draftRes = await answer;
  assert.equal(draftRes.status(), 201);
  const draft = await draftRes.json();
  const sent = draftRes.request().postDataJSON();
  assert.equal(sent.formVersion, def.formVersion);
  assert.equal(sent.website, '');
  assert.deepEqual(sent.consents, [{ purpose: 'attach-conversation', textVersion: 'attach-conversation/1', given: true }]);
  assert.equal(sent.conversation, shown);
  assert.match(draftRes.request().headers()['idempotency-key'] || '', /^[0-9a-f-]{32,36}$/);

  await page.waitForSelector('text=Please check your introduction');
  for (const name of ['name', 'company', 'role', 'email', 'message', 'conversation']) {
    assert.equal(await page.textContent(`dd[data-field="${name}"]`), draft.introduction[name], `review of ${name}`);
  }
  await checkState(page, 'review with a conversation');

  const confirmed = page.waitForResponse((r) => r.url().endsWith(`/api/introductions/${draft.id}/confirmation`));
  await page.getByRole('button', { name: 'Confirm and send' }).click();
  assert.equal((await confirmed).status(), 200);
  const link = new URL(await page.inputValue('#intro-withdraw-link'));
  assert.equal(link.search, '', 'id and token never in the query');
  assert.match(link.hash, new RegExp(`^#withdraw\\?id=${encodeURIComponent(draft.id)}&token=${encodeURIComponent(draft.token)}&name=[^&]+&at=[^&]+$`));
  await checkState(page, 'success');

  await page.goto(link.href);
  await page.waitForSelector('text=Withdraw your introduction');
  await checkState(page, 'withdraw');
  const withdrawn = page.waitForResponse((r) => r.url().endsWith(`/api/introductions/${draft.id}/withdrawal`));
  await page.getByRole('button', { name: 'Withdraw my introduction' }).click();
  assert.ok([200, 204].includes((await withdrawn).status()));
  await page.waitForSelector('text=Your introduction has been withdrawn');
  assert.equal(new URL(page.url()).hash, '', 'the token leaves the address bar');
  await checkState(page, 'withdrawn');
  const after = await fetch(`${server.origin}/api/introductions/${draft.id}/confirmation`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: draft.token }),
  });
  assert.equal(after.status, 404, 'withdrawn: the id is unknown');

  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(seen.errors, []);
  const foreign = seen.requests.filter((u) => new URL(u).origin !== server.origin);
  assert.deepEqual(foreign, [], 'every request goes to the page origin');
  assert.ok(seen.requests.some((u) => u.endsWith('/js/solver-worker.js')), 'the solver ran in a worker');
  const storage = await page.evaluate(async () => ({
    local: localStorage.length,
    session: Object.keys(sessionStorage).filter((k) => !k.endsWith(':withdrawn')).length, // the withdrawn id alone stays
    cookie: document.cookie,
    idb: (await indexedDB.databases()).length,
    caches: (await caches.keys()).length,
  }));
  assert.deepEqual(storage, { local: 0, session: 0, cookie: '', idb: 0, caches: 0 });
  assert.deepEqual(await browser.context.cookies(), []);
  await page.close();
});

test('the review shows what the service kept, not what the form holds', { skip }, async () => {
  const { page } = await open(server.origin);
  await page.route('**/api/introductions', async (route) => {
    const res = await route.fetch();
    const json = await res.json();
    json.introduction.name = 'Name As Kept';
    json.introduction.message = 'Message as kept';
    await route.fulfill({ response: res, json });
  });
  await fill(page, { ...ada, email: 'kept@example.com' });
  // A conversation handed over but not consented to is not sent.
  await page.evaluate(() => window.introductions.attachConversation([{ role: 'visitor', text: 'not to be sent' }]));
  assert.equal(await page.isChecked('#consent-attach-conversation'), false);
  const answer = draftResponse(page);
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  const sent = (await answer).request().postDataJSON();
  assert.equal(sent.conversation, undefined);
  assert.deepEqual(sent.consents, []);
  await page.waitForSelector('text=Please check your introduction');
  assert.equal(await page.textContent('dd[data-field="name"]'), 'Name As Kept');
  assert.equal(await page.textContent('dd[data-field="message"]'), 'Message as kept');
  assert.equal(await page.textContent('dd[data-field="email"]'), 'kept@example.com');
  // The conversation handed over without consent is not silently dropped:
  // the review says it was not attached, and why.
  assert.match(await page.textContent('dd[data-field="conversation"]'), /^Not attached: you did not tick the box that allows it, so it was not sent and is not kept\./);
  await checkState(page, 'review without a conversation (not attached)');
  await page.close();
});

test('problem codes become sentences at their fields, announced, and the work is kept for the retry', { skip }, async () => {
  const { page } = await open(server.origin, { width: 420, height: 900 });
  await fill(page, {
    name: '   ',
    email: 'not-an-address',
    message: 'See https://a.example https://b.example https://c.example https://d.example',
  });
  const answer = draftResponse(page);
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  const problem = await (await answer).json();
  assert.deepEqual(problem.errors.map((e) => e.code).sort(), ['EMAIL_INVALID', 'MESSAGE_TOO_MANY_LINKS', 'NAME_INVALID']);
  await page.waitForSelector('#intro-name-error:not(:empty)');
  // Each field shows the page's own sentence where its reading of the
  // definition's rules finds the same problem (numbers in the page's
  // language), and the service's own detail for the address, which says
  // exactly what to change (whatever the service's words are today).
  const own = { name: 'Your name is required.', message: 'This holds 4 links; at most 3 are allowed.' };
  for (const e of problem.errors) {
    assert.ok(e.detail && e.detail.length > 10, `${e.field} has a detail`);
    assert.equal(await page.textContent(`#intro-${e.field}-error`), own[e.field] || e.detail, `${e.field}'s sentence`);
  }
  for (const field of ['name', 'email', 'message']) {
    const input = page.locator(`#intro-${field}`);
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    assert.ok((await input.getAttribute('aria-describedby')).split(' ').includes(`intro-${field}-error`));
  }
  assert.equal(await page.textContent('#intro-company-error'), '');
  assert.equal(await page.getAttribute('.intro-summary', 'role'), 'alert');
  assert.equal(await page.locator('.intro-summary li').count(), 3);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'intro-name', 'focus moves to the first field in error');
  assert.match(await page.textContent('.intro-summary'), /Your name: /, 'the summary names each field');
  await checkState(page, 'field errors');
  mkdirSync(shotDir, { recursive: true });
  await page.screenshot({ path: join(shotDir, 'errors.png'), fullPage: true });

  // Corrected, the draft is kept with the same solution (nothing re-solved).
  const challenges = [];
  page.on('request', (r) => r.url().endsWith('/api/introductions/challenge') && challenges.push(r.url()));
  await fill(page, { name: 'Grace Hopper', email: 'grace@example.com', message: 'One link: https://a.example' });
  const second = draftResponse(page);
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  const ok = await second;
  assert.equal(ok.status(), 201);
  assert.equal(ok.request().postDataJSON().altcha, (await answer).request().postDataJSON().altcha);
  await page.waitForSelector('text=Please check your introduction');
  assert.equal(await page.locator('.intro-error:not(:empty)').count(), 0);
  await page.close();
});

test('a field a form version adds: its problem (FIELD_INVALID) is said at it, in the service\'s words or the page\'s sentence', { skip }, async () => {
  const page = await browser.context.newPage();
  const added = { name: 'availability', label: 'When you are free to talk', hint: 'Optional.', type: 'text', required: false, maxLength: 120, maxLinks: 0, code: 'FIELD_INVALID' };
  await page.route('**/api/forms/introduction', async (route) => {
    const res = await route.fetch();
    const def = await res.json();
    def.fields.push(added);
    await route.fulfill({ response: res, json: def });
  });
  let detail = 'This is 130 characters long and the limit is 120. Please shorten it by 10 characters.';
  await page.route('**/api/introductions', (route) => route.fulfill({
    status: 422, contentType: 'application/problem+json',
    json: { type: 'urn:introductions:problem:FIELD_INVALID', title: 'The introduction was not kept', status: 422, code: 'FIELD_INVALID',
      detail: 'The introduction was not kept: see errors.', errors: [{ field: 'availability', code: 'FIELD_INVALID', detail }] },
  }));
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('#intro-availability');
  // A value the page's own reading of the rules finds nothing wrong with:
  // the service's refusal (mocked) is what is said.
  await fill(page, { ...ada, availability: 'Tuesdays' });
  for (const [want, sentence] of [[detail, detail], ['', 'When you are free to talk can be up to 120 characters of ordinary text.']]) {
    detail = want;
    await page.getByRole('button', { name: 'Review', exact: true }).click();
    await page.waitForSelector('#intro-availability-error:not(:empty)');
    assert.equal(await page.textContent('#intro-availability-error'), sentence);
    assert.equal(await page.getAttribute('#intro-availability', 'aria-invalid'), 'true');
    assert.match(await page.textContent('.intro-summary'), new RegExp(`When you are free to talk: ${sentence.replace(/[.*+?()[\]]/g, '\\$&')}`));
    assert.doesNotMatch(await page.textContent('.intro-summary'), /Something went wrong/);
    await page.evaluate(() => { document.querySelector('#intro-availability-error').textContent = ''; });
  }
  await page.close();
});

test('keyboard only, labels, the honeypot out of reach, and a phone viewport', { skip }, async () => {
  const { page, seen } = await open(server.origin, { width: 390, height: 844 });
  const hp = page.locator('input[name="website"]');
  assert.equal(await hp.count(), 1);
  assert.equal(await hp.isVisible(), false);
  assert.equal(await hp.evaluate((e) => getComputedStyle(e.closest('.intro-hp')).display), 'none');
  const snapshot = await page.locator('body').ariaSnapshot();
  assert.ok(!/website|Leave this empty/i.test(snapshot), 'the honeypot is not in the accessibility tree');
  for (const label of ['Your name', 'Company (optional)', 'Role (optional)', 'Email', 'Message']) {
    assert.equal(await page.getByLabel(label, { exact: true }).count(), 1, `a control labelled ${label}`);
  }
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'no sideways scrolling on a phone');

  // Tab through the page: the language switch, then the fields in order,
  // never the honeypot.
  const order = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    order.push(await page.evaluate(() => document.activeElement.id || document.activeElement.name || document.activeElement.tagName));
  }
  assert.ok(!order.includes('website'), `honeypot focused: ${order}`);
  assert.deepEqual(order.slice(0, 6), ['intro-lang-fa', 'intro-name', 'intro-company', 'intro-role', 'intro-email', 'intro-message']);
  assert.deepEqual(order.slice(6, 10), ['intro-attachment', 'consent-future-roles', 'SUMMARY', 'BUTTON'], 'then the optional file, the optional permission, the notice and Review');

  await page.focus('h1');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Katherine Johnson');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.type('katherine@example.com');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Orbital mechanics.');
  for (let i = 0; i < 4; i++) await page.keyboard.press('Tab'); // the file, the permission, the notice
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Review');
  await page.keyboard.press('Enter');
  await page.waitForSelector('text=Please check your introduction');
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'H1', 'focus moves to the new step');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Confirm and send');
  await page.keyboard.press('Enter');
  await page.waitForSelector('text=your introduction is on its way');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'intro-withdraw-link');
  assert.deepEqual(seen.errors, []);
  await page.close();
});

test('screenshots of the form and of the review step (phone viewport)', { skip }, async () => {
  mkdirSync(shotDir, { recursive: true });
  const { page } = await open(server.origin, { width: 420, height: 900 });
  await fill(page, {
    ...ada,
    message: 'Hello! I lead the engine team at Analytical Engines and would like to talk about a role.',
  });
  await page.evaluate(() =>
    window.introductions.attachConversation([
      { role: 'visitor', text: 'Is the owner open to a CTO role?' },
      { role: 'guide', text: 'They are open to conversations about engineering leadership roles. You can introduce yourself below.' },
    ]));
  await page.getByLabel(/Attach my conversation/).check();
  await page.screenshot({ path: join(shotDir, 'form.png'), fullPage: true });
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  await page.waitForSelector('text=Please check your introduction');
  await page.screenshot({ path: join(shotDir, 'review.png'), fullPage: true });
  await page.close();
});

test('a challenge from another instance is replaced silently; then the rate limit says when to try again', { skip }, async () => {
  // Instance one hands out the challenge; instance two (its own random
  // key, same port) refuses it, so the page must solve another by itself.
  const first = await devServer({ RATE_LIMIT_IP_PER_HOUR: '1' });
  let second;
  try {
    const { page, seen } = await open(first.origin);
    await page.waitForSelector('[data-pow="ready"]');
    await first.stop();
    second = await devServer({ RATE_LIMIT_IP_PER_HOUR: '1' }, { port: first.port, project: first.project });
    const drafts = [];
    page.on('response', (r) => {
      if (r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/introductions') drafts.push(r);
    });
    await fill(page, { ...ada, email: 'another-instance@example.com' });
    await page.getByRole('button', { name: 'Review', exact: true }).click();
    await page.waitForSelector('text=Please check your introduction');
    assert.equal(drafts.length, 2, 'refused once, then sent again');
    assert.ok(drafts[0].status() >= 400 && drafts[0].status() < 500);
    assert.match((await drafts[0].json()).code, /^POW_/);
    assert.equal(drafts[1].status(), 201);

    // The one draft an hour this instance allows is used: a new one (from
    // a new tab, which has no draft to revise) is refused.
    const other = await browser.context.newPage();
    await other.goto(`${second.origin}/`);
    await other.waitForSelector('form');
    await fill(other, { ...ada, email: 'another-tab@example.com' });
    const limited = draftResponse(other);
    await other.getByRole('button', { name: 'Review', exact: true }).click();
    const res = await limited;
    assert.equal(res.status(), 429);
    assert.ok(Number(res.headers()['retry-after']) > 0);
    await other.waitForSelector('.intro-summary li');
    assert.match(await other.textContent('.intro-summary'), /You have made several drafts in a short time\. Please try again (in about \d+ (minutes|seconds)|after)/);
    await checkState(other, 'rate limited');
    await other.close();
    assert.deepEqual(seen.errors, []);
    await page.close();
  } finally {
    await first.stop();
    if (second) await second.stop();
  }
});

test('progress is shown while the challenge is still being solved', { skip }, async () => {
  const page = await browser.context.newPage();
  // Hold the challenge until the visitor has pressed Review.
  let release;
  const held = new Promise((r) => (release = r));
  await page.route('**/api/introductions/challenge', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  await fill(page, { ...ada, email: 'progress@example.com' });
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  // The Review button itself says what is happening.
  const busy = page.getByRole('button', { name: /^Checking that you are not a robot… \d+%$/ });
  await busy.waitFor();
  assert.equal(await busy.isDisabled(), true);
  assert.match(await page.textContent('.intro-progress'), /Checking that you are not a robot/, 'and the live region says it once');
  await checkState(page, 'solving');
  release();
  await page.waitForSelector('text=Please check your introduction');
  await page.close();
});

test('a static site on another origin points the page at the API with data-api-base', { skip }, async () => {
  const files = {};
  let csp = '';
  const site = await staticServer(files, { csp: () => csp });
  const api = await devServer({ ALLOWED_ORIGINS: site.origin });
  try {
    const html = readFileSync(join(assetsDir, 'index.html'), 'utf8');
    assert.match(html, /data-api-base=""/);
    files['/'] = ['text/html; charset=utf-8', html.replace('data-api-base=""', `data-api-base="${api.origin}"`)];
    // The site's own CSP must let the page connect to the API origin.
    csp = `default-src 'self'; connect-src 'self' ${api.origin}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;
    const { page, seen } = await open(site.origin);
    await fill(page, { ...ada, email: 'cross-origin@example.com' });
    await page.getByRole('button', { name: 'Review', exact: true }).click();
    await page.waitForSelector('text=Please check your introduction');
    await page.getByRole('button', { name: 'Confirm and send' }).click();
    await page.waitForSelector('#intro-withdraw-link');
    const origins = new Set(seen.requests.map((u) => new URL(u).origin));
    assert.deepEqual([...origins].sort(), [api.origin, site.origin].sort());
    assert.ok(seen.requests.filter((u) => u.includes('/api/')).every((u) => u.startsWith(api.origin)), 'the API calls go to data-api-base');
    assert.ok(seen.requests.filter((u) => !u.includes('/api/')).every((u) => u.startsWith(site.origin)), 'the assets come from the site');
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assert.deepEqual(seen.errors, []);
    await page.close();

    // A site whose CSP forbids workers: the page solves on its own thread.
    csp = `default-src 'self'; connect-src 'self' ${api.origin}; worker-src 'none'`;
    const noWorkers = await open(site.origin);
    await fill(noWorkers.page, { ...ada, email: 'no-workers@example.com' });
    await noWorkers.page.getByRole('button', { name: 'Review', exact: true }).click();
    await noWorkers.page.waitForSelector('text=Please check your introduction');
    const blocked = await noWorkers.page.evaluate(() => window.__violations);
    assert.ok(blocked.length > 0 && blocked.every((v) => v.startsWith('worker-src')), `violations: ${blocked}`);
    await noWorkers.page.close();
  } finally {
    await api.stop();
    await site.close();
  }
});

test('a form version the service no longer knows: the page says so and reloads the form, keeping what was typed', { skip }, async () => {
  const page = await browser.context.newPage();
  await page.route('**/api/forms/introduction', async (route) => {
    const res = await route.fetch();
    const def = await res.json();
    def.formVersion = '999';
    await route.fulfill({ response: res, json: def });
  });
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  await fill(page, { ...ada, email: 'version@example.com' });
  const answer = draftResponse(page);
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  const problem = await (await answer).json();
  assert.equal(problem.code, 'FORM_VERSION_UNKNOWN');
  await page.waitForSelector('.intro-summary li');
  assert.match(await page.textContent('.intro-summary'), /This form has changed since you opened it/);
  await checkState(page, 'form version unknown');
  await page.unroute('**/api/forms/introduction');
  await page.getByRole('button', { name: 'Reload the form' }).click();
  await page.waitForSelector('.intro-summary:empty', { state: 'attached' });
  assert.equal(await page.inputValue('#intro-email'), 'version@example.com', 'what was typed is kept');
  const second = draftResponse(page);
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  assert.equal((await second).status(), 201);
  await page.waitForSelector('text=Please check your introduction');
  await page.close();
});

test('an optional consent: each purpose of the version has its own unticked box; ticked, it is sent, kept, shown in the review and confirmed', { skip }, async () => {
  const { page, seen } = await open(server.origin, { width: 390, height: 844 });
  const def = await (await fetch(`${server.origin}/api/forms/introduction`)).json();
  const future = def.purposes.find((p) => p.id === 'future-roles');
  assert.ok(future && future.consent, 'the served version offers future-roles');
  // Its own box, unticked, labelled with the exact consent text; its text
  // version is the page's business (data-text-version), not the visitor's.
  const box = page.getByLabel(future.consent.text, { exact: true });
  assert.equal(await box.count(), 1);
  assert.equal(await box.isChecked(), false, 'unticked until the visitor ticks it');
  assert.equal(await box.getAttribute('id'), future.consent.control);
  assert.equal(await box.getAttribute('data-text-version'), future.consent.textVersion);
  const options = await page.innerText('.intro-options');
  assert.ok(!options.includes(future.consent.textVersion) && !/Consent text/.test(options), options);
  // The conversation's consent is not among them: it sits with a conversation.
  assert.equal(await page.locator('#consent-attach-conversation').count(), 0);
  await checkState(page, 'optional permission, unticked');

  // Left unticked, nothing optional is claimed, and the review says so.
  await fill(page, { ...ada, email: 'future-roles@example.com' });
  let answer = draftResponse(page);
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  assert.deepEqual((await answer).request().postDataJSON().consents, []);
  await page.waitForSelector('text=Please check your introduction');
  assert.match(await page.textContent('dd[data-field="consents"]'), /^Nothing optional: you ticked no box/);
  await checkState(page, 'review, nothing optional agreed');

  // Edit, tick it: the revision sends it, the service keeps it, the review shows it.
  await page.getByRole('button', { name: 'Edit' }).click();
  assert.equal(await page.getByLabel(future.consent.text, { exact: true }).isChecked(), false);
  await page.getByLabel(future.consent.text, { exact: true }).check();
  await checkState(page, 'optional permission, ticked');
  answer = page.waitForResponse((r) => r.request().method() === 'POST' && /\/revision$/.test(new URL(r.url()).pathname));
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  const revised = await answer;
  assert.equal(revised.status(), 200);
  assert.deepEqual(revised.request().postDataJSON().consents, [{ purpose: 'future-roles', textVersion: future.consent.textVersion, given: true }]);
  const kept = await revised.json();
  // The evidence as the service kept it names the purpose, the text and
  // its hash, the control that was ticked, that it was actively checked,
  // and how to withdraw.
  assert.equal(kept.consents.length, 1);
  const ev = kept.consents[0];
  assert.equal(ev.purpose, 'future-roles');
  assert.equal(ev.basis, 'consent');
  assert.equal(ev.control, future.consent.control);
  assert.equal(ev.textVersion, future.consent.textVersion);
  assert.equal(ev.textSha256, future.consent.sha256);
  assert.equal(ev.activelyChecked, true);
  assert.equal(ev.withdrawalPath, `/api/introductions/${kept.id}/withdrawal`);
  await page.waitForSelector('text=Please check your introduction');
  const agreed = await page.textContent('dd[data-field="consents"]');
  assert.equal(agreed, `${future.consent.text} (the box you ticked)`, 'the text agreed to, without its version');
  assert.equal(await page.locator('dt', { hasText: 'You agreed to' }).count(), 1);
  await checkState(page, 'review, an optional permission agreed');

  const confirmed = page.waitForResponse((r) => r.url().endsWith(`/api/introductions/${kept.id}/confirmation`));
  await page.getByRole('button', { name: 'Confirm and send' }).click();
  assert.equal((await confirmed).status(), 200);
  await page.waitForSelector('text=your introduction is on its way');
  assert.deepEqual(seen.errors, []);
  await page.close();
});

test('every state above was checked with axe-core', { skip }, () => {
  for (const state of ['empty', 'filled, with a conversation', 'solving', 'field errors', 'form version unknown', 'rate limited',
    'review with a conversation', 'review without a conversation (not attached)', 'success', 'withdraw', 'withdrawn',
    'optional permission, unticked', 'optional permission, ticked', 'review, nothing optional agreed', 'review, an optional permission agreed']) {
    assert.ok(checked.has(state), `state "${state}" was not checked`);
  }
});

test('the form page loads with no failed request and no console error: its icon is served', { skip }, async () => {
  const page = await browser.context.newPage();
  const failed = [];
  const errors = [];
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`); });
  page.on('requestfailed', (r) => failed.push(`failed ${new URL(r.url()).pathname}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  const icon = await page.getAttribute('link[rel="icon"]', 'href');
  assert.ok(icon, 'the page names its icon');
  const res = await page.request.get(new URL(icon, `${server.origin}/`).href);
  assert.equal(res.status(), 200);
  assert.equal(res.headers()['content-type'], 'image/svg+xml');
  // Without an icon of its own the browser asks for /favicon.ico: a 404.
  await page.waitForTimeout(300);
  assert.deepEqual(failed, []);
  assert.deepEqual(errors, []);
  await page.close();
});
