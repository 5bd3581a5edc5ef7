// The page in every engine (Chromium, Firefox, WebKit; ENGINES picks some):
// the same tests through the thin driver layer of engines.mjs, against the
// real dev server behind a loopback proxy (harness.faultProxy). The whole
// flow (the form filled by its labels → Review → Edit → Review → Confirm →
// the withdrawal link → withdrawn), the error states (the service's problems
// at their fields, busy, a solver failure, the form that could not be
// loaded), and axe-core on each state; and the solver against the native
// Go solver (salts of every length, digit-count changes, in workers and on
// the page's thread).
//
// What a driver cannot do is done another way, the same in all three:
//   - No driver here intercepts requests but Chromium's, so the faults come
//     from the proxy (a dropped connection, a 503, a challenge rewritten).
//   - WebKitWebDriver runs no script before the page's own, so page errors
//     are recorded by listeners added once the form is up (an error before
//     that leaves no form to find), and CSP violations reach the proxy as
//     the browser's own reports (report-uri added to the page's CSP).
//   - puppeteer's Firefox over BiDi and WebKitWebDriver cannot emulate
//     prefers-color-scheme per page: there the flow and the error states
//     run twice, in an engine opened in the light scheme and in one opened
//     in the dark scheme (engines.mjs, options.colorScheme), with axe-core
//     on each state in the scheme the engine shows.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { devServer, faultProxy, staticServer, powbench, benchPage, solveWithModule } from './harness.mjs';
import { openEngine, selectedEngines, engineSkip } from './engines.mjs';
import { checkState } from './a11y.mjs';

// byLabel is the XPath of the control a label names (its text starts so).
const byLabel = (label) => `//*[@id = //label[starts-with(normalize-space(.), ${JSON.stringify(label)})]/@for]`;
const button = (name) => `//button[normalize-space(.)=${JSON.stringify(name)}]`;

const ada = {
  'Your name': 'Ada Lovelace',
  Company: 'Analytical Engines',
  Role: 'CTO',
  Email: 'ada@example.com',
  Message: 'Hello! I would like to talk about the engine.',
};

async function fillByLabels(page, values) {
  for (const [label, value] of Object.entries(values)) await page.fill(byLabel(label), value);
}

const textOf = (page, sel) => page.evaluate((s) => {
  const el = document.querySelector(s);
  return el ? el.textContent : null;
}, sel);

const hasText = (page, text) => page.waitFor((t) => document.body.innerText.includes(t), text);

const busy = 'The service is busy right now. Please try again in a moment.';

// suites are the engines, each in the light scheme, and then those whose
// driver cannot emulate the scheme per page again in the dark one.
const suites = selectedEngines().map((name) => ({ name, scheme: 'light' }));
for (const name of selectedEngines()) if (name !== 'chromium') suites.push({ name, scheme: 'dark' });

for (const { name: engineName, scheme } of suites) {
  const skip = engineSkip(engineName);
  const name = scheme === 'dark' ? `${engineName} (dark)` : engineName;
  // node's --test-timeout bounds a suite as a whole too: an engine's suite
  // gets its own bound (WebKit starts a browser for each page).
  describe(name, { skip, timeout: 600_000 }, () => {
    let proxy, server, engine;

    before(async () => {
      proxy = await faultProxy();
      [server, engine] = await Promise.all([devServer({ ALLOWED_ORIGINS: proxy.origin }), openEngine(engineName, { colorScheme: scheme })]);
      proxy.target = server.origin;
    });

    after(async () => {
      if (engine) await engine.close();
      if (server) await server.stop();
      if (proxy) await proxy.close();
    });

    // open loads the page and, once the form is up, records page errors.
    async function open() {
      const page = await engine.newPage();
      await page.goto(`${proxy.origin}/`);
      await page.waitFor(() => !!document.querySelector('form'));
      if (!page.emulateMedia) {
        const dark = await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches);
        assert.equal(dark ? 'dark' : 'light', scheme, `${name} shows the ${scheme} scheme`);
      }
      await page.evaluate(() => {
        window.__errors = [];
        addEventListener('error', (e) => window.__errors.push(String(e.message)));
        addEventListener('unhandledrejection', (e) => window.__errors.push(String(e.reason)));
      });
      return page;
    }

    test(`${name}: the whole flow by the labels: Review, Edit, Review, Confirm, the withdrawal link`, async () => {
      proxy.cspReports.length = 0;
      proxy.requests.length = 0;
      const page = await open();
      await checkState(page, `${name}: empty`);

      await fillByLabels(page, ada);
      await page.click(button('Review'));
      await hasText(page, 'Please check your introduction');
      assert.equal(await textOf(page, 'dd[data-field="name"]'), ada['Your name']);
      assert.equal(await textOf(page, 'dd[data-field="email"]'), ada.Email);
      assert.equal(await textOf(page, 'dd[data-field="message"]'), ada.Message);
      await checkState(page, `${name}: review`);

      await page.click(button('Edit'));
      await page.waitFor(() => !!document.querySelector('form'));
      const kept = await page.evaluate(() => document.querySelector('#intro-name').value);
      assert.equal(kept, ada['Your name'], 'Edit keeps what was typed');
      const revised = 'Hello again! A second thought about the engine.';
      await page.fill(byLabel('Message'), revised);
      await page.click(button('Review'));
      await page.waitFor((t) => {
        const dd = document.querySelector('dd[data-field="message"]');
        return dd && dd.textContent === t;
      }, revised);
      await checkState(page, `${name}: review after Edit`);

      await page.click(button('Confirm and send'));
      await page.waitFor(() => !!document.querySelector('#intro-withdraw-link'));
      const href = await page.evaluate(() => document.querySelector('#intro-withdraw-link').value);
      const link = new URL(href);
      assert.equal(link.origin, proxy.origin);
      assert.equal(link.search, '', 'id and token never in the query');
      assert.match(link.hash, /^#withdraw\?id=[^&]+&token=[^&]+&name=[^&]+&at=[^&]+$/);
      await checkState(page, `${name}: success`);

      await page.evaluate((h) => { location.href = h; }, href);
      await hasText(page, 'Withdraw your introduction');
      await checkState(page, `${name}: withdraw`);
      await page.click(button('Withdraw my introduction'));
      await hasText(page, 'Your introduction has been withdrawn');
      assert.equal(new URL(await page.url()).hash, '', 'the token leaves the address bar');
      await checkState(page, `${name}: withdrawn`);

      assert.deepEqual(await page.evaluate(() => window.__errors), [], 'no page error');
      assert.deepEqual(proxy.cspReports, [], 'no CSP violation reported');
      assert.ok(proxy.requests.includes('GET /js/solver-worker.js'), 'the solver ran in a worker');
      assert.equal(proxy.requests.filter((r) => r === 'POST /api/introductions').length, 1, 'one draft kept');
      assert.equal(proxy.requests.filter((r) => /^POST \/api\/introductions\/[^/]+\/revision$/.test(r)).length, 1, 'the second Review revised it');
      await page.close();
    });

    test(`${name}: mixed Persian and English values, each in its own direction and side, in the review, the receipt and the withdrawal`, { skip: scheme === 'dark' }, async () => {
      const page = await open();
      await fillByLabels(page, { 'Your name': 'سارا محمدی', Company: 'دیجی\u200cکالا', Role: 'CTO, Platform', Email: 'sara@example.com', Message: 'سلام. دربارهٔ یک نقش فنی.\nA line in English.' });
      await page.click(button('Review'));
      await hasText(page, 'Please check your introduction');
      // Each value: its text, computed direction and text-align, the side
      // of its box its first letters sit on, and its font.
      const values = (sel) => page.evaluate((q) => [...document.querySelectorAll(q)].map((e) => {
        const box = e.getBoundingClientRect();
        const node = document.createTreeWalker(e, NodeFilter.SHOW_TEXT).nextNode();
        const r = document.createRange();
        r.setStart(node, 0);
        r.setEnd(node, Math.min(3, node.length));
        const first = r.getBoundingClientRect();
        const st = getComputedStyle(e);
        return [e.textContent, st.direction, st.textAlign, Math.abs(box.right - first.right) < Math.abs(first.left - box.left) ? 'right' : 'left', /mono/i.test(st.fontFamily), st.fontStyle];
      }), sel);
      const check = (rows, where) => {
        assert.equal(rows.length, 5, `${where}: five values`);
        for (const [text, direction, align, side, mono, style] of rows) {
          const fa = /^[\u0600-\u06FF]/.test(text);
          assert.deepEqual([direction, ['start', fa ? 'right' : 'left'].includes(align), side, mono, style], [fa ? 'rtl' : 'ltr', true, fa ? 'right' : 'left', false, 'normal'], `${where}: ${text}`);
        }
      };
      check(await values('dd[dir="auto"]'), `${name} review`);
      assert.equal(await textOf(page, 'dd[data-field="company"]'), 'دیجی\u200cکالا', 'the zero-width non-joiner kept');
      await page.click(button('Confirm and send'));
      await page.waitFor(() => !!document.querySelector('#intro-withdraw-link'));
      check(await values('.intro-kept dd[dir="auto"]'), `${name} receipt`);
      const href = await page.evaluate(() => document.querySelector('#intro-withdraw-link').value);
      // The owner's admin, in the same page (WebKit's driver holds one): the list's row of it and its detail.
      // The link kept first, as a visitor would, so that leaving the receipt does not warn.
      await page.click(button('Keep the receipt in this tab'));
      await page.goto(`${server.origin}/admin/?filter=all`);
      await page.waitFor(() => !!document.querySelector('.intros .intro'));
      await page.evaluate(() => document.querySelectorAll('.intros .intro').forEach((li) => {
        if (li.querySelector('.name bdi').textContent === 'سارا محمدی') li.classList.add('probe');
      }));
      const sara = await values('.probe .name bdi, .probe .who-line bdi, .probe .preview');
      assert.ok(sara.length >= 4, `${name} admin list: the row is there`);
      for (const [text, direction, , side] of sara) {
        const fa = /^[\u0600-\u06FF]/.test(text);
        assert.deepEqual([direction, side], [fa ? 'rtl' : 'ltr', fa ? 'right' : 'left'], `${name} admin list: ${text}`);
      }
      const id = decodeURIComponent(new URL(href).hash.match(/[?&]id=([^&]+)/)[1]);
      await page.goto(`${server.origin}/admin/introductions/${encodeURIComponent(id)}`);
      await page.waitFor(() => !!document.querySelector('.message'));
      const [[, direction, align, side]] = await values('.message');
      assert.deepEqual([direction, ['start', 'right'].includes(align), side], ['rtl', true, 'right'], `${name} admin detail: the Persian message`);
      assert.deepEqual((await values('.who-line bdi')).map((v) => v[1]), ['rtl', 'ltr'], `${name} admin detail: company right to left, role left to right`);
      await page.evaluate((h) => { location.href = h; }, href);
      await page.waitFor(() => !!document.querySelector('.intro-which bdi'));
      assert.deepEqual(await page.evaluate(() => {
        const b = document.querySelector('.intro-which bdi');
        return [b.textContent, getComputedStyle(b).direction];
      }), ['سارا محمدی', 'rtl'], `${name}: the withdrawal names it, isolated`);
      await page.close();
    });

    test(`${name}: the service's problems at their fields, busy, a solver failure, the form not loaded`, async () => {
      proxy.cspReports.length = 0;
      const page = await open();
      await fillByLabels(page, {
        'Your name': '   ',
        Email: 'not-an-address',
        Message: 'See https://a.example https://b.example https://c.example https://d.example',
      });
      await page.click(button('Review'));
      await page.waitFor(() => ['name', 'email', 'message'].every((f) => {
        const el = document.querySelector(`#intro-${f}-error`);
        return el && el.textContent.trim() !== '';
      }));
      const invalid = await page.evaluate(() => ['name', 'email', 'message'].map((f) => document.querySelector(`#intro-${f}`).getAttribute('aria-invalid')));
      assert.deepEqual(invalid, ['true', 'true', 'true']);
      await checkState(page, `${name}: field errors`);

      // The service does not answer: with the form loaded before, busy.
      proxy.faults.set('POST /api/introductions', 'reset');
      await fillByLabels(page, { ...ada, Email: 'busy@example.com' });
      await page.click(button('Review'));
      await page.waitFor((t) => {
        const li = document.querySelector('.intro-summary li');
        return li && li.textContent === t;
      }, busy);
      await checkState(page, `${name}: busy`);
      proxy.faults.clear();
      assert.deepEqual(await page.evaluate(() => window.__errors), [], 'no page error');
      await page.close();

      // Every challenge is one no solver can read.
      proxy.faults.set('GET /api/introductions/challenge', { json: (c) => ({ ...c, challenge: 'not hex' }) });
      const unsolvable = await open();
      await fillByLabels(unsolvable, { ...ada, Email: 'solver@example.com' });
      await unsolvable.click(button('Review'));
      await unsolvable.waitFor(() => !!document.querySelector('.intro-summary li'));
      assert.equal(await textOf(unsolvable, '.intro-summary li'), 'Your browser could not complete the automatic robot check. Please reload the page and try again.');
      await checkState(unsolvable, `${name}: solver failure`);
      proxy.faults.clear();
      await unsolvable.close();

      proxy.faults.set('GET /api/forms/introduction', { status: 503, body: 'Service Unavailable' });
      const broken = await engine.newPage();
      await broken.goto(`${proxy.origin}/`);
      await broken.waitFor(() => [...document.querySelectorAll('h1')].some((h) => h.textContent.includes('The form could not be loaded')));
      assert.match(await textOf(broken, '.intro'), /The service is busy right now/);
      await checkState(broken, `${name}: not loaded`);
      proxy.faults.clear();
      await broken.click(button('Try again'));
      await broken.waitFor(() => !!document.querySelector('form'));
      await broken.close();
      assert.deepEqual(proxy.cspReports, [], 'no CSP violation reported');
    });

    // The solver is checked once per engine: the scheme does not touch it.
    if (scheme === 'light') test(`${name}: the solver finds what the Go solver finds, in workers and on the page's thread`, async () => {
      const bench = await staticServer({
        '/bench/': ['text/html; charset=utf-8', benchPage],
        '/bench/bench.js': ['text/javascript; charset=utf-8', solveWithModule],
      });
      const page = await engine.newPage();
      try {
        await page.goto(`${bench.origin}/bench/`);
        await page.waitFor(() => !!(window.bench && window.bench.solveWith));
        const everyLength = await powbench(['make', '-n', '200', '-max', '1000', '-seed', '11']);
        const digits = await powbench(['make', '-n', '12', '-max', '123456', '-seed', '12']);
        for (const [cases, workers, chunk] of [[everyLength, 2, 64], [digits, 3, 1000], [digits, 0, 4096]]) {
          const got = await page.evaluate(([cs, w, ch]) => window.bench.solveWith(cs, w, ch), [cases.map((c) => c.challenge), workers, chunk]);
          assert.deepEqual(got, cases.map((c) => c.number), `${workers} workers, chunk ${chunk}`);
        }
      } finally {
        await page.close();
        await bench.close();
      }
    });
  });
}
