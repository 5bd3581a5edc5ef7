// The browser engines the page is tested and benchmarked in, behind one thin
// driver layer, so that one test or bench runs in all three:
//   - chromium: Debian's chromium through playwright-core (harness.launch);
//   - firefox:  Debian's firefox-esr through puppeteer-core over WebDriver
//               BiDi (browser: 'firefox'), headless;
//   - webkit:   WebKitGTK's MiniBrowser through Debian's webkit2gtk-driver
//               (WebKitWebDriver) and selenium-webdriver. It has no headless
//               mode: it needs an X display (scripts/browser-tests.sh and
//               scripts/bench-pow.sh run under xvfb-run).
// openEngine(name) gives an engine whose newPage() opens a fresh page (in
// WebKit a fresh session: one window each). A page offers goto, evaluate
// (a function and one JSON argument, or a script's source; promises are
// awaited; a script's source is run for its effects), waitFor, fill, check, click (a CSS selector, or an XPath that
// starts with "//"), url and close; emulateMedia only where the driver can
// emulate prefers-color-scheme (page.can says what the driver can do).
// Where it cannot, the engine is opened in a scheme (options.colorScheme:
// Firefox by its content-override preference, WebKitGTK by the GTK theme's
// dark variant) and every page shows that one.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, chromiumPath, freePort, repo } from './harness.mjs';

export const firefoxPath = process.env.FIREFOX || '/usr/bin/firefox-esr';
export const webkitDriverPath = process.env.WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
// Debian's libwebkit2gtk-4.1-0 ships MiniBrowser here; webkit2gtk-driver starts it.
export const miniBrowserPath = process.env.MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** engineNames are the engines, in the order tests and benches run them. */
export const engineNames = ['chromium', 'firefox', 'webkit'];

/** selectedEngines is ENGINES (a comma-separated list of names), or all three. */
export function selectedEngines() {
  const want = (process.env.ENGINES || '').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = want.filter((n) => !engineNames.includes(n));
  if (unknown.length) throw new Error(`ENGINES: unknown engine(s) ${unknown.join(', ')}; known: ${engineNames.join(', ')}`);
  return want.length ? want : engineNames;
}

/** engineMissing lists what the engine needs and this machine lacks. */
export function engineMissing(name) {
  const has = (p) => existsSync(p);
  const mod = (m) => has(join(repo, 'scripts/js/node_modules', m));
  const out = [];
  if (name === 'chromium') {
    if (!has(chromiumPath)) out.push(`Chromium (${chromiumPath})`);
    if (!mod('playwright-core')) out.push('playwright-core (npm ci in scripts/js)');
  } else if (name === 'firefox') {
    if (!has(firefoxPath)) out.push(`Firefox (${firefoxPath})`);
    if (!mod('puppeteer-core')) out.push('puppeteer-core (npm ci in scripts/js)');
  } else if (name === 'webkit') {
    if (!has(webkitDriverPath)) out.push(`WebKitWebDriver (${webkitDriverPath})`);
    if (!has(miniBrowserPath)) out.push(`MiniBrowser (${miniBrowserPath})`);
    if (!mod('selenium-webdriver')) out.push('selenium-webdriver (npm ci in scripts/js)');
    if (!process.env.DISPLAY) out.push('an X display (run under xvfb-run)');
  }
  return out;
}

/** engineSkip is node:test's skip option for an engine: false, or what is missing. */
export function engineSkip(name) {
  const absent = engineMissing(name);
  return absent.length ? `${name}: missing ${absent.join(', ')}` : false;
}

const isXPath = (s) => s.startsWith('//') || s.startsWith('(');

// asyncScript turns evaluate's function (or a script's source, run for its
// effects: no eval, which the page's CSP forbids) into a function body that
// calls back with {ok} or {err} (for drivers that take a script's source).
function asyncScript(fn) {
  const call = typeof fn === 'function' ? `(${fn})(arguments[0])` : `(function () {\n${fn}\n})()`;
  return `const done = arguments[arguments.length - 1];
Promise.resolve().then(() => ${call}).then((ok) => done({ ok: ok === undefined ? null : ok }), (e) => done({ err: String(e && e.stack || e) }));`;
}

/** poll calls check until it returns a truthy value, or fails after timeout ms. */
async function poll(check, timeout, what) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err; // the page may be navigating
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// withWait adds waitFor (polling evaluate) to a page.
function withWait(page) {
  page.waitFor = (fn, arg, { timeout = 30_000 } = {}) => poll(() => page.evaluate(fn, arg), timeout, String(fn).slice(0, 160));
  return page;
}

async function chromiumEngine(options) {
  const browser = await launch(options);
  return {
    name: 'chromium',
    async newPage() {
      const p = await browser.context.newPage();
      return withWait({
        can: { colorScheme: true, initScript: true },
        raw: p,
        goto: (url) => p.goto(url).then(() => {}),
        evaluate: (fn, arg) => p.evaluate(fn, arg),
        fill: (sel, value) => p.fill(isXPath(sel) ? `xpath=${sel}` : sel, value),
        check: (sel) => p.check(isXPath(sel) ? `xpath=${sel}` : sel),
        click: (sel) => p.click(isXPath(sel) ? `xpath=${sel}` : sel),
        url: async () => p.url(),
        emulateMedia: (m) => p.emulateMedia(m),
        close: () => p.close(),
      });
    },
    close: () => browser.close(),
  };
}

async function firefoxEngine(options) {
  const puppeteer = (await import('puppeteer-core')).default;
  const profile = mkdtempSync(join(tmpdir(), 'introductions-firefox-'));
  const { width, height } = options.viewport || { width: 1000, height: 900 };
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    userDataDir: profile,
    defaultViewport: { width, height },
    extraPrefsFirefox: {
      'intl.accept_languages': options.locale || 'en-US',
      // prefers-color-scheme for every page: 0 dark, 1 light.
      'layout.css.prefers-color-scheme.content-override': options.colorScheme === 'dark' ? 0 : 1,
      'datareporting.policy.dataSubmissionEnabled': false,
      'browser.shell.checkDefaultBrowser': false,
    },
  });
  const handle = (p, sel) => (isXPath(sel) ? p.$(`::-p-xpath(${sel})`) : p.$(sel));
  const element = async (p, sel) => {
    const h = await handle(p, sel);
    if (!h) throw new Error(`no element ${sel}`);
    return h;
  };
  return {
    name: 'firefox',
    async newPage() {
      const p = await browser.newPage();
      let colorScheme = true;
      try {
        await p.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
        await p.emulateMediaFeatures(null);
      } catch {
        colorScheme = false;
      }
      const page = {
        can: { colorScheme, initScript: true },
        raw: p,
        goto: (url) => p.goto(url).then(() => {}),
        evaluate: (fn, arg) => (typeof fn === 'function' ? p.evaluate(fn, arg) : p.evaluate(fn)),
        async fill(sel, value) {
          const h = await element(p, sel);
          await h.evaluate((el) => {
            el.focus();
            el.select();
          });
          await p.keyboard.press('Backspace');
          await h.type(value);
        },
        check: async (sel) => {
          const h = await element(p, sel);
          if (!(await h.evaluate((el) => el.checked))) await h.click();
        },
        click: async (sel) => (await element(p, sel)).click(),
        url: async () => p.url(),
        close: () => p.close(),
      };
      if (colorScheme) page.emulateMedia = ({ colorScheme: s }) => p.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: s }]);
      return withWait(page);
    },
    async close() {
      await browser.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// webkitDriver starts WebKitWebDriver on a free loopback port (TEST_PORTS)
// and resolves once it answers /status. WEBKIT_STDERR=1 passes the driver's
// and the browser's stderr through: with JSC_reportCompileTimes=true it says
// which of JavaScriptCore's tiers compiled each function, workers' too.
// The browsers it starts inherit its environment, GTK_THEME among it: the
// theme's dark variant (":dark") makes WebKitGTK's pages prefer dark.
async function webkitDriver(colorScheme) {
  const port = await freePort();
  const env = { ...process.env, GTK_THEME: colorScheme === 'dark' ? 'Adwaita:dark' : 'Adwaita' };
  const child = spawn(webkitDriverPath, [`--port=${port}`, '--host=127.0.0.1'], { env, stdio: ['ignore', 'ignore', process.env.WEBKIT_STDERR ? 'inherit' : 'pipe'] });
  let log = '';
  if (child.stderr) child.stderr.on('data', (d) => (log = (log + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  await poll(async () => {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited ${child.exitCode}: ${log}`);
    return (await fetch(`${url}/status`)).ok;
  }, 20_000, 'WebKitWebDriver');
  const exited = new Promise((r) => child.once('exit', r));
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function webkitEngine(options) {
  const { Builder, By, Capabilities } = await import('selenium-webdriver');
  const server = await webkitDriver(options.colorScheme);
  const { width, height } = options.viewport || { width: 1000, height: 900 };
  const open = new Set();
  const find = (d, sel) => d.findElement(isXPath(sel) ? By.xpath(sel) : By.css(sel));
  return {
    name: 'webkit',
    async newPage() {
      const caps = new Capabilities();
      caps.setBrowserName('MiniBrowser');
      caps.set('webkitgtk:browserOptions', { binary: miniBrowserPath, args: ['--automation'] });
      // usingServer: the driver is ours; selenium fetches nothing.
      const d = await new Builder().usingServer(server.url).withCapabilities(caps).build();
      open.add(d);
      await d.manage().window().setRect({ width, height }).catch(() => {});
      await d.manage().setTimeouts({ script: 60_000, pageLoad: 60_000 });
      const evaluate = async (fn, arg) => {
        const r = await d.executeAsyncScript(asyncScript(fn), arg === undefined ? null : arg);
        if (r && 'err' in r) throw new Error(`in the page: ${r.err}`);
        return r ? r.ok : r;
      };
      return withWait({
        // WebKitWebDriver cannot run a script before the page's own, nor
        // emulate prefers-color-scheme (the engine's scheme is set when it
        // is opened).
        can: { colorScheme: false, initScript: false },
        raw: d,
        goto: (url) => d.get(url),
        evaluate,
        async fill(sel, value) {
          const el = await find(d, sel);
          await el.clear();
          await el.sendKeys(value);
        },
        async check(sel) {
          const el = await find(d, sel);
          if (!(await el.isSelected())) await el.click();
        },
        click: async (sel) => (await find(d, sel)).click(),
        url: () => d.getCurrentUrl(),
        async close() {
          open.delete(d);
          await d.quit().catch(() => {});
        },
      });
    },
    async close() {
      for (const d of open) await d.quit().catch(() => {});
      await server.stop();
    },
  };
}

/**
 * openEngine starts the named engine (options: viewport {width, height},
 * locale, colorScheme 'light' (the default) or 'dark' for the Firefox and
 * WebKit drivers, which cannot emulate it per page); close() ends what it
 * started. It fails when the engine is
 * missing (engineMissing says what).
 */
export async function openEngine(name, options = {}) {
  const absent = engineMissing(name);
  if (absent.length) throw new Error(`${name}: missing ${absent.join(', ')}`);
  if (name === 'chromium') return chromiumEngine(options);
  if (name === 'firefox') return firefoxEngine(options);
  if (name === 'webkit') return webkitEngine(options);
  throw new Error(`unknown engine ${name}`);
}
