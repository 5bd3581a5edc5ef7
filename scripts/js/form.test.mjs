// Unit tests of the form module's pure parts, in Node (no browser): the
// guide transcript's 12,000-character cut and a sentence for every
// documented problem code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTranscript, IntroductionForm } from '../../shared/sitepage/assets/js/introduction-form.js';

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
  const form = new IntroductionForm({ dataset: {} });
  form.def = {
    fields: [
      { name: 'name', label: 'Your name', maxLength: 100 },
      { name: 'message', label: 'Message', maxLength: 4000, maxLinks: 3 },
      { name: 'conversation', label: 'Conversation', maxLength: 12000, maxLinks: 3 },
    ],
  };
  const fallback = form.sentence('SOMETHING_ELSE');
  const codes = [
    'UNREADABLE_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'BODY_TOO_LARGE', 'NAME_INVALID', 'COMPANY_INVALID', 'ROLE_INVALID',
    'EMAIL_INVALID', 'MESSAGE_INVALID', 'MESSAGE_TOO_MANY_LINKS', 'CONVERSATION_INVALID', 'CONVERSATION_TOO_LONG',
    'CONVERSATION_TOO_MANY_LINKS', 'FORM_VERSION_UNKNOWN', 'CONSENT_REQUIRED', 'POW_REQUIRED', 'POW_INVALID',
    'POW_EXPIRED', 'POW_SPENT', 'RATE_LIMITED', 'IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_IN_FLIGHT', 'NOT_FOUND', 'STATE_CONFLICT', 'METHOD_NOT_ALLOWED', 'UNAVAILABLE',
  ];
  for (const code of codes) {
    const s = form.sentence(code, code.startsWith('MESSAGE') ? 'message' : code.startsWith('CONVERSATION') ? 'conversation' : 'name', '', 120);
    assert.notEqual(s, fallback, `${code} falls back to the generic sentence`);
    assert.match(s, /^[A-Z].*\.$/, `${code}: ${s}`);
  }
  assert.match(form.sentence('MESSAGE_TOO_MANY_LINKS', 'message'), /at most 3 links/);
  assert.match(form.sentence('CONVERSATION_TOO_LONG', 'conversation'), /12,000 characters/);
  assert.match(form.sentence('RATE_LIMITED', '', '', 1800), /try again in about 30 minutes/);
  assert.match(form.sentence('RATE_LIMITED', '', '', 45), /try again in about 45 seconds/);
  assert.match(form.sentence('UNAVAILABLE', '', '', 5), /try again in about 5 seconds/);
});
