#!/usr/bin/env node
// altcha-solve.mjs — an ALTCHA v1 client we did not write, for interop tests.
//
// Reads one ALTCHA v1 challenge as JSON on stdin
//   {"algorithm", "challenge", "maxnumber" (or "maxNumber"), "salt", "signature"}
// solves it with altcha-lib's own v1 solver (altcha-lib/v1 solveChallenge)
// and prints the base64 payload an ALTCHA v1 widget would send:
//   base64(JSON {"algorithm", "challenge", "number", "salt", "signature", "took"})
// Exit status: 0 solved; 1 bad input; 2 no solution within maxnumber.
//
// Usage: node scripts/js/altcha-solve.mjs < challenge.json

import { solveChallenge } from 'altcha-lib/v1';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function fail(status, message) {
  process.stderr.write(`altcha-solve: ${message}\n`);
  process.exit(status);
}

let challenge;
try {
  challenge = JSON.parse(await readStdin());
} catch (err) {
  fail(1, `stdin is not JSON: ${err.message}`);
}
const max = challenge.maxnumber ?? challenge.maxNumber;
for (const [name, ok] of [
  ['algorithm', typeof challenge.algorithm === 'string'],
  ['challenge', typeof challenge.challenge === 'string'],
  ['salt', typeof challenge.salt === 'string'],
  ['signature', typeof challenge.signature === 'string'],
  ['maxnumber', Number.isSafeInteger(max) && max >= 0],
]) {
  if (!ok) {
    fail(1, `challenge has no valid ${name}`);
  }
}

const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, max).promise;
if (!solution) {
  fail(2, 'no solution within maxnumber');
}
const payload = {
  algorithm: challenge.algorithm,
  challenge: challenge.challenge,
  number: solution.number,
  salt: challenge.salt,
  signature: challenge.signature,
  took: solution.took,
};
process.stdout.write(Buffer.from(JSON.stringify(payload), 'utf8').toString('base64') + '\n');
