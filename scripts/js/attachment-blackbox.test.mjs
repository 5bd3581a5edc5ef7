// The attachment black-box, as a visitor's client and the owner would use
// the dev server (scripts/devserver, what make run runs, on the Firestore
// emulator and fake-gcs-server), over HTTP only, with the bucket read
// through fake-gcs-server's own JSON API: upload, replace, delete, confirm,
// the admin's download, withdrawal — and the object is gone; an unconfirmed
// draft's attachment kept by a sweep while the draft lives and gone after
// the sweep once it has expired (the dev server's clock is moved ahead, not
// waited for); each bad input answers its documented code and
// stores nothing; hostile names are kept cleaned; no personal data in the
// dev server's log. No browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { solveChallenge } from 'altcha-lib/v1';
import { devServer, skipReason } from './harness.mjs';

const storageHost = process.env.STORAGE_EMULATOR_HOST;
const skip = skipReason() || (!storageHost && !process.env.CI && 'STORAGE_EMULATOR_HOST is unset (scripts/storage-emulator.sh start)');
const maxBytes = 64 << 10;
const bucket = `blackbox-${process.pid}-${Date.now().toString(36)}`;
const storage = `http://${(storageHost || '').replace(/^https?:\/\//, '')}/storage/v1`;

let server, def;
// An unconfirmed draft with a file, made first: the sweep at the end of
// the file finds it expired.
let expiring;

// Canaries: none of them may reach the dev server's log.
const canary = { name: 'Canary Blackbox-5e1d', email: 'canary-5e1d@example.com', file: 'canary-cv-5e1d.pdf' };

before(async () => {
  if (skip) return;
  assert.ok(storageHost, 'STORAGE_EMULATOR_HOST must be set under CI');
  const made = await fetch(`${storage}/b?project=introductions-local`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: bucket }),
  });
  assert.equal(made.status, 200, `creating bucket ${bucket}: ${await made.text()}`);
  server = await devServer({ ATTACHMENT_BUCKET: bucket, ATTACHMENT_MAX_BYTES: String(maxBytes), DRAFT_LIFETIME: '10m', DEVSERVER_CLOCK_STEP: '11m' });
  def = await (await fetch(`${server.origin}/api/forms/introduction`)).json();
  expiring = await draft({ email: 'expiring@example.com' });
  assert.equal((await attach(expiring, 'image/png', 'scan.png', png())).status, 200);
});

after(async () => {
  if (server) await server.stop();
});

// objects names the bucket's objects under prefix, read through
// fake-gcs-server's own JSON API (not through the service).
async function objects(prefix = '') {
  const res = await fetch(`${storage}/b/${bucket}/o?prefix=${encodeURIComponent(prefix)}`);
  assert.equal(res.status, 200);
  return ((await res.json()).items || []).map((o) => o.name);
}

async function call(method, path, { json, body, headers = {} } = {}) {
  const res = await fetch(`${server.origin}${path}`, {
    method,
    headers: { Origin: server.origin, ...(json ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: json ? JSON.stringify(json) : body,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let data = null;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch {
    data = null;
  }
  return { status: res.status, headers: res.headers, bytes, data };
}

// draft keeps a draft of the served version (3) and returns {id, token,
// expiresAt} (expiresAt in milliseconds).
async function draft(fields = {}) {
  const c = await (await fetch(`${server.origin}${def.proofOfWork.challengePath}`)).json();
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber ?? c.maxNumber).promise;
  const altcha = Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: solution.number, salt: c.salt, signature: c.signature })).toString('base64');
  const r = await call('POST', '/api/introductions', {
    json: {
      formId: 'introduction', formVersion: def.formVersion, name: canary.name, email: canary.email,
      message: 'Hello, about a role: the job description is attached.', consents: [],
      [def.honeypot.name]: '', altcha, ...fields,
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.data));
  return { id: r.data.id, token: r.data.token, expiresAt: Date.parse(r.data.expiresAt) };
}

function attach(d, type, name, bytes, headers = {}) {
  return call('PUT', `/api/introductions/${d.id}/attachment`, {
    body: bytes,
    headers: {
      Authorization: `Bearer ${d.token}`,
      ...(type ? { 'Content-Type': type } : {}),
      ...(name !== null ? { 'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}` } : {}),
      ...headers,
    },
  });
}

function pdf(size = 2000) {
  const head = '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n';
  return Buffer.from(head + '%' + 'x'.repeat(Math.max(0, size - head.length - 40)) + '\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
}

// png is a 1×1 PNG.
function png() {
  return Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
}

const sha256 = (b) => createHash('sha256').update(b).digest('hex');

test('upload, replace, delete, confirm, the admin\'s download, withdraw: and the object is gone from fake-gcs-server', { skip }, async () => {
  const d = await draft();
  const cv = pdf(3000);
  let r = await attach(d, 'application/pdf', canary.file, cv);
  assert.equal(r.status, 200, JSON.stringify(r.data));
  assert.deepEqual(r.data.attachment, { name: canary.file, type: 'application/pdf', size: cv.length, sha256: sha256(cv) });
  const first = await objects(`${d.id}/`);
  assert.equal(first.length, 1, `after the upload: ${first}`);

  r = await attach(d, 'image/png', 'photo.png', png());
  assert.equal(r.status, 200, JSON.stringify(r.data));
  const replaced = await objects(`${d.id}/`);
  assert.equal(replaced.length, 1, `after the replacement: ${replaced}`);
  assert.notEqual(replaced[0], first[0], 'the replaced bytes are a new object, the old one gone');

  r = await call('DELETE', `/api/introductions/${d.id}/attachment`, { headers: { Authorization: `Bearer ${d.token}` } });
  assert.equal(r.status, 204);
  assert.deepEqual(await objects(`${d.id}/`), []);

  r = await attach(d, 'application/pdf', canary.file, cv);
  assert.equal(r.status, 200);
  r = await call('POST', `/api/introductions/${d.id}/confirmation`, { json: { token: d.token } });
  assert.equal(r.status, 200, JSON.stringify(r.data));
  const withdrawal = r.data.withdrawal;
  r = await attach(d, 'image/png', 'late.png', png());
  assert.equal(r.status, 409);
  assert.equal(r.data.code, 'STATE_CONFLICT');

  // The owner's side: the detail JSON names it, the download serves it.
  r = await call('GET', `/admin/api/introductions/${d.id}`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.data.attachment, { name: canary.file, type: 'application/pdf', size: cv.length, sha256: sha256(cv) });
  r = await call('GET', `/admin/introductions/${d.id}/attachment`);
  assert.equal(r.status, 200);
  assert.ok(r.bytes.equals(cv), 'the download is the bytes sent');
  assert.equal(r.headers.get('content-type'), 'application/pdf');
  assert.match(r.headers.get('content-disposition'), /^attachment; filename=/);
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(r.headers.get('content-security-policy'), 'sandbox');

  r = await call('POST', withdrawal.path || `/api/introductions/${d.id}/withdrawal`, { json: { token: d.token } });
  assert.ok(r.status === 200 || r.status === 204, `withdraw: ${r.status}`);
  assert.deepEqual(await objects(`${d.id}/`), [], 'the withdrawn introduction\'s object is gone');
  r = await call('GET', `/admin/introductions/${d.id}/attachment`);
  assert.equal(r.status, 404);
});

test('each bad input answers its documented code and stores nothing', { skip }, async () => {
  const d = await draft({ email: 'refusals@example.com' });
  const html = Buffer.from('<!doctype html><html><script>alert(1)</script></html>');
  const polyglot = Buffer.concat([png(), Buffer.from('PK\x03\x04polyglot')]);
  const cases = [
    { name: 'over the limit', type: 'application/pdf', file: 'big.pdf', bytes: pdf(maxBytes + 1024), status: 413, code: 'ATTACHMENT_TOO_LARGE' },
    { name: 'a PDF renamed .png', type: 'image/png', file: 'cv.png', bytes: pdf(), status: 415, code: 'ATTACHMENT_TYPE_REFUSED' },
    { name: 'HTML as text/plain', type: 'text/plain', file: 'notes.txt', bytes: html, status: 415, code: 'ATTACHMENT_TYPE_REFUSED' },
    { name: 'a polyglot', type: 'image/png', file: 'scan.png', bytes: polyglot, status: 415, code: 'ATTACHMENT_TYPE_REFUSED' },
    { name: 'empty', type: 'application/pdf', file: 'empty.pdf', bytes: Buffer.alloc(0), status: 422, code: 'ATTACHMENT_EMPTY' },
    { name: 'a type not offered', type: 'application/zip', file: 'a.zip', bytes: Buffer.from('PK\x03\x04'), status: 415, code: 'ATTACHMENT_TYPE_REFUSED' },
    { name: 'no Content-Type', type: '', file: 'cv.pdf', bytes: pdf(), status: 415, code: 'ATTACHMENT_TYPE_REFUSED' },
    { name: 'a wrong token', type: 'application/pdf', file: 'cv.pdf', bytes: pdf(), token: 'A'.repeat(43), status: 404, code: 'NOT_FOUND' },
  ];
  for (const c of cases) {
    const r = await attach(c.token ? { ...d, token: c.token } : d, c.type, c.file, c.bytes);
    assert.equal(`${r.status} ${r.data && r.data.code}`, `${c.status} ${c.code}`, c.name);
    assert.equal(r.headers.get('content-type'), 'application/problem+json', c.name);
    assert.deepEqual(await objects(`${d.id}/`), [], `${c.name} stored nothing`);
  }
});

test('hostile names are kept cleaned, as display names only', { skip }, async () => {
  const d = await draft({ email: 'names@example.com' });
  const cases = [
    ['../../etc/passwd.pdf', 'passwd.pdf'],
    ['C:\\Users\\ada\\cv.pdf', 'cv.pdf'],
    ['cv\u202Efdp.exe.pdf', 'cvfdp.exe.pdf'],
    ['bell\u0007\u0000tab\t.pdf', 'belltab .pdf'],
    [`${'n'.repeat(200)}.pdf`, `${'n'.repeat(116)}.pdf`],
  ];
  for (const [sent, want] of cases) {
    const r = await attach(d, 'application/pdf', sent, pdf());
    assert.equal(r.status, 200, `${JSON.stringify(sent)}: ${JSON.stringify(r.data)}`);
    const name = r.data.attachment.name;
    assert.equal(name, want, JSON.stringify(sent));
    assert.ok([...name].length <= 120, `a display name of at most 120 characters: ${name.length}`);
    assert.doesNotMatch(name, /[\/\\\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/, `${JSON.stringify(name)} keeps no separator, control or direction override`);
    const stored = await objects(`${d.id}/`);
    assert.equal(stored.length, 1);
    assert.ok(!stored[0].includes('..') && !stored[0].includes(name), `the object's name ${stored[0]} does not come from the visitor's`);
  }
});

test('an unconfirmed draft\'s attachment is gone after the sweep, and the log holds no personal data', { skip }, async () => {
  const sweep = () => call('POST', '/internal/sweep', { headers: { 'User-Agent': 'Google-Cloud-Scheduler' } });
  // The draft lives ten minutes (DRAFT_LIFETIME=10m) from its creation in
  // before(): a sweep now keeps its file.
  assert.ok(expiring.expiresAt > Date.now() + 5000, 'the expiring draft still has time to live');
  assert.equal((await sweep()).status, 200);
  assert.equal((await objects(`${expiring.id}/`)).length, 1);
  // Eleven minutes later, as the dev server's clock has it, it has expired.
  await server.moveClock();
  const r = await sweep();
  assert.equal(r.status, 200, JSON.stringify(r.data));
  assert.ok(r.data.deleted.attachments >= 1, `the sweep counts the attachment: ${JSON.stringify(r.data.deleted)}`);
  assert.deepEqual(await objects(`${expiring.id}/`), []);

  const log = server.log();
  for (const c of [canary.name, canary.email, canary.file]) assert.ok(!log.includes(c), `the dev server's log holds ${c}`);
});
