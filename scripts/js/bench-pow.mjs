// The proof-of-work bench (make bench-pow): over the 21 fixed challenges of
// scripts/powbench (max number 100,000), first the table of every engine
// side by side: numbers searched per second by our solver in Chromium,
// Firefox and WebKit (engines.mjs; in Web Workers and on the page's thread)
// and by the native Go single-core solver, in interleaved rounds of one run,
// with each rate's ratio to native Go and to Chromium. Then, in headless
// Chromium, the median solve time of our solver, of the ALTCHA reference solver (altcha-lib 2.8.0
// v1: solveChallengeWorkers and single-threaded solveChallenge), and of the
// native Go single-core solver; then our solver with the CPU slowed six
// times (DevTools CPU throttling). Chromium throttles the page's thread but
// refuses to throttle workers, so the slowed figures are given both for our
// solver on the page's thread (workers: 0, fully slowed) and in workers
// (only the page's side slowed); the report says which workers were slowed.
//
//   node scripts/js/bench-pow.mjs [--rounds 3] [--json] [--quick] [--engines]
// (--quick leaves out the reference solvers, which take minutes; --engines
// prints only the engines' table; ENGINES=chromium,webkit picks engines)
//
// In the table a challenge's numbers searched are its answer + 1 (from 0 up
// to the answer); an engine's rate is the sum of those over the challenges
// divided by the sum of the challenges' best times over the rounds. "first"
// is the rate of the untimed first round, in fresh workers: what a visitor's
// first solve sees.
//
// The machine is shared, so ours and native run in alternating rounds (each
// round solves all 21; ours after one untimed warm-up round), and a
// challenge's time is its best over the rounds, for both alike; the figure
// is the median over the 21 challenges of those times. The reference
// solvers run one round (they are ~100× slower). Every answer is checked
// against the known number.
import { launch, staticServer, powbench, median, benchPage, benchModule, missing } from './harness.mjs';
import { openEngine, selectedEngines, engineMissing } from './engines.mjs';

const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1]) || 5;
const asJSON = args.includes('--json');
const quick = args.includes('--quick'); // skip the (slow) reference solvers
const enginesOnly = args.includes('--engines');

const absent = missing();
if (absent.length) {
  console.error(`bench-pow: missing ${absent.join(', ')}`);
  process.exit(1);
}

function check(name, cases, results) {
  results.forEach((r, i) => {
    if (r.number !== cases[i].number) throw new Error(`${name}: challenge ${i} solved to ${r.number}, want ${cases[i].number}`);
  });
}

// roundsOf runs n alternating rounds of ours in page and (when native) of
// the Go solver, keeping each challenge's best time.
async function roundsOf(page, name, cases, n, native, method = 'ours') {
  const challenges = cases.map((c) => c.challenge);
  const run = () => page.evaluate(([m, cs]) => window.bench[m](cs), [method, challenges]);
  await run(); // warm-up
  const ours = cases.map(() => Infinity);
  const go = cases.map(() => Infinity);
  for (let r = 0; r < n; r++) {
    if (native) {
      const res = await powbench(['solve', '-rounds', '1']);
      res.results.forEach((x, i) => {
        if (x.number !== cases[i].number) throw new Error(`native: challenge ${i} solved to ${x.number}`);
        go[i] = Math.min(go[i], x.tookMs);
      });
    }
    const res = await run();
    check(name, cases, res);
    res.forEach((x, i) => (ours[i] = Math.min(ours[i], x.ms)));
  }
  return { times: ours, median: median(ours), native: { times: go, median: median(go) } };
}

// throttle slows the page by rate and asks the same of each of its workers,
// through a CDP session of the page that attaches to them itself. Chromium
// (156) refuses it for workers ("Operation is only supported for pages, not
// workers"): the answers are recorded, so the report says which were slowed.
async function throttle(context, page, rate) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  const attached = [];
  const workers = { throttled: 0, refused: 0, reason: '' };
  cdp.on('Target.receivedMessageFromTarget', ({ message }) => {
    const m = JSON.parse(message);
    if (m.id !== 1) return;
    if (m.error) {
      workers.refused++;
      workers.reason = m.error.message;
    } else {
      workers.throttled++;
    }
  });
  cdp.on('Target.attachedToTarget', ({ sessionId, targetInfo }) => {
    if (targetInfo.type !== 'worker') return;
    attached.push(targetInfo.targetId);
    const send = (id, method, params) =>
      cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(() => {});
    send(1, 'Emulation.setCPUThrottlingRate', { rate });
    send(2, 'Runtime.runIfWaitingForDebugger', {});
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
  return { cdp, attached, workers };
}

// enginesTable solves the challenges in every engine and natively, in
// rounds: each round runs native Go, then, engine by engine, our solver in
// workers and on the page's thread; a challenge keeps its best time per
// engine and method.
async function enginesTable(cases, server) {
  const names = selectedEngines();
  for (const name of names) {
    const absent = engineMissing(name);
    if (absent.length) throw new Error(`${name}: missing ${absent.join(', ')}`);
  }
  const challenges = cases.map((c) => c.challenge);
  const searched = cases.reduce((sum, c) => sum + c.number + 1, 0);
  const best = () => cases.map(() => Infinity);
  const rate = (times) => searched / (times.reduce((a, b) => a + b, 0) / 1000);
  const engines = [];
  try {
    for (const name of names) {
      const engine = await openEngine(name);
      engines.push(engine);
      const page = await engine.newPage();
      await page.goto(`${server.origin}/bench/`);
      await page.waitFor(() => !!window.bench);
      engine.page = page;
      engine.cores = await page.evaluate(() => window.bench.cores);
      engine.times = { ours: best(), oursInThread: best() };
      engine.first = {};
    }
    const go = best();
    const solveIn = async (engine, method) => {
      const res = await engine.page.evaluate(([m, cs]) => window.bench[m](cs), [method, challenges]);
      check(`${engine.name} ${method}`, cases, res);
      return res.map((x) => x.ms);
    };
    for (const engine of engines) {
      for (const method of ['ours', 'oursInThread']) engine.first[method] = rate(await solveIn(engine, method));
    }
    for (let r = 0; r < rounds; r++) {
      const res = await powbench(['solve', '-rounds', '1']);
      res.results.forEach((x, i) => {
        if (x.number !== cases[i].number) throw new Error(`native: challenge ${i} solved to ${x.number}`);
        go[i] = Math.min(go[i], x.tookMs);
      });
      for (const engine of engines) {
        for (const method of ['ours', 'oursInThread']) {
          (await solveIn(engine, method)).forEach((ms, i) => (engine.times[method][i] = Math.min(engine.times[method][i], ms)));
        }
      }
    }
    const native = rate(go);
    const rows = engines.map((e) => ({
      engine: e.name,
      workers: e.cores,
      perSecond: rate(e.times.ours),
      perSecondOneThread: rate(e.times.oursInThread),
      firstRoundPerSecond: e.first.ours,
      firstRoundPerSecondOneThread: e.first.oursInThread,
    }));
    const chromium = rows.find((r) => r.engine === 'chromium');
    for (const row of rows) {
      row.toNative = row.perSecond / native;
      row.oneThreadToNative = row.perSecondOneThread / native;
      if (chromium) {
        row.toChromium = row.perSecond / chromium.perSecond;
        row.oneThreadToChromium = row.perSecondOneThread / chromium.perSecondOneThread;
      }
    }
    return { challenges: cases.length, numbersSearched: searched, rounds, nativeGoPerSecond: native, engines: rows };
  } finally {
    for (const engine of engines) await engine.close();
  }
}

function printTable(t) {
  const m = (x) => (x / 1e6).toFixed(2).padStart(7);
  const x = (v) => (v === undefined ? '      -' : v.toFixed(2).padStart(7));
  console.log(`proof-of-work in every engine: ${t.challenges} challenges, ${t.numbersSearched} numbers searched in each round; per challenge the best of ${t.rounds} interleaved rounds; M = million numbers a second`);
  console.log('  engine    workers |  M/s  to Go  to Chromium | one thread: M/s  to Go  to Chromium | first round: M/s  one thread');
  for (const r of t.engines) {
    console.log(`  ${r.engine.padEnd(9)} ${String(r.workers).padStart(7)} | ${m(r.perSecond)} ${x(r.toNative)} ${x(r.toChromium)}     |             ${m(r.perSecondOneThread)} ${x(r.oneThreadToNative)} ${x(r.oneThreadToChromium)}     |              ${m(r.firstRoundPerSecond)} ${m(r.firstRoundPerSecondOneThread)}`);
  }
  console.log(`  native Go       1 | ${m(t.nativeGoPerSecond)}    1.00`);
}

async function main() {
  const cases = await powbench(['challenges']);
  const nativeMethod = (await powbench(['solve', '-rounds', '1'])).method;

  const server = await staticServer({
    '/bench/': ['text/html; charset=utf-8', benchPage],
    '/bench/bench.js': ['text/javascript; charset=utf-8', benchModule],
  });
  const table = await enginesTable(cases, server);
  if (!asJSON) printTable(table);
  if (enginesOnly) {
    if (asJSON) console.log(JSON.stringify({ engines: table }, null, 2));
    await server.close();
    return;
  }
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${server.origin}/bench/`);
    await page.waitForFunction(() => window.bench);
    const cores = await page.evaluate(() => window.bench.cores);

    const ours = await roundsOf(page, 'ours', cases, rounds, true);
    const native = ours.native;
    const thread = await roundsOf(page, 'ours in thread', cases, rounds, false, 'oursInThread');

    const challenges = cases.map((c) => c.challenge);
    let refW = cases.map(() => ({ ms: NaN }));
    let refS = refW;
    if (!quick) {
      await page.evaluate((cs) => window.bench.referenceWorkers(cs), challenges.slice(0, 1));
      refW = await page.evaluate((cs) => window.bench.referenceWorkers(cs), challenges);
      check('reference workers', cases, refW);
      refS = await page.evaluate((cs) => window.bench.referenceSingle(cs), challenges);
      check('reference single', cases, refS);
    }

    // The same for ours under 6× CPU throttling, in a fresh page so the
    // workers start under the throttle.
    const slow = await browser.context.newPage();
    const t = await throttle(browser.context, slow, 6);
    await slow.goto(`${server.origin}/bench/`);
    await slow.waitForFunction(() => window.bench);
    await slow.evaluate(() => window.bench.prewarm());
    const throttled = await roundsOf(slow, 'ours throttled', cases, rounds);
    const threadThrottled = await roundsOf(slow, 'ours in thread throttled', cases, rounds, false, 'oursInThread');
    // How much slower the page's main thread got (the same loop, best of 5).
    const mainFast = await page.evaluate(() => window.bench.calibrate());
    const mainSlow = await slow.evaluate(() => window.bench.calibrate());

    const report = {
      challenges: cases.length,
      maxNumber: cases[0].challenge.maxnumber,
      hardwareConcurrency: cores,
      rounds,
      medianMs: {
        ours: ours.median,
        oursOneThread: thread.median,
        referenceWorkers: median(refW.map((x) => x.ms)),
        referenceSingleThread: median(refS.map((x) => x.ms)),
        nativeGoSingleCore: native.median,
        oursCpuThrottled6x: throttled.median,
        oursOneThreadCpuThrottled6x: threadThrottled.median,
      },
      throttle: {
        rate: 6,
        mainThreadSlowdown: mainSlow / mainFast,
        workersAttached: t.attached.length,
        workersThrottled: t.workers.throttled,
        workersRefused: t.workers.refused,
        refusal: t.workers.reason,
      },
      nativeMethod,
      engines: table,
    };
    const m = report.medianMs;
    report.ratios = {
      oursToNative: m.ours / m.nativeGoSingleCore,
      referenceWorkersToNative: m.referenceWorkers / m.nativeGoSingleCore,
      referenceSingleToNative: m.referenceSingleThread / m.nativeGoSingleCore,
      referenceWorkersToOurs: m.referenceWorkers / m.ours,
      oursThrottledToNative: m.oursCpuThrottled6x / m.nativeGoSingleCore,
      oursThrottledToOurs: m.oursCpuThrottled6x / m.ours,
      oursOneThreadToNative: m.oursOneThread / m.nativeGoSingleCore,
      oursOneThreadThrottledToNative: m.oursOneThreadCpuThrottled6x / m.nativeGoSingleCore,
      oursOneThreadThrottledToOursOneThread: m.oursOneThreadCpuThrottled6x / m.oursOneThread,
    };
    report.perChallengeMs = {
      ours: ours.times,
      oursCpuThrottled6x: throttled.times,
      oursOneThread: thread.times,
      oursOneThreadCpuThrottled6x: threadThrottled.times,
      referenceWorkers: refW.map((x) => x.ms),
      nativeGoSingleCore: native.times,
    };
    if (asJSON) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      const f = (x) => x.toFixed(2).padStart(9);
      const r = (x) => x.toFixed(2).padStart(7);
      console.log(`in headless Chromium: ${report.challenges} challenges, max number ${report.maxNumber}, ${cores} worker(s); per challenge the best of ${rounds} alternating rounds (ours, native), then the median over challenges`);
      console.log(`  our solver (Web Workers)          ${f(m.ours)} ms   ratio to native ${r(report.ratios.oursToNative)}`);
      console.log(`  our solver, one thread (page)     ${f(m.oursOneThread)} ms   ratio to native ${r(report.ratios.oursOneThreadToNative)}`);
      if (!quick) console.log(`  ALTCHA reference, workers         ${f(m.referenceWorkers)} ms   ratio to native ${r(report.ratios.referenceWorkersToNative)}   (${report.ratios.referenceWorkersToOurs.toFixed(0)}× ours)`);
      if (!quick) console.log(`  ALTCHA reference, single thread   ${f(m.referenceSingleThread)} ms   ratio to native ${r(report.ratios.referenceSingleToNative)}`);
      console.log(`  native Go, one core               ${f(m.nativeGoSingleCore)} ms`);
      const th = report.throttle;
      console.log(`  with the CPU slowed 6× (DevTools throttling; it slowed the page's main thread ${th.mainThreadSlowdown.toFixed(1)}×):`);
      console.log(`    our solver, one thread (page)   ${f(m.oursOneThreadCpuThrottled6x)} ms   ratio to native ${r(report.ratios.oursOneThreadThrottledToNative)}   (${report.ratios.oursOneThreadThrottledToOursOneThread.toFixed(1)}× unthrottled)`);
      console.log(`    our solver (Web Workers)        ${f(m.oursCpuThrottled6x)} ms   ratio to native ${r(report.ratios.oursThrottledToNative)}   (${report.ratios.oursThrottledToOurs.toFixed(1)}× unthrottled)`);
      console.log(`      of ${th.workersAttached} solver worker(s), ${th.workersThrottled} throttled` +
        (th.workersRefused ? `, ${th.workersRefused} refused by Chromium ("${th.refusal}"): in the workers the hashing ran at full speed, only the page's side was slowed` : ''));
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((err) => {
  console.error('bench-pow:', err && err.stack ? err.stack : err);
  process.exit(1);
});
