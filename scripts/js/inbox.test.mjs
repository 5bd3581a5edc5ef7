// The owner's local inbox of make run in headless Chromium: scripts/devserver
// (on the Firestore emulator, a project of its own) mails the owner through
// a real MailDev, the local mail server make run starts, started here by
// scripts/maildev.sh on free loopback ports; a visitor's introduction sent through
// the form page shows in MailDev's web inbox, and opens there.
// UPDATE_SCREENSHOTS=1 writes the README's screenshot to scripts/screenshots/.
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

let mail, server, browser;

// twoFreePorts asks the kernel for two distinct free loopback ports (both
// held until both are known).
async function twoFreePorts() {
  const held = [netServer(), netServer()];
  await Promise.all(held.map((s) => new Promise((r) => s.listen(0, '127.0.0.1', r))));
  const ports = held.map((s) => s.address().port);
  await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

// startMaildev starts the mail server as make run does (scripts/maildev.sh
// start), on free loopback ports and with a state folder of its own;
// stop() is scripts/maildev.sh stop.
async function startMaildev() {
  const [smtp, web] = await twoFreePorts();
  const env = { ...process.env, MAILDEV_SMTP_PORT: String(smtp), MAILDEV_WEB_PORT: String(web), TMPDIR: mkdtempSync(join(tmpdir(), 'introductions-maildev-')) };
  const { stdout } = await run(join(repo, 'scripts/maildev.sh'), ['start'], { env });
  const vars = Object.fromEntries(stdout.trim().split('\n').map((l) => l.split('=', 2)));
  assert.equal(vars.MAILDEV_SMTP_ADDR, `127.0.0.1:${smtp}`);
  return {
    smtp,
    url: vars.MAILDEV_WEB_URL,
    async stop() {
      await run(join(repo, 'scripts/maildev.sh'), ['stop'], { env });
      rmSync(env.TMPDIR, { recursive: true, force: true });
    },
  };
}

before(async () => {
  if (skip) return;
  mkdirSync(shotDir, { recursive: true });
  mail = await startMaildev();
  const [port] = await twoFreePorts();
  [server, browser] = await Promise.all([
    devServer({
      ADMIN_URL: `http://127.0.0.1:${port}`,
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(mail.smtp),
      SMTP_TLS: 'none',
      NOTIFY_EMAIL_FROM: 'Introductions <introductions@localhost>',
      NOTIFY_EMAIL_TO: 'owner@localhost',
    }, { port }),
    launch({ viewport: { width: 1200, height: 800 } }),
  ]);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (mail) await mail.stop();
});

// introduce sends an introduction through the form page as a visitor does
// and returns the page, on the success state.
async function introduce(fields) {
  const page = await browser.context.newPage();
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  for (const [name, value] of Object.entries(fields)) await page.fill(`#intro-${name}`, value);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.waitForSelector('text=Please check your introduction');
  await page.getByRole('button', { name: 'Confirm and send' }).click();
  await page.waitForSelector('#intro-withdraw-link');
  return page;
}

// inbox opens MailDev's web inbox and waits for a message whose subject
// matches subject.
async function inbox(subject) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const res = await page.goto(`${mail.url}/`);
  assert.equal(res.status(), 200);
  await page.getByText(subject).first().waitFor({ timeout: 30_000 });
  return { page, errors };
}

test("the owner's notification shows in make run's local inbox", { skip }, async () => {
  const visitor = await introduce({
    name: 'Ada Lovelace',
    company: 'Analytical Engines',
    role: 'CTO',
    email: 'ada@example.com',
    message: 'Hello! I would like to talk about the engine.',
  });
  await visitor.close();
  // The subject isolates each value the visitor wrote (U+2068 … U+2069).
  const { page, errors } = await inbox('Introduction from \u2068Ada Lovelace\u2069 (\u2068Analytical Engines\u2069)');
  await page.getByText('Introduction from \u2068Ada Lovelace\u2069 (\u2068Analytical Engines\u2069)').first().click();
  // The message opens: its HTML body (in MailDev's frame) names the sender
  // and says what they wrote.
  const body = page.frameLocator('iframe').first().locator('body');
  await body.getByText('Hello! I would like to talk about the engine.').waitFor();
  assert.match(await body.innerText(), /Someone introduced themselves through your site/);
  // MailDev sizes its frame to the message once it has rendered.
  await page.waitForFunction(() => document.querySelector('iframe').getBoundingClientRect().height > 400);
  await page.screenshot({ path: join(shotDir, 'local-inbox.png') });
  assert.deepEqual(errors, [], 'page errors in the inbox');
  await page.close();

  // Plain SMTP gives no receipt: the admin's list says what is known.
  const admin = await browser.context.newPage();
  await admin.goto(`${server.origin}/admin/`);
  assert.match(await admin.locator('.intros .intro', { hasText: 'Ada Lovelace' }).locator('.handoff').innerText(), /^emailed$/);
  assert.match(await admin.locator('#receipts-note').innerText(), /Check that the mails arrive/);
  await admin.close();
});

test('a withdrawal brings the owner a content-free notice, and the admin link says so once', { skip }, async () => {
  const visitor = await introduce({
    name: 'Grace Hopper',
    company: 'Compiler Works',
    role: 'Recruiter',
    email: 'grace@example.com',
    message: 'A role on the compiler team.',
  });
  // The receipt gives the withdrawal link in a copy field; the visitor opens it.
  await visitor.goto(await visitor.inputValue('#intro-withdraw-link'));
  await visitor.getByRole('button', { name: 'Withdraw my introduction' }).click();
  await visitor.waitForSelector('text=Your introduction has been withdrawn');
  await visitor.close();

  const { page, errors } = await inbox('An introduction was withdrawn or erased: please delete the earlier mail');
  await page.getByText('An introduction was withdrawn or erased: please delete the earlier mail').first().click();
  const body = page.frameLocator('iframe').first().locator('body');
  await body.getByText(/An introduction confirmed on .+ was withdrawn or erased on/).waitFor();
  const text = await body.innerText();
  assert.match(text, /Its content is gone from your admin/);
  assert.match(text, /Please delete the mail this notice follows/);
  for (const content of ['Grace', 'Compiler Works', 'grace@example.com', 'compiler team']) assert.ok(!text.includes(content), `the notice repeats ${content}`);
  await page.waitForFunction(() => document.querySelector('iframe').getBoundingClientRect().height > 150);
  await page.screenshot({ path: join(shotDir, 'withdrawal-notice.png') });
  assert.deepEqual(errors, [], 'page errors in the inbox');

  // The earlier mail's admin link now says what happened, once, with the date.
  await page.getByText('Introduction from \u2068Grace Hopper\u2069 (\u2068Compiler Works\u2069)').first().click();
  const link = await page.frameLocator('iframe').first().getByRole('link', { name: 'Open it in your admin' }).getAttribute('href');
  const admin = await browser.context.newPage();
  const res = await admin.goto(link);
  assert.equal(res.status(), 410);
  assert.equal(await admin.getByRole('heading', { level: 1 }).innerText(), 'Introduction withdrawn');
  const main = await admin.locator('main').innerText();
  assert.equal(main.match(/withdrawn by the person who sent it/g).length, 1);
  assert.match(main, /received on \d+ \w+ \d{4}, \d\d:\d\d was withdrawn by the person who sent it on \d+ \w+ \d{4}/);
  assert.ok(!/No such introduction/.test(main));
  await admin.screenshot({ path: join(shotDir, 'admin-withdrawn.png') });
  await admin.close();
  await page.close();
});
