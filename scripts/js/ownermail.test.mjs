// The owner's mail in the owner's language (OWNER_LANGUAGE=fa, right to
// left, OWNER_TIME_ZONE=Asia/Tehran) in headless Chromium: scripts/devserver
// mails the owner through a real MailDev (scripts/maildev.sh, on free
// loopback ports); a visitor's introduction with Persian and English values
// opens in MailDev's web inbox. Each value the visitor wrote takes its own
// direction and aligns with it (computed direction and text-align, and the
// side of its box its text keeps), the subject keeps the zero-width
// non-joiner byte for byte, in the light scheme and the dark one.
// UPDATE_SCREENSHOTS=1 writes scripts/screenshots/owner-mail-fa*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { createServer as netServer } from 'node:net';
import { launch, devServer, skipReason, screenshotDir, repo } from './harness.mjs';

const run = promisify(execFile);
const skip = skipReason();
const shotDir = screenshotDir('scripts/screenshots');
const visitor = {
  name: 'سارا محمدی',
  company: 'دیجی\u200cکالا',
  role: 'Senior Engineer',
  email: 'sara@example.com',
  message: 'سلام! I saw your talk on Go در تهران، and would like to talk.',
};
const subject = `معرفی\u200cنامه از \u2068${visitor.name}\u2069 (\u2068${visitor.company}\u2069)`;

let mail, server, browser;

before(async () => {
  if (skip) return;
  mkdirSync(shotDir, { recursive: true });
  const held = [netServer(), netServer(), netServer()];
  await Promise.all(held.map((s) => new Promise((r) => s.listen(0, '127.0.0.1', r))));
  const [smtp, web, port] = held.map((s) => s.address().port);
  await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  const env = { ...process.env, MAILDEV_SMTP_PORT: String(smtp), MAILDEV_WEB_PORT: String(web), TMPDIR: mkdtempSync(join(tmpdir(), 'introductions-maildev-')) };
  const { stdout } = await run(join(repo, 'scripts/maildev.sh'), ['start'], { env });
  const url = Object.fromEntries(stdout.trim().split('\n').map((l) => l.split('=', 2))).MAILDEV_WEB_URL;
  mail = {
    url,
    async stop() {
      await run(join(repo, 'scripts/maildev.sh'), ['stop'], { env });
      rmSync(env.TMPDIR, { recursive: true, force: true });
    },
  };
  [server, browser] = await Promise.all([
    devServer({
      ADMIN_URL: `http://127.0.0.1:${port}`,
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp),
      SMTP_TLS: 'none',
      NOTIFY_EMAIL_FROM: 'Introductions <introductions@localhost>',
      NOTIFY_EMAIL_TO: 'owner@localhost',
      OWNER_LANGUAGE: 'fa',
      OWNER_TIME_ZONE: 'Asia/Tehran',
    }, { port }),
    launch({ viewport: { width: 1200, height: 1000 } }),
  ]);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (mail) await mail.stop();
});

test("the owner's mail in Persian keeps each visitor value in its own direction", { skip }, async () => {
  const form = await browser.context.newPage();
  await form.goto(`${server.origin}/`);
  await form.waitForSelector('form');
  for (const [name, value] of Object.entries(visitor)) await form.fill(`#intro-${name}`, value);
  await form.getByRole('button', { name: 'Review' }).click();
  await form.waitForSelector('text=Please check your introduction');
  await form.getByRole('button', { name: 'Confirm and send' }).click();
  await form.waitForSelector('#intro-withdraw-link');
  await form.close();

  // The subject byte for byte, as MailDev parsed it: the ZWNJ kept, each value isolated.
  let received;
  for (let i = 0; i < 100 && !received; i++) {
    received = (await (await fetch(`${mail.url}/api/email`)).json()).find((m) => m.subject.includes('معرفی'));
    if (!received) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(received, `no mail arrived:\n${server.log().slice(-3000)}`);
  // The page's automation makes it likely spam, which the subject says first.
  assert.ok([subject, `[احتمالاً هرزنامه] ${subject}`].includes(received.subject), received.subject);
  assert.ok(!received.subject.includes('دیجی کالا'));

  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${mail.url}/`);
  await page.getByText(subject).first().click();
  const frame = page.frameLocator('iframe').first();
  await frame.locator('h1').getByText('معرفی\u200cنامهٔ تازه').waitFor();
  await page.waitForFunction(() => document.querySelector('iframe').getBoundingClientRect().height > 400);

  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const seen = await frame.locator('html').evaluate((html, values) => {
      const card = document.querySelector('.card');
      const out = { lang: html.lang, dir: html.dir, cardDirection: getComputedStyle(card).direction, background: getComputedStyle(card).backgroundColor, values: {} };
      for (const el of document.querySelectorAll('[dir="auto"]')) {
        const value = Object.keys(values).find((k) => el.textContent === values[k]);
        if (!value) continue;
        const range = document.createRange();
        range.selectNodeContents(el);
        const text = range.getBoundingClientRect();
        const box = el.getBoundingClientRect();
        const s = getComputedStyle(el);
        out.values[value] = { direction: s.direction, textAlign: s.textAlign, bidi: s.unicodeBidi, side: Math.abs(text.right - box.right) < 2 ? 'right' : Math.abs(text.left - box.left) < 2 ? 'left' : 'middle' };
      }
      return out;
    }, visitor);
    assert.equal(seen.lang, 'fa');
    assert.equal(seen.dir, 'rtl');
    assert.equal(seen.cardDirection, 'rtl');
    assert.equal(seen.background, scheme === 'dark' ? 'rgb(27, 32, 39)' : 'rgb(255, 255, 255)');
    const want = { name: 'rtl', company: 'rtl', role: 'ltr', email: 'ltr', message: 'rtl' };
    for (const [value, direction] of Object.entries(want)) {
      assert.deepEqual(seen.values[value], { direction, textAlign: 'start', bidi: 'isolate', side: direction === 'rtl' ? 'right' : 'left' }, `${value} in ${scheme}`);
    }
    await page.screenshot({ path: join(shotDir, scheme === 'dark' ? 'owner-mail-fa-dark.png' : 'owner-mail-fa.png') });
  }
  assert.deepEqual(errors, [], 'page errors in the inbox');
  await page.close();
});
