// The Web Worker solver in headless Chromium, against the native Go solver
// of scripts/powbench: the same numbers on many challenges (salts of every
// length, numbers 0 and max, digit-count changes), with 1, 2 and 3 workers;
// abort; and challenges without a solution. Run: node --test scripts/js/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { launch, staticServer, powbench, benchPage, solveWithModule, skipReason, repo } from './harness.mjs';

const skip = skipReason();

let browser, server, page;

before(async () => {
  if (skip) return;
  server = await staticServer({
    '/bench/': ['text/html; charset=utf-8', benchPage],
    '/bench/bench.js': ['text/javascript; charset=utf-8', solveWithModule],
  });
  browser = await launch();
  page = await browser.context.newPage();
  await page.goto(`${server.origin}/bench/`);
  await page.waitForFunction(() => window.bench && window.bench.solveWith);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
});

async function agreeWithGo(cases, workers, chunk) {
  const native = await powbench(['solve', '-in', '-', '-rounds', '1'], cases);
  const got = await page.evaluate(([cs, w, ch]) => window.bench.solveWith(cs, w, ch), [cases.map((c) => c.challenge), workers, chunk]);
  cases.forEach((c, i) => {
    assert.equal(native.results[i].number, c.number, `Go solver, case ${i}`);
    assert.equal(got[i], c.number, `browser solver (${workers} workers), case ${i}, salt of ${c.challenge.salt.length} bytes`);
  });
}

test('solves what the Go solver solves: 200 challenges up to 1000, salts of every length, 2 workers', { skip }, async () => {
  const cases = await powbench(['make', '-n', '200', '-max', '1000', '-seed', '11']);
  assert.equal(cases[0].number, 0);
  assert.equal(cases[1].number, 1000);
  await agreeWithGo(cases, 2, 64);
});

test('solves across digit-count changes and chunk borders with 1 and 3 workers', { skip }, async () => {
  const cases = await powbench(['make', '-n', '24', '-max', '123456', '-seed', '12']);
  await agreeWithGo(cases, 1, 4096);
  await agreeWithGo(cases.slice(0, 12), 3, 1000);
});

test('solves on the calling thread with workers: 0, and aborts there too', { skip }, async () => {
  const cases = await powbench(['make', '-n', '30', '-max', '5000', '-seed', '16']);
  const got = await page.evaluate((cs) => window.bench.oursInThread(cs), cases.map((c) => c.challenge));
  assert.deepEqual(got.map((x) => x.number), cases.map((c) => c.number));
  const endless = { ...cases[0].challenge, challenge: 'f'.repeat(64), maxnumber: 50_000_000 };
  const name = await page.evaluate(async (x) => {
    const { solve } = await import('/js/solver.js');
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    try {
      await solve(x, { workers: 0, signal: ctl.signal });
      return 'finished';
    } catch (e) {
      return e.name;
    }
  }, endless);
  assert.equal(name, 'AbortError');
});

test('solves the 21 benchmark challenges (max number 100,000) with the default pool', { skip }, async () => {
  const cases = await powbench(['challenges']);
  const got = await page.evaluate((cs) => window.bench.ours(cs), cases.map((c) => c.challenge));
  assert.deepEqual(got.map((x) => x.number), cases.map((c) => c.number));
});

test('abort rejects with AbortError, and the pool still solves afterwards', { skip }, async () => {
  const [c] = await powbench(['make', '-n', '2', '-max', '10', '-seed', '13']);
  // The same challenge with a digest nobody reaches: a search of 50 million.
  const endless = { ...c.challenge, challenge: 'f'.repeat(64), maxnumber: 50_000_000 };
  assert.equal(await page.evaluate((x) => window.bench.oursAbort(x, 50), endless), 'AbortError');
  const already = await page.evaluate(async (x) => {
    const { solve } = await import('/js/solver.js');
    try {
      await solve(x, { signal: AbortSignal.abort() });
      return 'finished';
    } catch (e) {
      return e.name;
    }
  }, endless);
  assert.equal(already, 'AbortError');
  // A solve waiting behind another is rejected as soon as it is aborted.
  const queued = await page.evaluate(async ([x, ok]) => {
    const { solve } = await import('/js/solver.js');
    const first = new AbortController();
    const long = solve(x, { signal: first.signal }).catch((e) => e.name);
    const second = new AbortController();
    const waiting = solve(ok, { signal: second.signal }).then(() => 'finished', (e) => e.name);
    second.abort();
    const result = await waiting; // while the first still runs
    first.abort();
    return [result, await long];
  }, [endless, c.challenge]);
  assert.deepEqual(queued, ['AbortError', 'AbortError']);
  const [after1] = await page.evaluate((x) => window.bench.ours([x]), c.challenge);
  assert.equal(after1.number, c.number);
});

test('onProgress reports a growing fraction up to the answer', { skip }, async () => {
  const cases = await powbench(['make', '-n', '2', '-max', '2000000', '-seed', '15']);
  const c = cases[1]; // number 2,000,000: the whole range, many slices of work
  const seen = await page.evaluate(async (ch) => {
    const { solve } = await import('/js/solver.js');
    const fractions = [];
    const { number } = await solve(ch, { workers: 1, onProgress: (f) => fractions.push(f) });
    return { number, fractions };
  }, c.challenge);
  assert.equal(seen.number, c.number);
  assert.ok(seen.fractions.length > 0, 'no progress reported');
  seen.fractions.forEach((f, i) => {
    assert.ok(f >= 0 && f <= 1, `fraction ${f}`);
    if (i > 0) assert.ok(f >= seen.fractions[i - 1], 'progress went back');
  });
});

test('a challenge without a solution, or malformed, is a SolveError', { skip }, async () => {
  const [c] = await powbench(['make', '-n', '2', '-max', '500', '-seed', '14']);
  assert.equal(await page.evaluate((x) => window.bench.oursError(x), { ...c.challenge, challenge: '0'.repeat(64) }), 'NO_SOLUTION');
  assert.equal(await page.evaluate((x) => window.bench.oursError(x), { ...c.challenge, challenge: 'xyz' }), 'BAD_CHALLENGE');
  assert.equal(await page.evaluate((x) => window.bench.oursError(x), { ...c.challenge, algorithm: 'SHA-512' }), 'BAD_CHALLENGE');
});

test('the payload is what altcha-lib verifies', { skip }, async () => {
  const { verifySolution } = await import('altcha-lib/v1');
  const { createChallenge } = await import('altcha-lib/v1');
  const hmacKey = 'solver-test-key-0123456789abcdef';
  const challenge = await createChallenge({ hmacKey, maxnumber: 2000, number: 1234, expires: new Date(Date.now() + 600_000) });
  const payload = await page.evaluate(async (ch) => {
    const { solve, encodePayload } = await import('/js/solver.js');
    const { number } = await solve(ch);
    return encodePayload(ch, number);
  }, challenge);
  assert.equal(await verifySolution(payload, hmacKey), true);
});

test('the unrolled rounds in solver-worker.js are what the generator writes', async () => {
  const run = promisify(execFile);
  await run(process.execPath, [join(repo, 'scripts/js/gen-solver-rounds.mjs'), '--check']);
});
