// Shared pieces of the browser tests and the proof-of-work bench: Debian's
// Chromium through playwright-core with a fresh profile, a loopback-only
// static server for the page's assets (and altcha-lib's files for the
// reference solver), the Go helpers built once, and the dev server.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, extname, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const repo = fileURLToPath(new URL('../../', import.meta.url));
export const assetsDir = join(repo, 'shared/sitepage/assets');
export const altchaDir = join(repo, 'scripts/js/node_modules/altcha-lib/dist/esm/v1');
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
export const pageCSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const run = promisify(execFile);

/** missing lists what the browser tests need and this machine lacks. */
export function missing() {
  const out = [];
  if (!existsSync(chromiumPath)) out.push(`Chromium (${chromiumPath})`);
  if (!existsSync(join(repo, 'scripts/js/node_modules/playwright-core'))) out.push('scripts/js/node_modules (npm ci in scripts/js)');
  return out;
}

/** skipReason is node:test's skip option: false, or what is missing. */
export function skipReason() {
  const absent = missing();
  return absent.length ? `missing ${absent.join(', ')}` : false;
}

/**
 * screenshotDir is where a test writes its screenshots: the repository's
 * folder (relative to the root) under UPDATE_SCREENSHOTS=1, a temporary one
 * otherwise.
 */
export function screenshotDir(folder) {
  return process.env.UPDATE_SCREENSHOTS ? join(repo, folder) : mkdtempSync(join(tmpdir(), 'introductions-shots-'));
}

/** launch starts headless Chromium with a fresh profile (in options.locale); close() removes it. */
export async function launch(options = {}) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'introductions-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: options.viewport || { width: 1000, height: 900 },
    deviceScaleFactor: options.deviceScaleFactor || 1,
    // The browser's language (navigator.language, Accept-Language, Intl's
    // default), as a visitor's would be set: "fa-IR" for Persian.
    locale: options.locale || 'en-US',
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

function fileUnder(root, rel) {
  const p = normalize(join(root, rel));
  if (p !== root && !p.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    return statSync(p).isFile() ? p : null;
  } catch {
    return null;
  }
}

/**
 * staticServer serves, on 127.0.0.1 only and with the page CSP, the page's
 * assets at /, altcha-lib's v1 modules at /altcha/, and extra in-memory
 * files ({path: [contentType, body]}, read on each request); options.csp
 * (a string, or a function asked on each request) replaces the page CSP.
 */
export async function staticServer(extra = {}, options = {}) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const csp = typeof options.csp === 'function' ? options.csp() : options.csp;
    res.setHeader('Content-Security-Policy', csp || pageCSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    if (extra[path]) {
      res.setHeader('Content-Type', extra[path][0]);
      res.end(extra[path][1]);
      return;
    }
    let file = null;
    if (path === '/') file = join(assetsDir, 'index.html');
    else if (path.startsWith('/altcha/')) file = fileUnder(altchaDir, path.slice('/altcha/'.length));
    else file = fileUnder(assetsDir, path.slice(1));
    if (!file) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.setHeader('Content-Type', types[extname(file)] || 'application/octet-stream');
    res.end(readFileSync(file));
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((r) => server.close(r)) };
}

// nextPort is where freePort looks next within TEST_PORTS.
let nextPort = 0;

/**
 * freePort returns a free loopback port: the next free one within
 * TEST_PORTS ("first-last", for runs that share a machine and are given a
 * range), else whatever the kernel picks.
 */
export async function freePort() {
  const bind = (want) => new Promise((resolve) => {
    const s = netServer();
    s.once('error', () => resolve(0));
    s.listen(want, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  const range = /^(\d+)-(\d+)$/.exec(process.env.TEST_PORTS || '');
  if (!range) return bind(0);
  const [first, last] = [Number(range[1]), Number(range[2])];
  const size = last - first + 1;
  const start = nextPort >= first && nextPort <= last ? nextPort - first : 0;
  for (let i = 0; i < size; i++) {
    const port = await bind(first + ((start + i) % size));
    if (port) {
      nextPort = port + 1;
      return port;
    }
  }
  throw new Error(`no free port in TEST_PORTS=${process.env.TEST_PORTS}`);
}

/**
 * faultProxy is a loopback reverse proxy in front of a dev server, for
 * drivers that cannot intercept the page's requests (puppeteer's Firefox,
 * WebKitWebDriver): it forwards every request to target (set once the
 * server is up), records "METHOD /path" of each, adds report-uri to the
 * page's CSP and keeps the reports the browser posts there (cspReports),
 * and answers a request with the fault set for "METHOD /path": "reset" (the
 * connection is dropped: the page sees a network failure), {status, type,
 * body}, or {json: fn} (the server's JSON answer passed through fn).
 */
export async function faultProxy() {
  const requests = [];
  const cspReports = [];
  const faults = new Map();
  const proxy = { target: '', requests, cspReports, faults };
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const key = `${req.method} ${path}`;
    if (key === 'POST /__csp-report') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        cspReports.push(body);
        res.statusCode = 204;
        res.end();
      });
      return;
    }
    requests.push(key);
    const fault = faults.get(key);
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault && fault.status) {
      res.writeHead(fault.status, { 'Content-Type': fault.type || 'text/plain' });
      res.end(fault.body || '');
      return;
    }
    const upstream = httpRequest(proxy.target + req.url, { method: req.method, headers: { ...req.headers, host: new URL(proxy.target).host } }, (up) => {
      const headers = { ...up.headers };
      if (headers['content-security-policy']) headers['content-security-policy'] += '; report-uri /__csp-report';
      if (!(fault && fault.json)) {
        res.writeHead(up.statusCode, headers);
        up.pipe(res);
        return;
      }
      let body = '';
      up.setEncoding('utf8');
      up.on('data', (d) => (body += d));
      up.on('end', () => {
        const out = JSON.stringify(fault.json(JSON.parse(body)));
        delete headers['content-length'];
        res.writeHead(up.statusCode, headers);
        res.end(out);
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  proxy.origin = `http://127.0.0.1:${port}`;
  proxy.close = () => new Promise((r) => {
    server.closeAllConnections();
    server.close(r);
  });
  return proxy;
}

const built = new Map();

/** buildGo builds a main package of the module once into a temp dir. */
export async function buildGo(pkg) {
  if (built.has(pkg)) return built.get(pkg);
  const dir = mkdtempSync(join(tmpdir(), 'introductions-go-'));
  const out = join(dir, pkg.split('/').pop());
  const p = run('go', ['build', '-o', out, `./${pkg}`], { cwd: repo, maxBuffer: 1 << 24 }).then(() => out);
  built.set(pkg, p);
  return p;
}

/** powbench runs the built powbench with args and parses its JSON. */
export async function powbench(args, input) {
  const bin = await buildGo('scripts/powbench');
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`powbench ${args.join(' ')} exited ${code}`))));
    if (input !== undefined) {
      child.stdin.on('error', reject);
      child.stdin.end(JSON.stringify(input));
    }
  });
}

/**
 * devServer builds and starts scripts/devserver on a free port against the
 * Firestore emulator, with a project id unique to this run. Resolves once
 * it answers; stop() ends it; moveClock() moves its clock ahead by the
 * DEVSERVER_CLOCK_STEP it was started with, and resolves once it has.
 */
export async function devServer(env = {}, options = {}) {
  const bin = await buildGo('scripts/devserver');
  const port = options.port || (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const project = options.project || `introductions-page-${process.pid}-${Date.now().toString(36)}`;
  const child = spawn(bin, [], {
    cwd: repo,
    env: {
      ...process.env,
      PORT: String(port),
      FIRESTORE_EMULATOR_HOST: process.env.FIRESTORE_EMULATOR_HOST || '127.0.0.1:8681',
      FIRESTORE_PROJECT: project,
      ALLOWED_ORIGINS: origin,
      POW_MAX_NUMBER: '20000',
      POW_MAX_ESCALATED: '20000', // off: every test draft comes from 127.0.0.1 (escalation.test.mjs turns it on)
      RATE_LIMIT_IP_PER_HOUR: '1000',
      RATE_LIMIT_EMAIL_PER_HOUR: '1000',
      FLOOD_LIMIT: '100000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  let moves = 0;
  child.stderr.on('data', (d) => {
    log = (log + d).slice(-20000);
    moves += String(d).split('the clock moved ahead').length - 1;
  });
  const exited = new Promise((r) => child.on('exit', r));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`devserver exited ${child.exitCode}:\n${log}`);
    try {
      const res = await fetch(`${origin}/api/forms/introduction`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`devserver did not answer within 60 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    origin,
    port,
    project,
    log: () => log,
    async moveClock() {
      const before = moves;
      child.kill('SIGUSR1');
      for (let i = 0; moves === before; i++) {
        if (i === 100) throw new Error(`the dev server's clock did not move within 5 s:\n${log}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** median of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The bench page: loads the solvers and exposes them to the driver. */
export const benchPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pow bench</title>
<script type="module" src="/bench/bench.js"></script></head><body><p id="status">loading</p></body></html>`;

export const benchModule = `
import { solve, prewarm } from "/js/solver.js";
import { solveChallenge, solveChallengeWorkers } from "/altcha/index.js";

async function timeEach(challenges, fn) {
  const out = [];
  for (const c of challenges) {
    const t0 = performance.now();
    const number = await fn(c);
    out.push({ number, ms: performance.now() - t0 });
  }
  return out;
}

window.bench = {
  cores: navigator.hardwareConcurrency,
  prewarm: () => prewarm(),
  calibrate: () => {
    let best = Infinity;
    for (let r = 0; r < 5; r++) {
      let x = 0;
      const t0 = performance.now();
      for (let i = 0; i < 2e7; i++) x = (x + i * 7) | 0;
      best = Math.min(best, performance.now() - t0);
      window.__sink = x;
    }
    return best;
  },
  ours: (cs) => timeEach(cs, async (c) => (await solve(c)).number),
  oursInThread: (cs) => timeEach(cs, async (c) => (await solve(c, { workers: 0 })).number),
  oursAbort: async (c, afterMs) => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), afterMs);
    try { await solve(c, { signal: ctl.signal }); return "finished"; }
    catch (e) { return e && e.name; }
  },
  oursError: async (c) => {
    try { await solve(c); return "finished"; } catch (e) { return e && (e.code || e.name); }
  },
  referenceWorkers: (cs) => timeEach(cs, async (c) => {
    const s = await solveChallengeWorkers("/altcha/worker.js", navigator.hardwareConcurrency, c.challenge, c.salt, c.algorithm, c.maxnumber);
    return s ? s.number : null;
  }),
  referenceSingle: (cs) => timeEach(cs, async (c) => {
    const s = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
    return s ? s.number : null;
  }),
};
document.getElementById("status").textContent = "ready";
`;

/** solveWithModule is benchModule plus bench.solveWith(challenges, workers, chunk) → the numbers. */
export const solveWithModule = benchModule + `
import { solve as solveW } from "/js/solver.js";
window.bench.solveWith = async (cs, workers, chunk) => {
  const out = [];
  for (const c of cs) out.push((await solveW(c, { workers, chunk })).number);
  return out;
};`;
