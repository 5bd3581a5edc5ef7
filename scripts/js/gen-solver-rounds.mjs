// Writes the unrolled SHA-256 rounds of the solver worker's inner loops
// (shared/sitepage/assets/js/solver-worker.js, between the BEGIN/END
// GENERATED ROUNDS ANY and K12 markers): rounds 0..15 behind a fall-through
// switch that enters at the first round not precomputed, then the message
// schedule and rounds 16..56 straight-line. The K12 variant (words 0..11 of
// the last block fixed) takes the schedule's fixed terms from locals. Unrolled code keeps the working variables and
// schedule words in registers, which is most of the solver's speed.
// Each sum puts its plain variables first and its bitwise terms and
// constants last, so that every addition but the first has an operand that
// is a bitwise result or a constant: then JavaScriptCore's optimizing tiers
// add in 32 bits without overflow checks (see "The solver in every engine"
// in shared/sitepage/README.md).
//   node scripts/js/gen-solver-rounds.mjs          rewrite the file
//   node scripts/js/gen-solver-rounds.mjs --check  exit 1 if it is stale
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const workerPath = fileURLToPath(new URL('../../shared/sitepage/assets/js/solver-worker.js', import.meta.url));

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

// LAST is the last round run: its a is compared with the one the target
// implies (the solver works the last seven rounds backwards from the target).
const LAST = 56;

function round(t, ind) {
  return [
    `t1 = (h + w${t} + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + ${K[t] | 0}) | 0;`,
    // Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)); this round's a ^ b is the next one's b ^ c.
    `ab = a ^ b;`,
    `t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;`,
    `bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;`,
  ].filter((l) => !l.startsWith('//')).map((l) => ind + l);
}
function schedule(t, ind) {
  const x = `w${t - 15}`;
  const y = `w${t - 2}`;
  return [
    `${ind}const w${t} = (w${t - 7} + w${t - 16} + (((${y} >>> 17) | (${y} << 15)) ^ ((${y} >>> 19) | (${y} << 13)) ^ (${y} >>> 10)) +`,
    `${ind}  (((${x} >>> 7) | (${x} << 25)) ^ ((${x} >>> 18) | (${x} << 14)) ^ (${x} >>> 3))) | 0;`,
  ];
}

function sigma1(x) {
  return `(((${x} >>> 17) | (${x} << 15)) ^ ((${x} >>> 19) | (${x} << 13)) ^ (${x} >>> 10))`;
}

// k12 lists, for runK12, schedule words whose fixed terms are in locals
// c<t> (filled by fixedSchedule in the worker): t -> expression.
const k12 = {
  16: 'c16',
  17: 'c17',
  18: 'c18',
  19: '(c19 + w12) | 0',
  20: '(c20 + w13) | 0',
  21: `(${sigma1('w19')} + c21) | 0`,
  22: `(${sigma1('w20')} + c22) | 0`,
  23: `(${sigma1('w21')} + c23) | 0`,
  24: `(${sigma1('w22')} + c24) | 0`,
  25: `(${sigma1('w23')} + c25) | 0`,
  26: `(w19 + c26 + ${sigma1('w24')}) | 0`,
  29: `(((w22 + c29) | 0) + w13 + ${sigma1('w27')}) | 0`,
  30: `(w23 + c30 + ${sigma1('w28')}) | 0`,
  31: `(w24 + c31 + ${sigma1('w29')}) | 0`,
  32: `(w25 + c32 + ${sigma1('w30')}) | 0`,
  33: `(w26 + c33 + ${sigma1('w31')}) | 0`,
};

/** generated returns a region's unrolled code indented by ind. */
export function generated(name, ind) {
  const first = name === 'K12' ? 12 : 0;
  const lines = [`${ind}switch (k) {`];
  for (let t = first; t < 16; t++) {
    lines.push(`${ind}  case ${t}:`, ...round(t, ind + '    '));
  }
  lines.push(`${ind}}`);
  for (let t = 16; t <= LAST; t++) {
    if (name === 'K12' && k12[t]) lines.push(`${ind}const w${t} = ${k12[t]};`);
    else lines.push(...schedule(t, ind));
    lines.push(...round(t, ind));
  }
  return lines.join('\n');
}

/** rewrite returns the worker source with its generated regions renewed. */
export function rewrite(src) {
  let out = src;
  for (const name of ['ANY', 'K12']) {
    const begin = `// BEGIN GENERATED ROUNDS ${name}`;
    const end = `// END GENERATED ROUNDS ${name}`;
    const b = out.indexOf(begin);
    const e = out.indexOf(end);
    if (b < 0 || e < b) throw new Error(`generated-rounds markers ${name} not found`);
    const lineStart = out.lastIndexOf('\n', b) + 1;
    const ind = out.slice(lineStart, b);
    out = out.slice(0, b + begin.length) + '\n' + generated(name, ind) + '\n' + ind + out.slice(e);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const src = readFileSync(workerPath, 'utf8');
  const next = rewrite(src);
  if (process.argv.includes('--check')) {
    if (next !== src) {
      console.error(`${workerPath} is stale: run node scripts/js/gen-solver-rounds.mjs`);
      process.exit(1);
    }
  } else if (next !== src) {
    writeFileSync(workerPath, next);
  }
}
