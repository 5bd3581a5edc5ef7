// The page's attachment in headless Chromium against the real dev server
// (on the Firestore emulator and fake-gcs-server): the rules are said
// before a file is picked, the upload shows a progress bar, the review
// shows the file as kept, a refused file gets the service's own sentence
// at the field, and a kept file can be removed. Every state is checked
// with axe-core. UPDATE_SCREENSHOTS=1 writes the README's screenshots
// shared/sitepage/screenshots/attachment.png and attachment-refused.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, devServer, skipReason, screenshotDir } from './harness.mjs';
import { checkState } from './a11y.mjs';

const skip = skipReason();
const shotDir = screenshotDir('shared/sitepage/screenshots');
const maxBytes = 256 << 10;

let server, browser;

before(async () => {
  if (skip) return;
  [server, browser] = await Promise.all([devServer({ ATTACHMENT_MAX_BYTES: String(maxBytes) }), launch({ viewport: { width: 420, height: 900 } })]);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const ada = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello! The job description is attached.' };

// pdf is a small real PDF of about size bytes.
function pdf(size) {
  const head = '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n';
  const pad = '%' + 'x'.repeat(Math.max(0, size - head.length - 60)) + '\n';
  return Buffer.from(head + pad + 'trailer\n<< /Root 1 0 R >>\n%%EOF\n');
}

async function open() {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  for (const [name, value] of Object.entries(ada)) await page.fill(`#intro-${name}`, value);
  // Every progress value the upload shows, as the visitor would see it.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const bar = document.querySelector('#intro-upload-progress');
      if (bar) window.__progress.push(bar.value);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  return { page, errors };
}

test('a file is sent with a progress bar, shown in the review, and can be removed', { skip }, async () => {
  const { page, errors } = await open();
  const rules = await page.textContent('#intro-attachment-rules');
  assert.equal(rules, 'One file: PDF, PNG, JPEG or plain text, at most 256 KiB. It is sent when you press Review, and kept privately with your introduction.');
  await checkState(page, 'attachment: the rules before a file is picked');

  const file = pdf(200 << 10);
  await page.setInputFiles('#intro-attachment', { name: 'job description.pdf', mimeType: 'application/pdf', buffer: file });
  const put = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith('/attachment'));
  await page.getByRole('button', { name: 'Review' }).click();
  const res = await put;
  assert.equal(res.status(), 200);
  assert.equal(res.request().headers()['content-disposition'], "attachment; filename*=UTF-8''job%20description.pdf");
  assert.match(res.request().headers().authorization, /^Bearer [A-Za-z0-9_-]{20,}$/);
  await page.waitForSelector('text=Please check your introduction');
  assert.equal(await page.textContent('dd[data-field="attachment"]'), `job description.pdf — PDF, ${Math.floor(file.length / 1024)} KiB`);
  const progress = await page.evaluate(() => window.__progress);
  assert.ok(progress.length > 0 && progress[0] === 0, `the progress bar showed ${JSON.stringify(progress)}`);
  await checkState(page, 'attachment: the review shows the file');
  await page.screenshot({ path: join(shotDir, 'attachment.png'), fullPage: true });

  await page.getByRole('button', { name: 'Edit' }).click();
  assert.match(await page.textContent('#intro-attachment-kept'), /Kept with your draft: job description\.pdf \(PDF, \d+ KiB\)/);
  await checkState(page, 'attachment: kept with the draft, on Edit');
  const del = page.waitForResponse((r) => r.request().method() === 'DELETE');
  await page.getByRole('button', { name: 'Remove the file' }).click();
  assert.equal((await del).status(), 204);
  await page.waitForSelector('text=The file was removed from your draft.');
  await page.getByRole('button', { name: 'Review' }).click();
  await page.waitForSelector('text=Please check your introduction');
  assert.equal(await page.textContent('dd[data-field="attachment"]'), '(no file)');
  assert.deepEqual(errors, []);
  await page.close();
});

test('each refused file gets the service\'s own sentence at the field', { skip }, async () => {
  const { page, errors } = await open();
  const cases = [
    { file: { name: 'cv.png', mimeType: 'image/png', buffer: pdf(2000) }, code: 'ATTACHMENT_TYPE_REFUSED' },
    { file: { name: 'page.txt', mimeType: 'text/plain', buffer: Buffer.from('<html><script>alert(1)</script></html>') }, code: 'ATTACHMENT_TYPE_REFUSED' },
    { file: { name: 'big.pdf', mimeType: 'application/pdf', buffer: pdf(maxBytes + 4096) }, code: 'ATTACHMENT_TOO_LARGE' },
    { file: { name: 'empty.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(0) }, code: 'ATTACHMENT_EMPTY' },
    { file: { name: 'archive.zip', mimeType: 'application/zip', buffer: Buffer.from('PK\x03\x04') }, code: 'ATTACHMENT_TYPE_REFUSED' },
  ];
  for (const [i, c] of cases.entries()) {
    await page.setInputFiles('#intro-attachment', c.file);
    const put = page.waitForResponse((r) => r.request().method() === 'PUT');
    await page.getByRole('button', { name: 'Review' }).click();
    const problem = await (await put).json();
    assert.equal(problem.code, c.code, c.file.name);
    await page.waitForFunction((d) => document.querySelector('#intro-attachment-error').textContent === d, problem.detail);
    assert.equal(await page.getAttribute('#intro-attachment', 'aria-invalid'), 'true');
    assert.ok((await page.textContent('.intro-summary')).includes(problem.detail), 'the summary lists the sentence');
    if (i === 0) {
      await checkState(page, 'attachment: refused');
      await page.screenshot({ path: join(shotDir, 'attachment-refused.png'), fullPage: true });
    }
  }
  assert.deepEqual(errors, []);
  await page.close();
});
