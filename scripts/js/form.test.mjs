// Unit tests of the form module's pure parts, in Node (no browser): the
// guide transcript's 12,000-character cut, a sentence for every documented
// problem code and the service's detail where it says more, the link count
// and the invisible characters the review shows as codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { formatTranscript, IntroductionForm, countLinks, revealInvisible } from '../../shared/sitepage/assets/js/introduction-form.js';

// language is a language's texts as the definition serves them (from the
// form registry's languages/<lang>.json).
function language(lang) {
  const l = JSON.parse(readFileSync(new URL(`../../shared/formregistry/languages/${lang}.json`, import.meta.url), 'utf8'));
  return { lang: l.lang, dir: l.dir, page: l.page, problems: l.problems };
}

// formIn is a form whose definition has fields and the texts of lang.
// formIn is a form in lang with fields, offering a 5 MiB attachment as
// form version 3 does (its sentences name the limit).
function formIn(lang, fields) {
  const form = new IntroductionForm({ dataset: {} });
  const attachment = { label: 'Attachment', maxBytes: 5 << 20, types: ['application/pdf', 'text/plain'], typeNames: { 'application/pdf': 'PDF', 'text/plain': 'plain text' } };
  form.def = { ...language(lang), fields, attachment };
  form.lang = lang;
  return form;
}

test('formatTranscript labels the turns and keeps them whole under the limit', () => {
  const t = formatTranscript([
    { role: 'visitor', text: 'Hello' },
    { role: 'guide', text: 'Hi!\r\nHow can I help?' },
    'a plain turn',
  ]);
  assert.equal(t.text, 'You: Hello\n\nGuide: Hi!\nHow can I help?\n\na plain turn');
  assert.deepEqual([t.kept, t.dropped], [3, 0]);
});

test('formatTranscript drops the oldest turns past the limit, counting code points', () => {
  const turns = Array.from({ length: 10 }, (_, i) => ({ role: 'guide', text: `${i}:` + '😀'.repeat(1500) }));
  const t = formatTranscript(turns, 12000);
  const len = [...t.text].length;
  assert.ok(len <= 12000, `${len} code points`);
  assert.equal(t.kept + t.dropped, 10);
  assert.equal(t.dropped, 3, 'each turn is 1,509 code points with its label; seven fit with their separators');
  assert.ok(t.text.startsWith('Guide: 3:') && t.text.includes('Guide: 9:'));
  // One more character of room would not let another whole turn in.
  assert.equal(formatTranscript(turns, len + 1).kept, t.kept);
});

test('formatTranscript keeps the end of a single turn longer than the limit', () => {
  const t = formatTranscript([{ role: 'visitor', text: 'x'.repeat(20000) + 'END' }], 12000);
  assert.equal([...t.text].length, 12000);
  assert.ok(t.text.startsWith('[…] ') && t.text.endsWith('END'));
  assert.deepEqual([t.kept, t.dropped], [1, 0]);
});

test('formatTranscript drops control characters the service refuses', () => {
  const t = formatTranscript([{ role: 'visitor', text: 'a\u0000b\tc\u0007d\u009be' }]);
  assert.equal(t.text, 'You: ab cde');
  assert.deepEqual(formatTranscript([]), { text: '', kept: 0, dropped: 0 });
});

test('every documented problem code has its own sentence', () => {
  const form = formIn('en', [
    { name: 'name', label: 'Your name', maxLength: 100 },
    { name: 'message', label: 'Message', maxLength: 4000, maxLinks: 3 },
    { name: 'conversation', label: 'Conversation', maxLength: 12000, maxLinks: 3 },
  ]);
  const fallback = form.sentence('SOMETHING_ELSE');
  const codes = [
    'UNREADABLE_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'BODY_TOO_LARGE', 'NAME_INVALID', 'COMPANY_INVALID', 'ROLE_INVALID',
    'EMAIL_INVALID', 'MESSAGE_INVALID', 'MESSAGE_TOO_MANY_LINKS', 'CONVERSATION_INVALID', 'CONVERSATION_TOO_LONG',
    'CONVERSATION_TOO_MANY_LINKS', 'FORM_VERSION_UNKNOWN', 'CONSENT_REQUIRED', 'POW_REQUIRED', 'POW_INVALID',
    'POW_EXPIRED', 'POW_SPENT', 'POW_TOO_EASY', 'RATE_LIMITED', 'IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_IN_FLIGHT', 'NOT_FOUND', 'STATE_CONFLICT', 'METHOD_NOT_ALLOWED', 'UNAVAILABLE', 'FIELD_INVALID',
  ];
  for (const code of codes) {
    const s = form.sentence(code, code.startsWith('MESSAGE') ? 'message' : code.startsWith('CONVERSATION') ? 'conversation' : 'name', '', 120);
    assert.notEqual(s, fallback, `${code} falls back to the generic sentence`);
    assert.match(s, /^[A-Z].*\.$/, `${code}: ${s}`);
  }
  assert.match(form.sentence('MESSAGE_TOO_MANY_LINKS', 'message'), /at most 3 links/);
  assert.match(form.sentence('CONVERSATION_TOO_LONG', 'conversation'), /12,000 characters/);
  form.def.fields.push({ name: 'availability', label: 'When you are free to talk (optional)', maxLength: 120, maxLinks: 0, code: 'FIELD_INVALID' });
  assert.equal(form.sentence('FIELD_INVALID', 'availability'), 'When you are free to talk can be up to 120 characters of ordinary text.');
  assert.match(form.sentence('RATE_LIMITED', '', '', 1800), /try again in about 30 minutes/);
  assert.match(form.sentence('RATE_LIMITED', '', '', 45), /try again in about 45 seconds/);
  assert.match(form.sentence('UNAVAILABLE', '', '', 5), /try again in about 5 seconds/);
});

test('the same sentences in Persian: Persian digits through Intl, the field\'s own label, Persian punctuation', () => {
  const form = formIn('fa', [
    { name: 'name', label: 'نام شما', maxLength: 100 },
    { name: 'message', label: 'پیام', maxLength: 4000, maxLinks: 3 },
    { name: 'conversation', label: 'گفت‌وگو', maxLength: 12000, maxLinks: 3 },
    { name: 'company', label: 'شرکت', maxLength: 100 },
  ]);
  const en = formIn('en', form.def.fields);
  for (const code of [...Object.keys(language('en').problems)]) {
    const field = code.startsWith('MESSAGE') ? 'message' : code.startsWith('CONVERSATION') ? 'conversation' : 'name';
    const s = form.sentence(code, field, '', 120);
    assert.notEqual(s, en.sentence(code, field, '', 120), `${code} is not in Persian`);
    assert.doesNotMatch(s, /[0-9]|\{/, `${code}: ASCII digits or an unfilled placeholder: ${s}`);
  }
  assert.match(form.sentence('CONVERSATION_TOO_LONG', 'conversation'), /۱۲٬۰۰۰ نویسه/);
  assert.match(form.sentence('MESSAGE_TOO_MANY_LINKS', 'message'), /حداکثر ۳ پیوند/);
  assert.equal(form.sentence('COMPANY_INVALID', 'company'), '«شرکت» می‌تواند حداکثر ۱۰۰ نویسه متن معمولی باشد.');
  assert.match(form.sentence('RATE_LIMITED', '', '', 45), /حدود ۴۵ ثانیهٔ دیگر/);
  assert.equal(form.t('count.characters', { n: 1234, max: 4000 }), '۱٬۲۳۴ از ۴٬۰۰۰ نویسه');
  assert.equal(form.t('problems', { n: 2 }), 'چند مورد نیاز به اصلاح دارد');
  assert.equal(en.t('problems', { n: 1 }), 'There is a problem');
  assert.equal(en.t('conversation.dropped', { n: 1, max: 12000 }), 'The oldest turn was left out to stay within 12,000 characters.');
  assert.equal(en.t('conversation.dropped', { n: 3, max: 12000 }), 'The oldest 3 turns were left out to stay within 12,000 characters.');
});

test('every page sentence of the English page exists in Persian, with the same placeholders', () => {
  const en = language('en').page;
  const fa = language('fa').page;
  const base = (k) => k.replace(/\.(zero|one|two|few|many|other)$/, '');
  const faBases = new Set(Object.keys(fa).map(base));
  for (const k of Object.keys(en)) assert.ok(faBases.has(base(k)), `fa has no sentence for ${k}`);
  const names = (s) => (s.match(/\{[a-zA-Z]+\}/g) || []).sort().join();
  for (const [k, s] of Object.entries(fa)) {
    const enS = en[k] ?? en[`${base(k)}.other`] ?? en[base(k)];
    for (const p of s.match(/\{[a-zA-Z]+\}/g) || []) assert.ok(enS.includes(p), `fa ${k} uses ${p}, en does not`);
    assert.ok(names(s).length <= names(enS).length, k);
  }
});

test("the service's detail is shown for a field's content, the page's sentence for the rest", () => {
  const form = formIn('en', [{ name: 'email', label: 'Email', maxLength: 254 }]);
  const detail = 'The domain after the @ needs a dot, as in example.com.';
  assert.equal(form.explain('EMAIL_INVALID', 'email', detail), detail);
  assert.equal(form.explain('EMAIL_INVALID', 'email', ''), form.sentence('EMAIL_INVALID', 'email'));
  assert.equal(form.explain('EMAIL_INVALID', 'email', '   '), form.sentence('EMAIL_INVALID', 'email'), 'a blank detail is no detail');
  for (const code of ['RATE_LIMITED', 'POW_EXPIRED', 'FORM_VERSION_UNKNOWN', 'UNAVAILABLE', 'NOT_FOUND']) {
    assert.equal(form.explain(code, '', 'Too many introductions from here.', 60), form.sentence(code, '', '', 60), code);
  }
  assert.equal(form.sentence('BUSY'), 'The service is busy right now. Please try again in a moment.');
});

test('countLinks counts schemes and a www. that starts a word, as the message count shows them', () => {
  assert.equal(countLinks('no links here, example.com is not one'), 0);
  assert.equal(countLinks('see https://a.example and HTTP://B.EXAMPLE'), 2);
  assert.equal(countLinks('https://www.example.com is one link'), 1);
  assert.equal(countLinks('www.example.com (www.example.org) awww.example'), 2);
  assert.equal(countLinks('mail me at me@www.example'), 0);
});

test('revealInvisible names every character that would not show or would turn the text around', () => {
  const parts = revealInvisible('Bob\u202Eevil\u200B!\u00AD\u2066x\u2069\uFEFF\u{E0041}');
  assert.deepEqual(parts.filter((p) => typeof p === 'string'), ['Bob', 'evil', '!', 'x']);
  assert.deepEqual(parts.filter((p) => typeof p !== 'string').map((p) => p.label),
    ['U+202E', 'U+200B', 'U+00AD', 'U+2066', 'U+2069', 'U+FEFF', 'U+E0041']);
  assert.equal(parts[1].name, 'right-to-left override');
  // Ordinary text of any script, line breaks, and emoji joined by ZWJ stay as they are.
  for (const text of ['Ada Lovelace', 'محمد', 'Line one\nLine two', '👩‍💻', 'naïve café']) {
    assert.deepEqual(revealInvisible(text), [text], text);
  }
});
