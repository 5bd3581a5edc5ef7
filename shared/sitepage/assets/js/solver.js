// ALTCHA v1 proof-of-work solver in Web Workers.
//
//   import { solve, encodePayload } from "./solver.js";
//   const { number, took } = await solve(challenge, { signal });
//   const altcha = encodePayload(challenge, number);
//
// challenge is the ALTCHA v1 challenge JSON {algorithm, challenge, maxnumber
// (or maxNumber), salt, signature}; only SHA-256 is supported. The search runs
// in a pool of classic workers (solver-worker.js beside this file), one per
// navigator.hardwareConcurrency (at most 16), kept between solves so the next
// solve starts at once. Numbers are searched in interleaved chunks so that
// every worker shares the low numbers; the first worker to find the number
// stops the others.

const DEFAULT_CHUNK = 4096;
const MAX_WORKERS = 16;

/** SolveError is the rejection of solve for a challenge it cannot solve. */
export class SolveError extends Error {
  /** @param {string} message @param {string} code NO_SOLUTION | BAD_CHALLENGE | WORKER_FAILED */
  constructor(message, code) {
    super(message);
    this.name = "SolveError";
    this.code = code;
  }
}

let pool = [];
let poolUrl = "";
let queue = Promise.resolve();
let nextJob = 1;

function defaultWorkers() {
  const n = (typeof navigator !== "undefined" && navigator.hardwareConcurrency) || 2;
  return Math.max(1, Math.min(MAX_WORKERS, n));
}

function workerURL(options) {
  return String(options.workerUrl || new URL("./solver-worker.js", import.meta.url));
}

function ensurePool(size, url) {
  if (poolUrl !== url) {
    terminate();
    poolUrl = url;
  }
  while (pool.length < size) pool.push(new Worker(url, { name: "altcha-solver" }));
  return pool.slice(0, size);
}

/** terminate stops every worker of the pool; the next solve starts new ones. */
export function terminate() {
  for (const w of pool) w.terminate();
  pool = [];
}

/**
 * prewarm starts the workers ahead of the first solve.
 * @param {{workers?: number, workerUrl?: string|URL}} [options]
 */
export function prewarm(options = {}) {
  ensurePool(options.workers || defaultWorkers(), workerURL(options));
}

function abortError(signal) {
  return signal.reason !== undefined ? signal.reason : new DOMException("The solve was aborted.", "AbortError");
}

/**
 * solve finds the number whose SHA-256(salt + number) is the challenge.
 *
 * Resolves to {number, took} (took in milliseconds, from the call to the
 * answer). Rejects with options.signal's reason when aborted, and with a
 * SolveError when the challenge is malformed, has no solution in
 * 0..maxnumber, or a worker fails (for instance when the worker script cannot
 * load). Solves run one at a time; a later call waits for the earlier one.
 *
 * @param {{algorithm: string, challenge: string, maxnumber?: number, maxNumber?: number, salt: string, signature?: string}} challenge
 * @param {{signal?: AbortSignal, workers?: number, onProgress?: (fraction: number) => void, workerUrl?: string|URL}} [options]
 * @returns {Promise<{number: number, took: number}>}
 */
export function solve(challenge, options = {}) {
  const started = performance.now();
  const run = queue.then(() => solveNow(challenge, options, started));
  queue = run.catch(() => {});
  const { signal } = options;
  if (!signal) return run;
  // Aborted while waiting for an earlier solve: reject at once.
  const aborted = new Promise((_, reject) => {
    if (signal.aborted) reject(abortError(signal));
    else signal.addEventListener("abort", () => reject(abortError(signal)), { once: true });
  });
  return Promise.race([run, aborted]);
}

function solveNow(challenge, options, started) {
  const { signal, onProgress } = options;
  if (signal && signal.aborted) return Promise.reject(abortError(signal));
  if (!challenge || typeof challenge !== "object") {
    return Promise.reject(new SolveError("no challenge", "BAD_CHALLENGE"));
  }
  const algorithm = String(challenge.algorithm || "SHA-256").toUpperCase();
  const maxNumber = Number(challenge.maxnumber ?? challenge.maxNumber ?? 1e6);
  if (algorithm !== "SHA-256") {
    return Promise.reject(new SolveError(`unsupported algorithm ${algorithm}`, "BAD_CHALLENGE"));
  }
  if (!Number.isSafeInteger(maxNumber) || maxNumber < 0 || typeof challenge.salt !== "string" ||
      !/^[0-9a-fA-F]{64}$/.test(String(challenge.challenge))) {
    return Promise.reject(new SolveError("malformed challenge", "BAD_CHALLENGE"));
  }
  const workers = ensurePool(Math.max(1, Math.min(MAX_WORKERS, options.workers || defaultWorkers())), workerURL(options));
  const id = nextJob++;
  const total = maxNumber + 1;
  const checked = new Array(workers.length).fill(0);

  return new Promise((resolve, reject) => {
    let pending = workers.length;
    let settled = false;
    const finish = (fn, value) => {
      if (settled) return;
      settled = true;
      for (const w of workers) {
        w.postMessage({ type: "abort", id });
        w.removeEventListener("message", onMessage);
        w.removeEventListener("error", onError);
      }
      if (signal) signal.removeEventListener("abort", onAbort);
      fn(value);
    };
    const onMessage = (event) => {
      const m = event.data;
      if (!m || m.id !== id) return;
      const i = workers.indexOf(event.target);
      switch (m.type) {
        case "found":
          finish(resolve, { number: m.number, took: performance.now() - started });
          break;
        case "progress":
          if (i >= 0) checked[i] = m.checked;
          if (onProgress) onProgress(Math.min(1, checked.reduce((s, x) => s + x, 0) / total));
          break;
        case "done":
          if (--pending === 0) finish(reject, new SolveError("no number in 0..maxnumber solves the challenge", "NO_SOLUTION"));
          break;
        case "error":
          finish(reject, new SolveError(m.message || "the solver failed", "BAD_CHALLENGE"));
          break;
      }
    };
    const onError = (event) => {
      event.preventDefault?.();
      terminate();
      finish(reject, new SolveError("the solver worker failed to run", "WORKER_FAILED"));
    };
    const onAbort = () => finish(reject, abortError(signal));
    if (signal) signal.addEventListener("abort", onAbort, { once: true });
    workers.forEach((w, index) => {
      w.addEventListener("message", onMessage);
      w.addEventListener("error", onError);
      w.postMessage({
        type: "job",
        id,
        salt: challenge.salt,
        challenge: String(challenge.challenge).toLowerCase(),
        maxNumber,
        index,
        stride: workers.length,
        chunk: options.chunk || DEFAULT_CHUNK,
        progress: typeof onProgress === "function",
      });
    });
  });
}

/**
 * encodePayload returns the ALTCHA v1 solution the service expects: base64
 * of the JSON {algorithm, challenge, number, salt, signature}.
 */
export function encodePayload(challenge, number) {
  const json = JSON.stringify({
    algorithm: challenge.algorithm || "SHA-256",
    challenge: challenge.challenge,
    number,
    salt: challenge.salt,
    signature: challenge.signature,
  });
  const bytes = new TextEncoder().encode(json);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}
