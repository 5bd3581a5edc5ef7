// checkState: what every page test asserts of a state the visitor can
// reach — axe-core (injected from scripts/js/node_modules, run in the page)
// finds no violation in the light scheme nor in the dark one, and no
// "[object …]" text leaked into the page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const axeSource = readFileSync(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

/** checked lists the states checkState has seen in this process. */
export const checked = new Set();

/**
 * checkState runs axe-core on the page as it is now, in the light scheme
 * and in the dark one (prefers-color-scheme, emulated on the page without
 * reloading it), and fails on any violation (scheme, rule id, impact and
 * the offending nodes in the message); the page is left in the scheme it
 * was in. It then fails if the page's text holds "[object". page is a
 * playwright page or an engines.mjs page; one without emulateMedia (the
 * Firefox and WebKit drivers cannot emulate the scheme) is checked in the
 * scheme it shows. Evaluated through the driver, the injected script is
 * not subject to the page's CSP and leaves no trace in it.
 */
export async function checkState(page, name) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const dark = await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches);
  const violations = [];
  const schemes = page.emulateMedia ? ['light', 'dark'] : [dark ? 'dark' : 'light'];
  for (const colorScheme of schemes) {
    if (page.emulateMedia) await page.emulateMedia({ colorScheme });
    violations.push(...(await page.evaluate(async (scheme) => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ scheme, id: v.id, impact: v.impact, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
    }, colorScheme)));
  }
  if (page.emulateMedia) await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
  assert.deepEqual(violations, [], `${name}: axe found ${JSON.stringify(violations, null, 1)}`);
  const text = await page.evaluate(() => `${document.title}\n${document.body.textContent}\n${document.body.innerText}`);
  assert.ok(!text.includes('[object'), `${name}: the page shows "[object" text`);
  checked.add(name);
}
