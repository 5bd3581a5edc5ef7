// The throwaway domains the service embeds are the npm package's, as
// gen-spam-lists.mjs writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { listPath, render } from './gen-spam-lists.mjs';

test('shared/spamsignals/disposable-domains.txt matches its package', () => {
  assert.equal(readFileSync(listPath, 'utf8'), render(), 'stale: run node scripts/js/gen-spam-lists.mjs');
});
