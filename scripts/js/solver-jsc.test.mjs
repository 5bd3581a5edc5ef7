// The solver's hot loop in JavaScriptCore's optimizing tiers: Debian's jsc
// (the JavaScriptCore of WebKitGTK, libjavascriptcoregtk-4.0-bin) runs the
// worker's Job over the 21 bench challenges three times with compilation
// on the running thread (--useConcurrentJIT=false, so which tier compiles
// what depends on counts, not on the machine's speed) and reports every
// compilation (--reportCompileTimes) and every exit from optimized code
// (--printEachOSRExit). No optimized code of the worker may exit on an
// overflow, and runK12 must reach the FTL and be compiled by the DFG only
// once: a sum that overflows int32 under an addition the DFG compiled with
// an overflow check exits its code again and again, which throws it away
// and recompiles it, and the loop never leaves the lower tiers (see "The
// solver in every engine" in shared/sitepage/README.md). No time is measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { powbench } from './harness.mjs';
import { workerPath } from './gen-solver-rounds.mjs';

const jsc = process.env.JSC || '/usr/bin/jsc';
// Outside CI a machine without jsc skips; in CI (test-deps installs it) it fails.
const skip = !existsSync(jsc) && !process.env.CI ? `missing ${jsc} (apt-get install libjavascriptcoregtk-4.0-bin)` : false;

// The shell has no TextEncoder nor performance; the salts are ASCII.
const shim = `
if (typeof TextEncoder === "undefined") globalThis.TextEncoder = class { encode(s) { const a = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i); return a; } };
if (typeof performance === "undefined") globalThis.performance = { now: () => preciseTime() * 1000 };
`;

const driver = `
import "./shim.js";
import { Job } from "./solver-worker.js";
import { cases } from "./cases.js";
for (let round = 0; round < 3; round++) {
  for (const c of cases) {
    const job = new Job({ id: 1, salt: c.salt, challenge: c.challenge, maxNumber: c.max, index: 0, stride: 1, chunk: c.max + 1, progress: false });
    const n = job.search(0, c.max);
    if (n !== c.number) throw new Error("challenge solved to " + n + ", want " + c.number);
  }
}
print("solved");
`;

test('JavaScriptCore: no overflow exits, and the hot loop (runK12) compiled by the DFG once, then by the FTL', { skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'introductions-jsc-'));
  try {
    const cases = (await powbench(['challenges'])).map((c) => ({ salt: c.challenge.salt, challenge: c.challenge.challenge, max: c.challenge.maxnumber, number: c.number }));
    copyFileSync(workerPath, join(dir, 'solver-worker.js'));
    writeFileSync(join(dir, 'shim.js'), shim);
    writeFileSync(join(dir, 'cases.js'), `export const cases = ${JSON.stringify(cases)};\n`);
    writeFileSync(join(dir, 'driver.js'), driver);
    const { stdout, stderr } = await promisify(execFile)(jsc, ['--useConcurrentJIT=false', '--reportCompileTimes=true', '--printEachOSRExit=true', '-m', 'driver.js'], { cwd: dir, maxBuffer: 1 << 24, timeout: 300_000 });
    const out = stdout + stderr;
    assert.match(out, /^solved$/m);
    const overflows = [...out.matchAll(/^Speculation failure in (\w+)#.*, Overflow\)/gm)].map((m) => m[1]);
    assert.deepEqual([...new Set(overflows)], [], `optimized code exited on an overflow ${overflows.length} times`);
    const tiers = [...out.matchAll(/^Optimized runK12#\S+ .* using (\w+) with/gm)].map((m) => m[1]);
    const count = (tier) => tiers.filter((t) => t === tier).length;
    assert.equal(count('FTL'), 1, `runK12 reaches the FTL once (compiled by: ${tiers.join(', ')})`);
    assert.equal(count('DFG'), 1, `the DFG compiles runK12 once, never again after an exit (compiled by: ${tiers.join(', ')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
