// The page's attachment in headless Chromium against the real dev server
// (on the Firestore emulator and fake-gcs-server), in English (en-US) and
// in Persian (fa-IR): the rules are said before a file is picked, the
// upload shows a progress bar, the review shows the file as kept, a refused
// file gets a sentence at the field (the service's own detail in English,
// the page's sentence for its code in Persian), and a kept file can be
// removed; every sentence in the browser's language, sizes in its digits.
// Every state is checked with axe-core. UPDATE_SCREENSHOTS=1 writes the
// README's screenshots shared/sitepage/screenshots/attachment.png,
// attachment-refused.png, attachment-fa.png and attachment-refused-fa.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, devServer, skipReason, screenshotDir } from './harness.mjs';
import { checkState } from './a11y.mjs';

const skip = skipReason();
const shotDir = screenshotDir('shared/sitepage/screenshots');
const maxBytes = 256 << 10;

// shown is an element's text as read, without the isolates (U+2068,
// U+2069) a right-to-left page puts around Latin type names.
const shown = async (page, selector) => (await page.textContent(selector)).replace(/[\u2068\u2069]/g, '');

// What each language's page says, as a visitor reads it.
const locales = {
  'en-US': {
    shot: '',
    rules: 'One file: PDF, PNG, JPEG or plain text, at most 256 KiB. It is sent when you press Review, and kept privately with your introduction.',
    choose: 'Choose a file', noneChosen: 'No file chosen',
    review: 'Review', heading: 'Please check your introduction', edit: 'Edit', remove: 'Remove the file',
    removed: 'The file was removed from your draft.', none: '(no file)',
    reviewed: (kib) => `job description.pdf — PDF, ${kib} KiB`,
    kept: /^Kept with your draft: job description\.pdf \(PDF, \d+ KiB\)\. Choose another file to replace it\.$/,
    sending: /^Sending your file… \d+%$/,
    // English shows the service's own detail, but for a file that is not
    // what it says (the service's detail names the format's fault) the
    // page's plain sentence.
    refusal: (problem) => (problem.code === 'ATTACHMENT_TYPE_REFUSED'
      ? 'This file could not be read as PDF, PNG, JPEG or plain text: it may be damaged, or not the type its name says. Choose another file, or send your introduction without one.'
      : problem.detail),
  },
  'fa-IR': {
    shot: '-fa',
    rules: 'فقط یک پرونده: PDF، PNG، JPEG یا متن ساده، حداکثر ۲۵۶ کیلوبایت. وقتی «بازبینی» را بزنید فرستاده می‌شود و به‌طور خصوصی کنار معرفی‌نامه‌تان نگه داشته می‌شود.',
    choose: 'انتخاب پرونده', noneChosen: 'پرونده‌ای انتخاب نشده است',
    review: 'بازبینی', heading: 'لطفاً معرفی‌نامه‌تان را بررسی کنید', edit: 'ویرایش', remove: 'حذف پرونده',
    removed: 'پرونده از پیش‌نویس شما حذف شد.', none: '(بدون پرونده)',
    reviewed: (kib) => `job description.pdf — PDF، ${kib.toLocaleString('fa')} کیلوبایت`,
    kept: /^کنار پیش‌نویس شما نگه داشته شده: job description\.pdf \(PDF، [۰-۹]+ کیلوبایت\)\. برای جایگزینی، پروندهٔ دیگری انتخاب کنید\.$/,
    sending: /^در حال فرستادن پرونده… [۰-۹]+٪$/,
    // Persian shows the page's sentence for the code (the service writes
    // its details in English).
    refusal: (problem) => ({
      ATTACHMENT_TYPE_REFUSED: 'این پرونده به‌صورت PDF، PNG، JPEG یا متن ساده خوانده نشد: شاید آسیب دیده باشد یا از نوعی نباشد که نامش می‌گوید. پروندهٔ دیگری انتخاب کنید یا معرفی‌نامه‌تان را بدون پیوست بفرستید.',
      ATTACHMENT_TOO_LARGE: 'این پرونده از ۲۵۶ کیلوبایت، بیشترین اندازهٔ مجاز برای پیوست، بزرگ‌تر است. پروندهٔ کوچک‌تری انتخاب کنید یا معرفی‌نامه‌تان را بدون پیوست بفرستید.',
      ATTACHMENT_EMPTY: 'این پرونده خالی است. پروندهٔ دیگری انتخاب کنید یا معرفی‌نامه‌تان را بدون پیوست بفرستید.',
    })[problem.code],
  },
};

let server;
const browsers = {};

before(async () => {
  if (skip) return;
  const launched = await Promise.all([
    devServer({ ATTACHMENT_MAX_BYTES: String(maxBytes) }),
    ...Object.keys(locales).map((locale) => launch({ viewport: { width: 420, height: 900 }, locale })),
  ]);
  server = launched.shift();
  for (const locale of Object.keys(locales)) browsers[locale] = launched.shift();
});

after(async () => {
  await Promise.all(Object.values(browsers).map((b) => b.close()));
  if (server) await server.stop();
});

const ada = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello! The job description is attached.' };

// pdf is a small real PDF of about size bytes.
function pdf(size) {
  const head = '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n';
  const pad = '%' + 'x'.repeat(Math.max(0, size - head.length - 60)) + '\n';
  return Buffer.from(head + pad + 'trailer\n<< /Root 1 0 R >>\n%%EOF\n');
}

async function open(locale) {
  const page = await browsers[locale].context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  for (const [name, value] of Object.entries(ada)) await page.fill(`#intro-${name}`, value);
  // Every progress value the upload shows, as the visitor would see it.
  await page.evaluate(() => {
    window.__progress = [];
    window.__progressLabels = [];
    new MutationObserver(() => {
      const bar = document.querySelector('#intro-upload-progress');
      if (bar) window.__progress.push(bar.value);
      const label = document.querySelector('label[for="intro-upload-progress"]');
      if (label) window.__progressLabels.push(label.textContent);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  return { page, errors };
}

for (const [locale, say] of Object.entries(locales)) {
  test(`${locale}: a file is sent with a progress bar, shown in the review, and can be removed`, { skip }, async () => {
    const { page, errors } = await open(locale);
    assert.equal(await shown(page, '#intro-attachment-rules'), say.rules);
    // Latin type names are isolated on a right-to-left page, so a list of
    // them reads from the right as the sentence does.
    assert.equal((await page.textContent('#intro-attachment-rules')).includes('\u2068PDF\u2069'), locale === 'fa-IR');
    await checkState(page, `attachment (${locale}): the rules before a file is picked`);
    // The picker is drawn in the page's language (the native input's own
    // button speaks the browser's); a click on it opens the file chooser.
    assert.equal(await page.textContent('.intro-file-button'), say.choose);
    assert.equal(await page.textContent('#intro-attachment-chosen'), say.noneChosen);
    const chooser = page.waitForEvent('filechooser');
    await page.click('.intro-file-button');
    const file = pdf(200 << 10);
    await (await chooser).setFiles({ name: 'job description.pdf', mimeType: 'application/pdf', buffer: file });
    assert.equal(await page.textContent('#intro-attachment-chosen'), 'job description.pdf');
    // The input under it is the keyboard's control, its focus ring drawn on the button.
    await page.focus('#intro-attachment');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'intro-attachment');
    assert.notEqual(await page.$eval('.intro-file-button', (b) => getComputedStyle(b).outlineStyle), 'none', 'the focused picker shows its focus ring');
    const put = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith('/attachment'));
    await page.getByRole('button', { name: say.review, exact: true }).click();
    const res = await put;
    assert.equal(res.status(), 200);
    assert.equal(res.request().headers()['content-disposition'], "attachment; filename*=UTF-8''job%20description.pdf");
    assert.match(res.request().headers().authorization, /^Bearer [A-Za-z0-9_-]{20,}$/);
    await page.waitForSelector(`text=${say.heading}`);
    assert.equal(await shown(page, 'dd[data-field="attachment"]'), say.reviewed(Math.floor(file.length / 1024)));
    const progress = await page.evaluate(() => window.__progress);
    assert.ok(progress.length > 0 && progress[0] === 0, `the progress bar showed ${JSON.stringify(progress)}`);
    for (const label of await page.evaluate(() => window.__progressLabels)) assert.match(label, say.sending);
    await checkState(page, `attachment (${locale}): the review shows the file`);
    await page.screenshot({ path: join(shotDir, `attachment${say.shot}.png`), fullPage: true });

    await page.getByRole('button', { name: say.edit }).click();
    assert.match(await shown(page, '#intro-attachment-kept p'), say.kept);
    await checkState(page, `attachment (${locale}): kept with the draft, on Edit`);
    const del = page.waitForResponse((r) => r.request().method() === 'DELETE');
    await page.getByRole('button', { name: say.remove }).click();
    assert.equal((await del).status(), 204);
    await page.waitForSelector(`text=${say.removed}`);
    await page.getByRole('button', { name: say.review, exact: true }).click();
    await page.waitForSelector(`text=${say.heading}`);
    assert.equal(await page.textContent('dd[data-field="attachment"]'), say.none);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${locale}: each refused file gets a sentence at the field, in the page's language`, { skip }, async () => {
    const { page, errors } = await open(locale);
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
      await page.getByRole('button', { name: say.review, exact: true }).click();
      const problem = await (await put).json();
      assert.equal(problem.code, c.code, c.file.name);
      const want = say.refusal(problem);
      assert.ok(want, `a sentence for ${problem.code}`);
      await page.waitForFunction((d) => document.querySelector('#intro-attachment-error').textContent.replace(/[\u2068\u2069]/g, '') === d, want);
      assert.equal(await page.getAttribute('#intro-attachment', 'aria-invalid'), 'true');
      assert.ok((await shown(page, '.intro-summary')).includes(want), 'the summary lists the sentence');
      if (i === 0) {
        await checkState(page, `attachment (${locale}): refused`);
        await page.screenshot({ path: join(shotDir, `attachment-refused${say.shot}.png`), fullPage: true });
      }
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}
