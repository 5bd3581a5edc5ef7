// ALTCHA v1 proof-of-work search: the module worker solver.js runs (and
// imports itself, for Job, when no worker can run). SHA-256(salt +
// decimal(n)) is computed synchronously, for this one shape of message:
// see ../../README.md ("The solver").
//
// Protocol (structured-clone messages):
//   in:  {type: "job", id, salt, challenge, maxNumber, index, stride, chunk, progress}
//        the worker searches chunks index, index+stride, … of `chunk` numbers,
//        reporting progress after each slice of work when progress is true
//   in:  {type: "abort", id}
//   out: {type: "found", id, number} | {type: "done", id} (its share has no
//        solution) | {type: "progress", id, checked} | {type: "error", id, message}
// Between slices of work the worker yields to its event loop so an abort is
// seen within a few milliseconds.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

// compress runs the 64 rounds over the 16 words in w[0..15] (w has room for
// 64) and adds the result into h.
function compress(h, w) {
  for (let t = 16; t < 64; t++) {
    const x = w[t - 15];
    const y = w[t - 2];
    w[t] =
      (w[t - 7] +
        w[t - 16] +
        (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) +
        (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3))) |
      0;
  }
  let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (let t = 0; t < 64; t++) {
    const t1 =
      (((hh + K[t]) | 0) +
        w[t] +
        (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        ((e & f) ^ (~e & g))) |
      0;
    const t2 =
      ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
        ((a & b) ^ (a & c) ^ (b & c))) |
      0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0] + a) | 0;
  h[1] = (h[1] + b) | 0;
  h[2] = (h[2] + c) | 0;
  h[3] = (h[3] + d) | 0;
  h[4] = (h[4] + e) | 0;
  h[5] = (h[5] + f) | 0;
  h[6] = (h[6] + g) | 0;
  h[7] = (h[7] + hh) | 0;
}

// roundT2 is a round's T2 = Σ0(a) + Maj(a, b, c).
function roundT2(a, b, c) {
  return ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
}

// backwardA57 returns the value a must have after round 56 (0-based) for the
// last block, started from mid, to give the target. After round t the state
// is (a', b', c', d', e', f', g', h') = (T1 + T2, a, b, c, d + T1, e, f, g),
// and T2 needs only a, b, c: so from the final state (target - mid) each
// round backwards yields its T1 = a' - T2 and then d = e' - T1, which is the
// a of three rounds earlier.
function backwardA57(target, mid) {
  const a64 = (target[0] - mid[0]) | 0;
  const a63 = (target[1] - mid[1]) | 0;
  const a62 = (target[2] - mid[2]) | 0;
  const a61 = (target[3] - mid[3]) | 0;
  const e64 = (target[4] - mid[4]) | 0;
  const e63 = (target[5] - mid[5]) | 0;
  const e62 = (target[6] - mid[6]) | 0;
  const e61 = (target[7] - mid[7]) | 0;
  const a60 = (e64 - ((a64 - roundT2(a63, a62, a61)) | 0)) | 0;
  const a59 = (e63 - ((a63 - roundT2(a62, a61, a60)) | 0)) | 0;
  const a58 = (e62 - ((a62 - roundT2(a61, a60, a59)) | 0)) | 0;
  return (e61 - ((a61 - roundT2(a60, a59, a58)) | 0)) | 0;
}

function sigma0(x) {
  return ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
}

function sigma1(x) {
  return ((x >>> 17) | (x << 15)) ^ ((x >>> 19) | (x << 13)) ^ (x >>> 10);
}

// fixedSchedule fills F[16..33] with what runK12 takes as fixed, given the
// last block's words w (words 0..11, 14 and 15 fixed; 12 and 13 not):
// schedule words 16..18 whole, and for 19..33 the sum of their fixed terms
// (W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]).
function fixedSchedule(w, F) {
  // Plain terms first, bitwise ones last (see gen-solver-rounds.mjs).
  F[16] = (w[9] + w[0] + sigma1(w[14]) + sigma0(w[1])) | 0;
  F[17] = (w[10] + w[1] + sigma1(w[15]) + sigma0(w[2])) | 0;
  F[18] = (w[11] + w[2] + sigma1(F[16]) + sigma0(w[3])) | 0;
  F[19] = (w[3] + sigma1(F[17]) + sigma0(w[4])) | 0; // + W12
  F[20] = (w[4] + sigma1(F[18]) + sigma0(w[5])) | 0; // + W13
  F[21] = (w[14] + w[5] + sigma0(w[6])) | 0; // + σ1(W19)
  F[22] = (w[15] + w[6] + sigma0(w[7])) | 0; // + σ1(W20)
  F[23] = (F[16] + w[7] + sigma0(w[8])) | 0; // + σ1(W21)
  F[24] = (F[17] + w[8] + sigma0(w[9])) | 0; // + σ1(W22)
  F[25] = (F[18] + w[9] + sigma0(w[10])) | 0; // + σ1(W23)
  F[26] = (w[10] + sigma0(w[11])) | 0; // + σ1(W24) + W19
  F[29] = sigma0(w[14]) | 0; // + σ1(W27) + W22 + W13
  F[30] = (w[14] + sigma0(w[15])) | 0; // + σ1(W28) + W23
  F[31] = (w[15] + sigma0(F[16])) | 0; // + σ1(W29) + W24
  F[32] = (F[16] + sigma0(F[17])) | 0; // + σ1(W30) + W25
  F[33] = (F[17] + sigma0(F[18])) | 0; // + σ1(W31) + W26
}

// loadWords reads 16 big-endian words from bytes[off..off+64) into w.
function loadWords(w, bytes, off) {
  for (let i = 0; i < 16; i++) {
    const p = off + 4 * i;
    w[i] = (bytes[p] << 24) | (bytes[p + 1] << 16) | (bytes[p + 2] << 8) | bytes[p + 3];
  }
}

// digitsOf writes the ASCII decimal digits of n into out and returns how many.
function digitsOf(n, out) {
  const s = String(n);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return s.length;
}

const encoder = new TextEncoder();

/**
 * Job is one challenge's search over chunks index, index+stride, … of chunk
 * numbers: new Job({id, salt, challenge, maxNumber, index, stride, chunk,
 * progress}), then step(sliceMs) until it returns a number (the answer) or
 * -2 (no answer in its share); -1 means "call again". It throws on a
 * malformed challenge.
 */
// Job holds one challenge's search: what is fixed for all numbers, and the
// layout of the last block for the current run of numbers.
//
// The message is salt + digits. Its last 64-byte block is the only one that
// changes from one number to the next, except when a carry changes a digit
// that lies in an earlier block (or the digit count grows): then layout()
// recomputes the midstate of the earlier blocks, the template of the last
// block (its digit bytes zeroed) and the state after the rounds that consume
// its leading words holding no digit.
export class Job {
  constructor(m) {
    this.id = m.id;
    this.maxNumber = m.maxNumber;
    this.stride = m.stride;
    this.chunk = m.chunk;
    this.nextChunk = m.index; // global index of the next chunk to search
    this.checked = 0;
    this.progress = !!m.progress;

    if (!/^[0-9a-fA-F]{64}$/.test(m.challenge)) throw new Error("challenge is not a SHA-256 hex digest");
    const target = new Int32Array(8);
    for (let i = 0; i < 8; i++) target[i] = parseInt(m.challenge.slice(8 * i, 8 * i + 8), 16) | 0;
    this.target = target;

    const salt = encoder.encode(m.salt);
    if (salt.length > 1 << 20) throw new Error("salt too long");
    this.salt = salt;
    this.saltFull = salt.length - (salt.length % 64);
    this.w = new Int32Array(64);
    this.saltMid = new Int32Array(IV);
    for (let off = 0; off < this.saltFull; off += 64) {
      loadWords(this.w, salt, off);
      compress(this.saltMid, this.w);
    }
    this.digits = new Uint8Array(24);
    this.buf = new Uint8Array(256);
    this.mid = new Int32Array(8);
    this.pre = new Int32Array(8);
    this.tpl = new Int32Array(16);
    this.fixed = new Int32Array(34);
    this.answer = -1;
    this.h = new Int32Array(8);
    // Set by layout():
    this.nd = 0; // digits in the current numbers
    this.hd = 0; // of which in the blocks before the last
    this.r = 0; // offset in the last block of digit hd
    this.k = 0; // leading words of the last block holding no digit (16: none holds one)
    this.last = -1; // last word of the last block holding a digit
  }

  // padded writes the message from byte saltFull on, with its padding, into
  // buf, for the nd digits in this.digits; returns its length (whole blocks).
  padded(nd) {
    const buf = this.buf;
    buf.fill(0);
    const rest = this.salt.subarray(this.saltFull);
    buf.set(rest, 0);
    for (let i = 0; i < nd; i++) buf[rest.length + i] = this.digits[i];
    const len = rest.length + nd;
    buf[len] = 0x80;
    const total = Math.ceil((len + 9) / 64) * 64;
    const bytes = this.salt.length + nd;
    const hi = Math.floor(bytes / 0x20000000);
    const lo = (bytes * 8) >>> 0;
    buf[total - 8] = hi >>> 24;
    buf[total - 7] = (hi >>> 16) & 0xff;
    buf[total - 6] = (hi >>> 8) & 0xff;
    buf[total - 5] = hi & 0xff;
    buf[total - 4] = lo >>> 24;
    buf[total - 3] = (lo >>> 16) & 0xff;
    buf[total - 2] = (lo >>> 8) & 0xff;
    buf[total - 1] = lo & 0xff;
    return total;
  }

  layout(nd) {
    const buf = this.buf;
    const total = this.padded(nd);
    const lastOff = total - 64;
    const lastStart = this.saltFull + lastOff;
    const w = this.w;
    const mid = this.mid;
    mid.set(this.saltMid);
    for (let off = 0; off < lastOff; off += 64) {
      loadWords(w, buf, off);
      compress(mid, w);
    }
    const saltLen = this.salt.length;
    const hd = Math.min(nd, Math.max(0, lastStart - saltLen));
    const r = Math.max(0, saltLen - lastStart);
    for (let i = hd; i < nd; i++) buf[lastOff + r + i - hd] = 0;
    const tpl = this.tpl;
    loadWords(tpl, buf, lastOff);
    const k = hd < nd ? r >>> 2 : 16;
    let a = mid[0], b = mid[1], c = mid[2], d = mid[3];
    let e = mid[4], f = mid[5], g = mid[6], hh = mid[7];
    for (let t = 0; t < k; t++) {
      const t1 =
        (((hh + K[t]) | 0) +
          tpl[t] +
          (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
          ((e & f) ^ (~e & g))) |
        0;
      const t2 =
        ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
          ((a & b) ^ (a & c) ^ (b & c))) |
        0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    this.pre[0] = a;
    this.pre[1] = b;
    this.pre[2] = c;
    this.pre[3] = d;
    this.pre[4] = e;
    this.pre[5] = f;
    this.pre[6] = g;
    this.pre[7] = hh;
    this.nd = nd;
    this.hd = hd;
    this.r = r;
    this.k = k;
    this.last = hd < nd ? (r + nd - hd - 1) >>> 2 : -1;
    this.a57 = backwardA57(this.target, mid);
    if (k >= 12) fixedSchedule(tpl, this.fixed);
  }

  // full reports whether SHA-256(salt + n) is the target, hashing in full.
  full(n) {
    const nd = digitsOf(n, this.digits);
    const total = this.padded(nd);
    const h = this.h;
    h.set(this.saltMid);
    for (let off = 0; off < total; off += 64) {
      loadWords(this.w, this.buf, off);
      compress(h, this.w);
    }
    const target = this.target;
    for (let i = 0; i < 8; i++) if (h[i] !== target[i]) return false;
    return true;
  }

  // search looks for the solution in from..to (inclusive), returning it or
  // -1. It runs one layout at a time: with runK12 when the last block's
  // words 0..11 hold no digit (then part of the message schedule is fixed
  // too; the service's salts are of this kind), else with runAny.
  search(from, to) {
    let nd = digitsOf(from, this.digits);
    let n = from;
    this.answer = -1;
    while (n <= to) {
      this.layout(nd);
      n = this.k >= 12 ? this.runK12(n, to) : this.runAny(n, to);
      if (this.answer >= 0) return this.answer;
      nd = this.nd;
    }
    return -1;
  }

  // advance steps the decimal digits to the next number and reports whether
  // the layout must change (a digit before the last block changed, or one
  // more digit). Updates this.nd.
  advance() {
    const digits = this.digits;
    let nd = this.nd;
    let i = nd - 1;
    while (i >= 0 && digits[i] === 0x39) digits[i--] = 0x30;
    if (i >= 0) {
      digits[i]++;
      return i < this.hd;
    }
    // 99…9 became 100…0.
    digits[0] = 0x31;
    digits[nd] = 0x30;
    this.nd = nd + 1;
    return true;
  }

  // runAny searches from n while the layout holds, for any layout. Returns
  // the next number to search (after setting this.answer if it found it).
  runAny(n, to) {
    const wv = this.w;
    const digits = this.digits;
    const tpl = this.tpl;
    const pre = this.pre;
    const k = this.k, r = this.r, hd = this.hd, last = this.last, nd = this.nd;
    const p0 = pre[0], p1 = pre[1], p2 = pre[2], p3 = pre[3];
    const p4 = pre[4], p5 = pre[5], p6 = pre[6], p7 = pre[7];
    const want = this.a57;
    wv.set(tpl);
    let t1 = 0, t2 = 0;
    for (; n <= to; n++) {
      // Put the last block's digits into its words k..last (zeros in tpl).
      for (let j = k; j <= last; j++) wv[j] = tpl[j];
      for (let i = hd; i < nd; i++) {
        const p = r + i - hd;
        wv[p >>> 2] |= digits[i] << (24 - 8 * (p & 3));
      }
      const w0 = wv[0], w1 = wv[1], w2 = wv[2], w3 = wv[3];
      const w4 = wv[4], w5 = wv[5], w6 = wv[6], w7 = wv[7];
      const w8 = wv[8], w9 = wv[9], w10 = wv[10], w11 = wv[11];
      const w12 = wv[12], w13 = wv[13], w14 = wv[14], w15 = wv[15];
      let a = p0, b = p1, c = p2, d = p3, e = p4, f = p5, g = p6, h = p7;
      let ab = 0, bc = p1 ^ p2;
      // Rounds k..56, unrolled; rounds 0..k-1 are in pre. Between the
      // markers the code is written by scripts/js/gen-solver-rounds.mjs.
      // BEGIN GENERATED ROUNDS ANY
      switch (k) {
        case 0:
          t1 = (h + w0 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1116352408) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 1:
          t1 = (h + w1 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1899447441) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 2:
          t1 = (h + w2 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1245643825) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 3:
          t1 = (h + w3 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -373957723) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 4:
          t1 = (h + w4 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 961987163) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 5:
          t1 = (h + w5 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1508970993) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 6:
          t1 = (h + w6 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1841331548) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 7:
          t1 = (h + w7 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1424204075) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 8:
          t1 = (h + w8 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -670586216) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 9:
          t1 = (h + w9 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 310598401) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 10:
          t1 = (h + w10 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 607225278) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 11:
          t1 = (h + w11 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1426881987) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 12:
          t1 = (h + w12 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1925078388) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 13:
          t1 = (h + w13 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -2132889090) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 14:
          t1 = (h + w14 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1680079193) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 15:
          t1 = (h + w15 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1046744716) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      const w16 = (w9 + w0 + (((w14 >>> 17) | (w14 << 15)) ^ ((w14 >>> 19) | (w14 << 13)) ^ (w14 >>> 10)) +
        (((w1 >>> 7) | (w1 << 25)) ^ ((w1 >>> 18) | (w1 << 14)) ^ (w1 >>> 3))) | 0;
      t1 = (h + w16 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -459576895) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w17 = (w10 + w1 + (((w15 >>> 17) | (w15 << 15)) ^ ((w15 >>> 19) | (w15 << 13)) ^ (w15 >>> 10)) +
        (((w2 >>> 7) | (w2 << 25)) ^ ((w2 >>> 18) | (w2 << 14)) ^ (w2 >>> 3))) | 0;
      t1 = (h + w17 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -272742522) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w18 = (w11 + w2 + (((w16 >>> 17) | (w16 << 15)) ^ ((w16 >>> 19) | (w16 << 13)) ^ (w16 >>> 10)) +
        (((w3 >>> 7) | (w3 << 25)) ^ ((w3 >>> 18) | (w3 << 14)) ^ (w3 >>> 3))) | 0;
      t1 = (h + w18 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 264347078) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w19 = (w12 + w3 + (((w17 >>> 17) | (w17 << 15)) ^ ((w17 >>> 19) | (w17 << 13)) ^ (w17 >>> 10)) +
        (((w4 >>> 7) | (w4 << 25)) ^ ((w4 >>> 18) | (w4 << 14)) ^ (w4 >>> 3))) | 0;
      t1 = (h + w19 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 604807628) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w20 = (w13 + w4 + (((w18 >>> 17) | (w18 << 15)) ^ ((w18 >>> 19) | (w18 << 13)) ^ (w18 >>> 10)) +
        (((w5 >>> 7) | (w5 << 25)) ^ ((w5 >>> 18) | (w5 << 14)) ^ (w5 >>> 3))) | 0;
      t1 = (h + w20 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 770255983) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w21 = (w14 + w5 + (((w19 >>> 17) | (w19 << 15)) ^ ((w19 >>> 19) | (w19 << 13)) ^ (w19 >>> 10)) +
        (((w6 >>> 7) | (w6 << 25)) ^ ((w6 >>> 18) | (w6 << 14)) ^ (w6 >>> 3))) | 0;
      t1 = (h + w21 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1249150122) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w22 = (w15 + w6 + (((w20 >>> 17) | (w20 << 15)) ^ ((w20 >>> 19) | (w20 << 13)) ^ (w20 >>> 10)) +
        (((w7 >>> 7) | (w7 << 25)) ^ ((w7 >>> 18) | (w7 << 14)) ^ (w7 >>> 3))) | 0;
      t1 = (h + w22 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1555081692) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w23 = (w16 + w7 + (((w21 >>> 17) | (w21 << 15)) ^ ((w21 >>> 19) | (w21 << 13)) ^ (w21 >>> 10)) +
        (((w8 >>> 7) | (w8 << 25)) ^ ((w8 >>> 18) | (w8 << 14)) ^ (w8 >>> 3))) | 0;
      t1 = (h + w23 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1996064986) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w24 = (w17 + w8 + (((w22 >>> 17) | (w22 << 15)) ^ ((w22 >>> 19) | (w22 << 13)) ^ (w22 >>> 10)) +
        (((w9 >>> 7) | (w9 << 25)) ^ ((w9 >>> 18) | (w9 << 14)) ^ (w9 >>> 3))) | 0;
      t1 = (h + w24 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1740746414) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w25 = (w18 + w9 + (((w23 >>> 17) | (w23 << 15)) ^ ((w23 >>> 19) | (w23 << 13)) ^ (w23 >>> 10)) +
        (((w10 >>> 7) | (w10 << 25)) ^ ((w10 >>> 18) | (w10 << 14)) ^ (w10 >>> 3))) | 0;
      t1 = (h + w25 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1473132947) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w26 = (w19 + w10 + (((w24 >>> 17) | (w24 << 15)) ^ ((w24 >>> 19) | (w24 << 13)) ^ (w24 >>> 10)) +
        (((w11 >>> 7) | (w11 << 25)) ^ ((w11 >>> 18) | (w11 << 14)) ^ (w11 >>> 3))) | 0;
      t1 = (h + w26 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1341970488) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w27 = (w20 + w11 + (((w25 >>> 17) | (w25 << 15)) ^ ((w25 >>> 19) | (w25 << 13)) ^ (w25 >>> 10)) +
        (((w12 >>> 7) | (w12 << 25)) ^ ((w12 >>> 18) | (w12 << 14)) ^ (w12 >>> 3))) | 0;
      t1 = (h + w27 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1084653625) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w28 = (w21 + w12 + (((w26 >>> 17) | (w26 << 15)) ^ ((w26 >>> 19) | (w26 << 13)) ^ (w26 >>> 10)) +
        (((w13 >>> 7) | (w13 << 25)) ^ ((w13 >>> 18) | (w13 << 14)) ^ (w13 >>> 3))) | 0;
      t1 = (h + w28 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -958395405) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w29 = (w22 + w13 + (((w27 >>> 17) | (w27 << 15)) ^ ((w27 >>> 19) | (w27 << 13)) ^ (w27 >>> 10)) +
        (((w14 >>> 7) | (w14 << 25)) ^ ((w14 >>> 18) | (w14 << 14)) ^ (w14 >>> 3))) | 0;
      t1 = (h + w29 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -710438585) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w30 = (w23 + w14 + (((w28 >>> 17) | (w28 << 15)) ^ ((w28 >>> 19) | (w28 << 13)) ^ (w28 >>> 10)) +
        (((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3))) | 0;
      t1 = (h + w30 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 113926993) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w31 = (w24 + w15 + (((w29 >>> 17) | (w29 << 15)) ^ ((w29 >>> 19) | (w29 << 13)) ^ (w29 >>> 10)) +
        (((w16 >>> 7) | (w16 << 25)) ^ ((w16 >>> 18) | (w16 << 14)) ^ (w16 >>> 3))) | 0;
      t1 = (h + w31 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 338241895) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w32 = (w25 + w16 + (((w30 >>> 17) | (w30 << 15)) ^ ((w30 >>> 19) | (w30 << 13)) ^ (w30 >>> 10)) +
        (((w17 >>> 7) | (w17 << 25)) ^ ((w17 >>> 18) | (w17 << 14)) ^ (w17 >>> 3))) | 0;
      t1 = (h + w32 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 666307205) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w33 = (w26 + w17 + (((w31 >>> 17) | (w31 << 15)) ^ ((w31 >>> 19) | (w31 << 13)) ^ (w31 >>> 10)) +
        (((w18 >>> 7) | (w18 << 25)) ^ ((w18 >>> 18) | (w18 << 14)) ^ (w18 >>> 3))) | 0;
      t1 = (h + w33 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 773529912) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w34 = (w27 + w18 + (((w32 >>> 17) | (w32 << 15)) ^ ((w32 >>> 19) | (w32 << 13)) ^ (w32 >>> 10)) +
        (((w19 >>> 7) | (w19 << 25)) ^ ((w19 >>> 18) | (w19 << 14)) ^ (w19 >>> 3))) | 0;
      t1 = (h + w34 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1294757372) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w35 = (w28 + w19 + (((w33 >>> 17) | (w33 << 15)) ^ ((w33 >>> 19) | (w33 << 13)) ^ (w33 >>> 10)) +
        (((w20 >>> 7) | (w20 << 25)) ^ ((w20 >>> 18) | (w20 << 14)) ^ (w20 >>> 3))) | 0;
      t1 = (h + w35 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1396182291) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w36 = (w29 + w20 + (((w34 >>> 17) | (w34 << 15)) ^ ((w34 >>> 19) | (w34 << 13)) ^ (w34 >>> 10)) +
        (((w21 >>> 7) | (w21 << 25)) ^ ((w21 >>> 18) | (w21 << 14)) ^ (w21 >>> 3))) | 0;
      t1 = (h + w36 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1695183700) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w37 = (w30 + w21 + (((w35 >>> 17) | (w35 << 15)) ^ ((w35 >>> 19) | (w35 << 13)) ^ (w35 >>> 10)) +
        (((w22 >>> 7) | (w22 << 25)) ^ ((w22 >>> 18) | (w22 << 14)) ^ (w22 >>> 3))) | 0;
      t1 = (h + w37 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1986661051) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w38 = (w31 + w22 + (((w36 >>> 17) | (w36 << 15)) ^ ((w36 >>> 19) | (w36 << 13)) ^ (w36 >>> 10)) +
        (((w23 >>> 7) | (w23 << 25)) ^ ((w23 >>> 18) | (w23 << 14)) ^ (w23 >>> 3))) | 0;
      t1 = (h + w38 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -2117940946) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w39 = (w32 + w23 + (((w37 >>> 17) | (w37 << 15)) ^ ((w37 >>> 19) | (w37 << 13)) ^ (w37 >>> 10)) +
        (((w24 >>> 7) | (w24 << 25)) ^ ((w24 >>> 18) | (w24 << 14)) ^ (w24 >>> 3))) | 0;
      t1 = (h + w39 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1838011259) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w40 = (w33 + w24 + (((w38 >>> 17) | (w38 << 15)) ^ ((w38 >>> 19) | (w38 << 13)) ^ (w38 >>> 10)) +
        (((w25 >>> 7) | (w25 << 25)) ^ ((w25 >>> 18) | (w25 << 14)) ^ (w25 >>> 3))) | 0;
      t1 = (h + w40 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1564481375) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w41 = (w34 + w25 + (((w39 >>> 17) | (w39 << 15)) ^ ((w39 >>> 19) | (w39 << 13)) ^ (w39 >>> 10)) +
        (((w26 >>> 7) | (w26 << 25)) ^ ((w26 >>> 18) | (w26 << 14)) ^ (w26 >>> 3))) | 0;
      t1 = (h + w41 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1474664885) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w42 = (w35 + w26 + (((w40 >>> 17) | (w40 << 15)) ^ ((w40 >>> 19) | (w40 << 13)) ^ (w40 >>> 10)) +
        (((w27 >>> 7) | (w27 << 25)) ^ ((w27 >>> 18) | (w27 << 14)) ^ (w27 >>> 3))) | 0;
      t1 = (h + w42 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1035236496) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w43 = (w36 + w27 + (((w41 >>> 17) | (w41 << 15)) ^ ((w41 >>> 19) | (w41 << 13)) ^ (w41 >>> 10)) +
        (((w28 >>> 7) | (w28 << 25)) ^ ((w28 >>> 18) | (w28 << 14)) ^ (w28 >>> 3))) | 0;
      t1 = (h + w43 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -949202525) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w44 = (w37 + w28 + (((w42 >>> 17) | (w42 << 15)) ^ ((w42 >>> 19) | (w42 << 13)) ^ (w42 >>> 10)) +
        (((w29 >>> 7) | (w29 << 25)) ^ ((w29 >>> 18) | (w29 << 14)) ^ (w29 >>> 3))) | 0;
      t1 = (h + w44 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -778901479) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w45 = (w38 + w29 + (((w43 >>> 17) | (w43 << 15)) ^ ((w43 >>> 19) | (w43 << 13)) ^ (w43 >>> 10)) +
        (((w30 >>> 7) | (w30 << 25)) ^ ((w30 >>> 18) | (w30 << 14)) ^ (w30 >>> 3))) | 0;
      t1 = (h + w45 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -694614492) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w46 = (w39 + w30 + (((w44 >>> 17) | (w44 << 15)) ^ ((w44 >>> 19) | (w44 << 13)) ^ (w44 >>> 10)) +
        (((w31 >>> 7) | (w31 << 25)) ^ ((w31 >>> 18) | (w31 << 14)) ^ (w31 >>> 3))) | 0;
      t1 = (h + w46 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -200395387) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w47 = (w40 + w31 + (((w45 >>> 17) | (w45 << 15)) ^ ((w45 >>> 19) | (w45 << 13)) ^ (w45 >>> 10)) +
        (((w32 >>> 7) | (w32 << 25)) ^ ((w32 >>> 18) | (w32 << 14)) ^ (w32 >>> 3))) | 0;
      t1 = (h + w47 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 275423344) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w48 = (w41 + w32 + (((w46 >>> 17) | (w46 << 15)) ^ ((w46 >>> 19) | (w46 << 13)) ^ (w46 >>> 10)) +
        (((w33 >>> 7) | (w33 << 25)) ^ ((w33 >>> 18) | (w33 << 14)) ^ (w33 >>> 3))) | 0;
      t1 = (h + w48 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 430227734) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w49 = (w42 + w33 + (((w47 >>> 17) | (w47 << 15)) ^ ((w47 >>> 19) | (w47 << 13)) ^ (w47 >>> 10)) +
        (((w34 >>> 7) | (w34 << 25)) ^ ((w34 >>> 18) | (w34 << 14)) ^ (w34 >>> 3))) | 0;
      t1 = (h + w49 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 506948616) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w50 = (w43 + w34 + (((w48 >>> 17) | (w48 << 15)) ^ ((w48 >>> 19) | (w48 << 13)) ^ (w48 >>> 10)) +
        (((w35 >>> 7) | (w35 << 25)) ^ ((w35 >>> 18) | (w35 << 14)) ^ (w35 >>> 3))) | 0;
      t1 = (h + w50 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 659060556) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w51 = (w44 + w35 + (((w49 >>> 17) | (w49 << 15)) ^ ((w49 >>> 19) | (w49 << 13)) ^ (w49 >>> 10)) +
        (((w36 >>> 7) | (w36 << 25)) ^ ((w36 >>> 18) | (w36 << 14)) ^ (w36 >>> 3))) | 0;
      t1 = (h + w51 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 883997877) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w52 = (w45 + w36 + (((w50 >>> 17) | (w50 << 15)) ^ ((w50 >>> 19) | (w50 << 13)) ^ (w50 >>> 10)) +
        (((w37 >>> 7) | (w37 << 25)) ^ ((w37 >>> 18) | (w37 << 14)) ^ (w37 >>> 3))) | 0;
      t1 = (h + w52 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 958139571) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w53 = (w46 + w37 + (((w51 >>> 17) | (w51 << 15)) ^ ((w51 >>> 19) | (w51 << 13)) ^ (w51 >>> 10)) +
        (((w38 >>> 7) | (w38 << 25)) ^ ((w38 >>> 18) | (w38 << 14)) ^ (w38 >>> 3))) | 0;
      t1 = (h + w53 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1322822218) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w54 = (w47 + w38 + (((w52 >>> 17) | (w52 << 15)) ^ ((w52 >>> 19) | (w52 << 13)) ^ (w52 >>> 10)) +
        (((w39 >>> 7) | (w39 << 25)) ^ ((w39 >>> 18) | (w39 << 14)) ^ (w39 >>> 3))) | 0;
      t1 = (h + w54 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1537002063) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w55 = (w48 + w39 + (((w53 >>> 17) | (w53 << 15)) ^ ((w53 >>> 19) | (w53 << 13)) ^ (w53 >>> 10)) +
        (((w40 >>> 7) | (w40 << 25)) ^ ((w40 >>> 18) | (w40 << 14)) ^ (w40 >>> 3))) | 0;
      t1 = (h + w55 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1747873779) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w56 = (w49 + w40 + (((w54 >>> 17) | (w54 << 15)) ^ ((w54 >>> 19) | (w54 << 13)) ^ (w54 >>> 10)) +
        (((w41 >>> 7) | (w41 << 25)) ^ ((w41 >>> 18) | (w41 << 14)) ^ (w41 >>> 3))) | 0;
      t1 = (h + w56 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1955562222) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      // END GENERATED ROUNDS ANY
      // After round 56, a must be what the target implies.
      if (a === want && this.full(n)) {
        this.answer = n;
        return n + 1;
      }
      if (n < to && this.advance()) return n + 1;
    }
    return n;
  }

  // runK12 is runAny for layouts whose last block has no digit in words
  // 0..11 (k >= 12): with words 0..11, 14 and 15 fixed, schedule words
  // 16..18 and parts of 19..33 are taken from this.fixed (see layout).
  runK12(n, to) {
    const wv = this.w;
    const digits = this.digits;
    const tpl = this.tpl;
    const pre = this.pre;
    const F = this.fixed;
    const k = this.k, r = this.r, hd = this.hd, last = this.last, nd = this.nd;
    const p0 = pre[0], p1 = pre[1], p2 = pre[2], p3 = pre[3];
    const p4 = pre[4], p5 = pre[5], p6 = pre[6], p7 = pre[7];
    const c16 = F[16], c17 = F[17], c18 = F[18], c19 = F[19], c20 = F[20], c21 = F[21], c22 = F[22];
    const c23 = F[23], c24 = F[24], c25 = F[25], c26 = F[26], c29 = F[29], c30 = F[30], c31 = F[31];
    const c32 = F[32], c33 = F[33];
    const w0 = tpl[0], w1 = tpl[1], w2 = tpl[2], w3 = tpl[3];
    const w4 = tpl[4], w5 = tpl[5], w6 = tpl[6], w7 = tpl[7];
    const w8 = tpl[8], w9 = tpl[9], w10 = tpl[10], w11 = tpl[11];
    const w14 = tpl[14], w15 = tpl[15];
    const want = this.a57;
    wv.set(tpl);
    let t1 = 0, t2 = 0;
    for (; n <= to; n++) {
      for (let j = k; j <= last; j++) wv[j] = tpl[j];
      for (let i = hd; i < nd; i++) {
        const p = r + i - hd;
        wv[p >>> 2] |= digits[i] << (24 - 8 * (p & 3));
      }
      const w12 = wv[12], w13 = wv[13];
      let a = p0, b = p1, c = p2, d = p3, e = p4, f = p5, g = p6, h = p7;
      let ab = 0, bc = p1 ^ p2;
      // BEGIN GENERATED ROUNDS K12
      switch (k) {
        case 12:
          t1 = (h + w12 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1925078388) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 13:
          t1 = (h + w13 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -2132889090) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 14:
          t1 = (h + w14 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1680079193) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        case 15:
          t1 = (h + w15 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1046744716) | 0;
          ab = a ^ b;
          t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
          bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      const w16 = c16;
      t1 = (h + w16 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -459576895) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w17 = c17;
      t1 = (h + w17 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -272742522) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w18 = c18;
      t1 = (h + w18 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 264347078) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w19 = (c19 + w12) | 0;
      t1 = (h + w19 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 604807628) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w20 = (c20 + w13) | 0;
      t1 = (h + w20 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 770255983) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w21 = ((((w19 >>> 17) | (w19 << 15)) ^ ((w19 >>> 19) | (w19 << 13)) ^ (w19 >>> 10)) + c21) | 0;
      t1 = (h + w21 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1249150122) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w22 = ((((w20 >>> 17) | (w20 << 15)) ^ ((w20 >>> 19) | (w20 << 13)) ^ (w20 >>> 10)) + c22) | 0;
      t1 = (h + w22 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1555081692) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w23 = ((((w21 >>> 17) | (w21 << 15)) ^ ((w21 >>> 19) | (w21 << 13)) ^ (w21 >>> 10)) + c23) | 0;
      t1 = (h + w23 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1996064986) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w24 = ((((w22 >>> 17) | (w22 << 15)) ^ ((w22 >>> 19) | (w22 << 13)) ^ (w22 >>> 10)) + c24) | 0;
      t1 = (h + w24 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1740746414) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w25 = ((((w23 >>> 17) | (w23 << 15)) ^ ((w23 >>> 19) | (w23 << 13)) ^ (w23 >>> 10)) + c25) | 0;
      t1 = (h + w25 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1473132947) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w26 = (w19 + c26 + (((w24 >>> 17) | (w24 << 15)) ^ ((w24 >>> 19) | (w24 << 13)) ^ (w24 >>> 10))) | 0;
      t1 = (h + w26 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1341970488) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w27 = (w20 + w11 + (((w25 >>> 17) | (w25 << 15)) ^ ((w25 >>> 19) | (w25 << 13)) ^ (w25 >>> 10)) +
        (((w12 >>> 7) | (w12 << 25)) ^ ((w12 >>> 18) | (w12 << 14)) ^ (w12 >>> 3))) | 0;
      t1 = (h + w27 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1084653625) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w28 = (w21 + w12 + (((w26 >>> 17) | (w26 << 15)) ^ ((w26 >>> 19) | (w26 << 13)) ^ (w26 >>> 10)) +
        (((w13 >>> 7) | (w13 << 25)) ^ ((w13 >>> 18) | (w13 << 14)) ^ (w13 >>> 3))) | 0;
      t1 = (h + w28 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -958395405) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w29 = (((w22 + c29) | 0) + w13 + (((w27 >>> 17) | (w27 << 15)) ^ ((w27 >>> 19) | (w27 << 13)) ^ (w27 >>> 10))) | 0;
      t1 = (h + w29 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -710438585) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w30 = (w23 + c30 + (((w28 >>> 17) | (w28 << 15)) ^ ((w28 >>> 19) | (w28 << 13)) ^ (w28 >>> 10))) | 0;
      t1 = (h + w30 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 113926993) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w31 = (w24 + c31 + (((w29 >>> 17) | (w29 << 15)) ^ ((w29 >>> 19) | (w29 << 13)) ^ (w29 >>> 10))) | 0;
      t1 = (h + w31 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 338241895) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w32 = (w25 + c32 + (((w30 >>> 17) | (w30 << 15)) ^ ((w30 >>> 19) | (w30 << 13)) ^ (w30 >>> 10))) | 0;
      t1 = (h + w32 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 666307205) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w33 = (w26 + c33 + (((w31 >>> 17) | (w31 << 15)) ^ ((w31 >>> 19) | (w31 << 13)) ^ (w31 >>> 10))) | 0;
      t1 = (h + w33 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 773529912) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w34 = (w27 + w18 + (((w32 >>> 17) | (w32 << 15)) ^ ((w32 >>> 19) | (w32 << 13)) ^ (w32 >>> 10)) +
        (((w19 >>> 7) | (w19 << 25)) ^ ((w19 >>> 18) | (w19 << 14)) ^ (w19 >>> 3))) | 0;
      t1 = (h + w34 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1294757372) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w35 = (w28 + w19 + (((w33 >>> 17) | (w33 << 15)) ^ ((w33 >>> 19) | (w33 << 13)) ^ (w33 >>> 10)) +
        (((w20 >>> 7) | (w20 << 25)) ^ ((w20 >>> 18) | (w20 << 14)) ^ (w20 >>> 3))) | 0;
      t1 = (h + w35 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1396182291) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w36 = (w29 + w20 + (((w34 >>> 17) | (w34 << 15)) ^ ((w34 >>> 19) | (w34 << 13)) ^ (w34 >>> 10)) +
        (((w21 >>> 7) | (w21 << 25)) ^ ((w21 >>> 18) | (w21 << 14)) ^ (w21 >>> 3))) | 0;
      t1 = (h + w36 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1695183700) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w37 = (w30 + w21 + (((w35 >>> 17) | (w35 << 15)) ^ ((w35 >>> 19) | (w35 << 13)) ^ (w35 >>> 10)) +
        (((w22 >>> 7) | (w22 << 25)) ^ ((w22 >>> 18) | (w22 << 14)) ^ (w22 >>> 3))) | 0;
      t1 = (h + w37 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1986661051) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w38 = (w31 + w22 + (((w36 >>> 17) | (w36 << 15)) ^ ((w36 >>> 19) | (w36 << 13)) ^ (w36 >>> 10)) +
        (((w23 >>> 7) | (w23 << 25)) ^ ((w23 >>> 18) | (w23 << 14)) ^ (w23 >>> 3))) | 0;
      t1 = (h + w38 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -2117940946) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w39 = (w32 + w23 + (((w37 >>> 17) | (w37 << 15)) ^ ((w37 >>> 19) | (w37 << 13)) ^ (w37 >>> 10)) +
        (((w24 >>> 7) | (w24 << 25)) ^ ((w24 >>> 18) | (w24 << 14)) ^ (w24 >>> 3))) | 0;
      t1 = (h + w39 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1838011259) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w40 = (w33 + w24 + (((w38 >>> 17) | (w38 << 15)) ^ ((w38 >>> 19) | (w38 << 13)) ^ (w38 >>> 10)) +
        (((w25 >>> 7) | (w25 << 25)) ^ ((w25 >>> 18) | (w25 << 14)) ^ (w25 >>> 3))) | 0;
      t1 = (h + w40 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1564481375) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w41 = (w34 + w25 + (((w39 >>> 17) | (w39 << 15)) ^ ((w39 >>> 19) | (w39 << 13)) ^ (w39 >>> 10)) +
        (((w26 >>> 7) | (w26 << 25)) ^ ((w26 >>> 18) | (w26 << 14)) ^ (w26 >>> 3))) | 0;
      t1 = (h + w41 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1474664885) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w42 = (w35 + w26 + (((w40 >>> 17) | (w40 << 15)) ^ ((w40 >>> 19) | (w40 << 13)) ^ (w40 >>> 10)) +
        (((w27 >>> 7) | (w27 << 25)) ^ ((w27 >>> 18) | (w27 << 14)) ^ (w27 >>> 3))) | 0;
      t1 = (h + w42 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -1035236496) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w43 = (w36 + w27 + (((w41 >>> 17) | (w41 << 15)) ^ ((w41 >>> 19) | (w41 << 13)) ^ (w41 >>> 10)) +
        (((w28 >>> 7) | (w28 << 25)) ^ ((w28 >>> 18) | (w28 << 14)) ^ (w28 >>> 3))) | 0;
      t1 = (h + w43 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -949202525) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w44 = (w37 + w28 + (((w42 >>> 17) | (w42 << 15)) ^ ((w42 >>> 19) | (w42 << 13)) ^ (w42 >>> 10)) +
        (((w29 >>> 7) | (w29 << 25)) ^ ((w29 >>> 18) | (w29 << 14)) ^ (w29 >>> 3))) | 0;
      t1 = (h + w44 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -778901479) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w45 = (w38 + w29 + (((w43 >>> 17) | (w43 << 15)) ^ ((w43 >>> 19) | (w43 << 13)) ^ (w43 >>> 10)) +
        (((w30 >>> 7) | (w30 << 25)) ^ ((w30 >>> 18) | (w30 << 14)) ^ (w30 >>> 3))) | 0;
      t1 = (h + w45 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -694614492) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w46 = (w39 + w30 + (((w44 >>> 17) | (w44 << 15)) ^ ((w44 >>> 19) | (w44 << 13)) ^ (w44 >>> 10)) +
        (((w31 >>> 7) | (w31 << 25)) ^ ((w31 >>> 18) | (w31 << 14)) ^ (w31 >>> 3))) | 0;
      t1 = (h + w46 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + -200395387) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w47 = (w40 + w31 + (((w45 >>> 17) | (w45 << 15)) ^ ((w45 >>> 19) | (w45 << 13)) ^ (w45 >>> 10)) +
        (((w32 >>> 7) | (w32 << 25)) ^ ((w32 >>> 18) | (w32 << 14)) ^ (w32 >>> 3))) | 0;
      t1 = (h + w47 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 275423344) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w48 = (w41 + w32 + (((w46 >>> 17) | (w46 << 15)) ^ ((w46 >>> 19) | (w46 << 13)) ^ (w46 >>> 10)) +
        (((w33 >>> 7) | (w33 << 25)) ^ ((w33 >>> 18) | (w33 << 14)) ^ (w33 >>> 3))) | 0;
      t1 = (h + w48 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 430227734) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w49 = (w42 + w33 + (((w47 >>> 17) | (w47 << 15)) ^ ((w47 >>> 19) | (w47 << 13)) ^ (w47 >>> 10)) +
        (((w34 >>> 7) | (w34 << 25)) ^ ((w34 >>> 18) | (w34 << 14)) ^ (w34 >>> 3))) | 0;
      t1 = (h + w49 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 506948616) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w50 = (w43 + w34 + (((w48 >>> 17) | (w48 << 15)) ^ ((w48 >>> 19) | (w48 << 13)) ^ (w48 >>> 10)) +
        (((w35 >>> 7) | (w35 << 25)) ^ ((w35 >>> 18) | (w35 << 14)) ^ (w35 >>> 3))) | 0;
      t1 = (h + w50 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 659060556) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w51 = (w44 + w35 + (((w49 >>> 17) | (w49 << 15)) ^ ((w49 >>> 19) | (w49 << 13)) ^ (w49 >>> 10)) +
        (((w36 >>> 7) | (w36 << 25)) ^ ((w36 >>> 18) | (w36 << 14)) ^ (w36 >>> 3))) | 0;
      t1 = (h + w51 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 883997877) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w52 = (w45 + w36 + (((w50 >>> 17) | (w50 << 15)) ^ ((w50 >>> 19) | (w50 << 13)) ^ (w50 >>> 10)) +
        (((w37 >>> 7) | (w37 << 25)) ^ ((w37 >>> 18) | (w37 << 14)) ^ (w37 >>> 3))) | 0;
      t1 = (h + w52 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 958139571) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w53 = (w46 + w37 + (((w51 >>> 17) | (w51 << 15)) ^ ((w51 >>> 19) | (w51 << 13)) ^ (w51 >>> 10)) +
        (((w38 >>> 7) | (w38 << 25)) ^ ((w38 >>> 18) | (w38 << 14)) ^ (w38 >>> 3))) | 0;
      t1 = (h + w53 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1322822218) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w54 = (w47 + w38 + (((w52 >>> 17) | (w52 << 15)) ^ ((w52 >>> 19) | (w52 << 13)) ^ (w52 >>> 10)) +
        (((w39 >>> 7) | (w39 << 25)) ^ ((w39 >>> 18) | (w39 << 14)) ^ (w39 >>> 3))) | 0;
      t1 = (h + w54 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1537002063) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w55 = (w48 + w39 + (((w53 >>> 17) | (w53 << 15)) ^ ((w53 >>> 19) | (w53 << 13)) ^ (w53 >>> 10)) +
        (((w40 >>> 7) | (w40 << 25)) ^ ((w40 >>> 18) | (w40 << 14)) ^ (w40 >>> 3))) | 0;
      t1 = (h + w55 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1747873779) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      const w56 = (w49 + w40 + (((w54 >>> 17) | (w54 << 15)) ^ ((w54 >>> 19) | (w54 << 13)) ^ (w54 >>> 10)) +
        (((w41 >>> 7) | (w41 << 25)) ^ ((w41 >>> 18) | (w41 << 14)) ^ (w41 >>> 3))) | 0;
      t1 = (h + w56 + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + 1955562222) | 0;
      ab = a ^ b;
      t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + (b ^ (ab & bc))) | 0;
      bc = ab; h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      // END GENERATED ROUNDS K12
      if (a === want && this.full(n)) {
        this.answer = n;
        return n + 1;
      }
      if (n < to && this.advance()) return n + 1;
    }
    return n;
  }

  // step searches whole chunks for about sliceMs and reports the outcome:
  // a number, -1 (keep going) or -2 (share exhausted).
  step(sliceMs) {
    const started = performance.now();
    do {
      const from = this.nextChunk * this.chunk;
      if (from > this.maxNumber) return -2;
      const to = Math.min(from + this.chunk - 1, this.maxNumber);
      this.nextChunk += this.stride;
      const n = this.search(from, to);
      this.checked += to - from + 1;
      if (n >= 0) return n;
    } while (performance.now() - started < sliceMs);
    return -1;
  }
}

/** SLICE_MS is how long a worker searches between looks at its messages. */
export const SLICE_MS = 4;
// The worker side: only when running as a worker.
if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) serve();

function serve() {
  let job = null;
  let scheduled = false; // a tick is on its way: at most one at a time
  const tick = new MessageChannel();

  function schedule() {
    if (!scheduled) {
      scheduled = true;
      tick.port2.postMessage(0);
    }
  }

  // work runs one slice of the current job and reports or schedules the next.
  function work() {
    const current = job;
    if (current === null) return;
    let outcome;
    try {
      outcome = current.step(SLICE_MS);
    } catch (err) {
      job = null;
      self.postMessage({ type: "error", id: current.id, message: String(err && err.message) });
      return;
    }
    if (outcome >= 0) {
      job = null;
      self.postMessage({ type: "found", id: current.id, number: outcome });
    } else if (outcome === -2) {
      job = null;
      self.postMessage({ type: "done", id: current.id });
    } else {
      if (current.progress) self.postMessage({ type: "progress", id: current.id, checked: current.checked });
      schedule();
    }
  }

  tick.port1.onmessage = () => {
    scheduled = false;
    work();
  };

  self.onmessage = (event) => {
    const m = event.data;
    if (m.type === "job") {
      try {
        job = new Job(m);
      } catch (err) {
        job = null;
        self.postMessage({ type: "error", id: m.id, message: String(err && err.message) });
        return;
      }
      work(); // the first slice at once; later ones after a turn of the event loop
    } else if (m.type === "abort") {
      if (job !== null && job.id === m.id) job = null;
    }
  };
}
