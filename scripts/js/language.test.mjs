// The page in the visitor's language, in headless Chromium against the real
// dev server: a browser set to Persian (locale fa-IR) gets the form in
// Persian, right to left, through Review, Edit, Confirm and the receipt;
// the language switch keeps what was typed, and a revision written after
// switching is the same draft, its consent evidence naming the text shown
// last; every field and the review of what the visitor wrote are dir="auto";
// counts and dates come through Intl in Persian digits. Every state is
// checked with axe-core in both languages. UPDATE_SCREENSHOTS=1 writes
// form-fa.png, review-fa.png and receipt-fa.png to shared/sitepage/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, devServer, skipReason, screenshotDir } from './harness.mjs';
import { checkState } from './a11y.mjs';

const skip = skipReason();
const shotDir = screenshotDir('shared/sitepage/screenshots');

let server, browser;

before(async () => {
  if (skip) return;
  [server, browser] = await Promise.all([devServer(), launch({ viewport: { width: 420, height: 900 }, locale: 'fa-IR' })]);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const sha256 = (s) => createHash('sha256').update(s, 'utf8').digest('hex');

const posted = (page, suffix) =>
  page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith(suffix));

// definition fetches the definition as the page does, in lang.
async function definition(lang) {
  return (await fetch(`${server.origin}/api/forms/introduction`, { headers: { 'Accept-Language': lang } })).json();
}

// direction reports the page's and the form's language and direction, and
// whether the form's first label's text starts at the right of the form's
// box (rtl) or at its left (ltr).
async function direction(page) {
  return page.evaluate(() => {
    const form = document.querySelector('.intro');
    const label = form.querySelector('.intro-field label');
    const box = form.getBoundingClientRect();
    const text = document.createRange();
    text.selectNodeContents(label);
    const l = text.getBoundingClientRect();
    return {
      lang: document.documentElement.lang,
      dir: document.documentElement.dir,
      formDir: getComputedStyle(form).direction,
      startsRight: Math.abs(box.right - l.right) < Math.abs(l.left - box.left),
    };
  });
}

test('Chromium in Persian (fa-IR): the form in Persian, right to left, through Review, Edit, Confirm and the receipt', { skip }, async () => {
  const fa = await definition('fa-IR');
  const en = await definition('en');
  assert.equal(fa.lang, 'fa');
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');

  // The form: Persian texts, html lang and dir, mirrored layout.
  assert.deepEqual(await direction(page), { lang: 'fa', dir: 'rtl', formDir: 'rtl', startsRight: true });
  assert.equal(await page.textContent('h1'), 'خودتان را معرفی کنید');
  assert.equal(await page.title(), 'خودتان را معرفی کنید');
  for (const f of fa.fields.filter((f) => f.type !== 'transcript')) {
    assert.equal(await page.getByLabel(f.required ? f.label : `${f.label} (اختیاری)`, { exact: true }).count(), 1, `a control labelled ${f.label}`);
  }
  // A file input holds no text, so it has no direction to follow.
  const dirs = await page.$$eval('.intro-field input:not([type=file]), .intro-field textarea', (els) => els.map((e) => `${e.name}:${e.dir}`));
  assert.deepEqual(dirs, ['name:auto', 'company:auto', 'role:auto', 'email:auto', 'message:auto'], 'every text field is dir="auto"');
  const future = fa.purposes.find((p) => p.id === 'future-roles');
  assert.ok(await page.getByText(future.consent.text, { exact: true }).isVisible(), 'the Persian consent text is shown');
  assert.ok(await page.getByRole('button', { name: 'English' }).isVisible(), 'the switch names English in English');

  // Counts through Intl, in Persian digits.
  await page.fill('#intro-message', 'سلام'.repeat(300));
  assert.equal(await page.textContent('#intro-message-count'), '۱٬۲۰۰ از ۴٬۰۰۰ نویسه؛ ۰ از ۳ پیوند');
  await page.fill('#intro-name', 'مریم میرزاخانی');
  await page.fill('#intro-company', 'Stanford');
  await page.fill('#intro-email', 'maryam@example.com');
  await page.fill('#intro-message', 'سلام. دربارهٔ یک همکاری پژوهشی می‌خواهم گفت‌وگو کنم.\nwith a line in English.');
  await page.check('#consent-future-roles');
  await checkState(page, 'form in Persian');
  mkdirSync(shotDir, { recursive: true });
  await page.screenshot({ path: join(shotDir, 'form-fa.png'), fullPage: true });

  // A problem, in Persian, at its field.
  await page.fill('#intro-email', 'maryam');
  await page.getByRole('button', { name: 'بازبینی', exact: true }).click();
  await page.waitForSelector('.intro-summary h2');
  assert.equal(await page.textContent('.intro-summary h2'), 'یک مورد نیاز به اصلاح دارد');
  assert.match(await page.textContent('#intro-email-error'), /[\u0600-\u06FF]/, 'the email problem is said in Persian');
  await checkState(page, 'a problem in Persian');
  await page.fill('#intro-email', 'maryam@example.com');

  // Review: the draft names fa and the Persian consent text's hash.
  let kept = posted(page, '/api/introductions');
  await page.getByRole('button', { name: 'بازبینی', exact: true }).click();
  let draft = await (await kept).json();
  await page.waitForSelector('text=لطفاً معرفی‌نامه‌تان را بررسی کنید');
  assert.equal(draft.lang, 'fa');
  assert.deepEqual(draft.consents.map((c) => [c.purpose, c.lang, c.textSha256]), [['future-roles', 'fa', sha256(future.consent.text)]]);
  assert.equal(await page.getAttribute('dd[data-field="name"]', 'dir'), 'auto');
  assert.equal(await page.getAttribute('dd[data-field="message"]', 'dir'), 'auto');
  assert.ok(await page.getByText(future.consent.text).isVisible(), 'the review names the Persian text agreed to');
  assert.match(await page.textContent('.intro-kept + .intro-hint'), /۱۴[۰-۹]{2}.*[۰-۹]{1,2}:[۰-۹]{2}/, 'the date and time in Persian digits');
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.intro')).direction), 'rtl');
  await checkState(page, 'review in Persian');
  await page.screenshot({ path: join(shotDir, 'review-fa.png'), fullPage: true });

  // Edit, switch to English: what was typed and ticked stays; the page turns
  // left to right; Review revises the same draft, its evidence in English.
  await page.getByRole('button', { name: 'ویرایش' }).click();
  await page.waitForSelector('form');
  assert.equal(await page.inputValue('#intro-name'), 'مریم میرزاخانی', 'Edit keeps what was typed');
  await page.getByRole('button', { name: 'English' }).click();
  await page.waitForSelector('text=Introduce yourself');
  assert.deepEqual(await direction(page), { lang: 'en', dir: 'ltr', formDir: 'ltr', startsRight: false });
  assert.equal(await page.inputValue('#intro-name'), 'مریم میرزاخانی', 'the switch keeps what was typed');
  assert.equal(await page.inputValue('#intro-company'), 'Stanford');
  assert.ok(await page.isChecked('#consent-future-roles'), 'the switch keeps the box ticked');
  const enFuture = en.purposes.find((p) => p.id === 'future-roles');
  assert.ok(await page.getByText(enFuture.consent.text, { exact: true }).isVisible(), 'the English consent text is shown');
  await checkState(page, 'form switched to English');
  let revised = posted(page, '/revision');
  await page.getByRole('button', { name: 'Review', exact: true }).click();
  let revision = await (await revised).json();
  await page.waitForSelector('text=Please check your introduction');
  assert.equal(revision.id, draft.id, 'one intake');
  assert.equal(revision.lang, 'en');
  assert.deepEqual(revision.consents.map((c) => [c.lang, c.textSha256]), [['en', sha256(enFuture.consent.text)]]);
  await checkState(page, 'review in English after the switch');

  // And back to Persian: the evidence follows what was shown last.
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('button', { name: 'فارسی' }).click();
  await page.waitForSelector('text=خودتان را معرفی کنید');
  assert.equal(await page.inputValue('#intro-name'), 'مریم میرزاخانی');
  revised = posted(page, '/revision');
  await page.getByRole('button', { name: 'بازبینی', exact: true }).click();
  revision = await (await revised).json();
  await page.waitForSelector('text=لطفاً معرفی‌نامه‌تان را بررسی کنید');
  assert.equal(revision.id, draft.id);
  assert.deepEqual(revision.consents.map((c) => [c.lang, c.textSha256]), [['fa', sha256(future.consent.text)]]);

  // Confirm and the receipt, in Persian.
  const confirmed = posted(page, '/confirmation');
  await page.getByRole('button', { name: 'تأیید و ارسال' }).click();
  const confirmation = await (await confirmed).json();
  await page.waitForSelector('#intro-withdraw-link');
  assert.equal(await page.textContent('h1'), 'سپاسگزاریم؛ معرفی‌نامهٔ شما در راه است');
  assert.equal(await page.getAttribute('#intro-withdraw-link', 'dir'), 'ltr', 'the link reads left to right');
  await checkState(page, 'success in Persian');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'بارگیری رسید' }).click();
  const receipt = readFileSync(await (await download).path(), 'utf8');
  for (const part of ['رسید معرفی‌نامهٔ شما', 'زبان نوشتن: فارسی', 'نام شما: مریم میرزاخانی', `شناسه: ${confirmation.id}`, future.consent.text, 'نسخهٔ متن رضایت future-roles/1']) {
    assert.ok(receipt.includes(part), `the receipt holds ${JSON.stringify(part)}:\n${receipt}`);
  }
  assert.match(receipt, /زمان تأیید: .*[۰-۹].*\(\d{4}-\d{2}-\d{2}T/, 'the date in Persian, with the UTC time beside it');
  await page.waitForSelector('text=رسید بارگیری شد');
  await page.screenshot({ path: join(shotDir, 'receipt-fa.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a language picked with the switch stays for this tab: a reload shows the form in it, with what was typed', { skip }, async () => {
  const page = await browser.context.newPage();
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('form');
  await page.fill('#intro-name', 'Maryam');
  await page.getByRole('button', { name: 'English' }).click();
  await page.waitForSelector('text=Introduce yourself');
  await page.reload();
  await page.waitForSelector('form');
  assert.equal((await direction(page)).lang, 'en');
  assert.equal(await page.inputValue('#intro-name'), 'Maryam');
  await page.getByRole('button', { name: 'فارسی' }).click();
  await page.waitForSelector('text=خودتان را معرفی کنید');
  assert.equal(await page.inputValue('#intro-name'), 'Maryam');
  await page.evaluate(() => sessionStorage.clear());
  await page.close();
});
