// ALTCHA v1 proof-of-work solver in a pool of module Web Workers, or on the
// calling thread where none can start: see ../../README.md ("The solver").

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
let workersFailed = false; // once no worker could start, solve in thread

function defaultWorkers() {
  const n = (typeof navigator !== "undefined" && navigator.hardwareConcurrency) || 2;
  return Math.max(1, Math.min(MAX_WORKERS, n));
}

function workerURL(options) {
  return String(options.workerUrl || new URL("./solver-worker.js", import.meta.url));
}

let failCurrent = null; // rejects the solve in flight with WORKER_FAILED
let watching = false;

// watchForBlock notices a CSP that forbids the workers: Chromium then fires
// no error event on the Worker, only securitypolicyviolation on the page.
function watchForBlock() {
  if (watching || typeof document === "undefined") return;
  watching = true;
  document.addEventListener("securitypolicyviolation", (event) => {
    if (!poolUrl || String(event.blockedURI) !== new URL(poolUrl, location.href).href) return;
    workersFailed = true;
    terminate();
    if (failCurrent) failCurrent();
  });
}

function ensurePool(size, url) {
  watchForBlock();
  if (poolUrl !== url) {
    terminate();
    poolUrl = url;
  }
  while (pool.length < size) pool.push(new Worker(url, { type: "module", name: "altcha-solver" }));
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
  if (workersFailed && !options.workers) return;
  try {
    ensurePool(options.workers || defaultWorkers(), workerURL(options));
  } catch {
    workersFailed = true; // no Worker here: solve will run on this thread
    terminate();
  }
}

function abortError(signal) {
  return signal.reason !== undefined ? signal.reason : new DOMException("The solve was aborted.", "AbortError");
}

/**
 * solve finds the number whose SHA-256(salt + number) is the challenge.
 *
 * Resolves to {number, took, workers} (took in milliseconds, from the call
 * to the answer; workers the Web Workers that searched, 0 on this thread). Rejects with options.signal's reason when aborted, and with a
 * SolveError when the challenge is malformed (BAD_CHALLENGE) or has no
 * solution in 0..maxnumber (NO_SOLUTION). When the workers cannot start it
 * solves on the calling thread instead; options.workers: 0 asks for that.
 * Solves run one at a time; a later call waits for the earlier one.
 *
 * @param {{algorithm: string, challenge: string, maxnumber?: number, maxNumber?: number, salt: string, signature?: string}} challenge
 * @param {{signal?: AbortSignal, workers?: number, onProgress?: (fraction: number) => void, workerUrl?: string|URL}} [options]
 * @returns {Promise<{number: number, took: number, workers: number}>}
 */
export function solve(challenge, options = {}) {
  const started = performance.now();
  const run = queue.then(() =>
    options.workers === 0 || (workersFailed && !options.workers)
      ? solveInThread(challenge, options, started)
      : solveNow(challenge, options, started).catch((err) => {
          if (!(err instanceof SolveError) || err.code !== "WORKER_FAILED") throw err;
          workersFailed = true;
          return solveInThread(challenge, options, started);
        }),
  );
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

// validMaxNumber returns the challenge's max number, or throws a SolveError.
function validMaxNumber(challenge) {
  if (!challenge || typeof challenge !== "object") throw new SolveError("no challenge", "BAD_CHALLENGE");
  const algorithm = String(challenge.algorithm || "SHA-256").toUpperCase();
  const maxNumber = Number(challenge.maxnumber ?? challenge.maxNumber ?? 1e6);
  if (algorithm !== "SHA-256") throw new SolveError(`unsupported algorithm ${algorithm}`, "BAD_CHALLENGE");
  if (!Number.isSafeInteger(maxNumber) || maxNumber < 0 || typeof challenge.salt !== "string" ||
      !/^[0-9a-fA-F]{64}$/.test(String(challenge.challenge))) {
    throw new SolveError("malformed challenge", "BAD_CHALLENGE");
  }
  return maxNumber;
}

// solveInThread runs the search on this thread, yielding between slices.
async function solveInThread(challenge, options, started) {
  const { signal, onProgress } = options;
  if (signal && signal.aborted) throw abortError(signal);
  const maxNumber = validMaxNumber(challenge);
  const { Job } = await import(workerURL(options));
  let job;
  try {
    job = new Job({
      id: 0,
      salt: challenge.salt,
      challenge: String(challenge.challenge),
      maxNumber,
      index: 0,
      stride: 1,
      chunk: options.chunk || DEFAULT_CHUNK,
    });
  } catch (err) {
    throw new SolveError(String(err && err.message), "BAD_CHALLENGE");
  }
  for (;;) {
    const outcome = job.step(IN_THREAD_SLICE_MS);
    if (outcome >= 0) return { number: outcome, took: performance.now() - started, workers: 0 };
    if (outcome === -2) throw new SolveError("no number in 0..maxnumber solves the challenge", "NO_SOLUTION");
    if (onProgress) onProgress(Math.min(1, job.checked / (maxNumber + 1)));
    await yieldToEventLoop();
    if (signal && signal.aborted) throw abortError(signal);
  }
}

const IN_THREAD_SLICE_MS = 8;
let yieldChannel = null;
let yieldWaiters = [];

// yieldToEventLoop resolves after other tasks (input, rendering) had a turn,
// without the clamping of nested timers.
function yieldToEventLoop() {
  if (!yieldChannel) {
    yieldChannel = new MessageChannel();
    yieldChannel.port1.onmessage = () => {
      const waiters = yieldWaiters;
      yieldWaiters = [];
      for (const w of waiters) w();
    };
  }
  return new Promise((resolve) => {
    yieldWaiters.push(resolve);
    yieldChannel.port2.postMessage(0);
  });
}

function solveNow(challenge, options, started) {
  const { signal, onProgress } = options;
  if (signal && signal.aborted) return Promise.reject(abortError(signal));
  let maxNumber;
  try {
    maxNumber = validMaxNumber(challenge);
  } catch (err) {
    return Promise.reject(err);
  }
  let workers;
  try {
    workers = ensurePool(Math.max(1, Math.min(MAX_WORKERS, options.workers || defaultWorkers())), workerURL(options));
  } catch {
    terminate();
    return Promise.reject(new SolveError("no worker could start", "WORKER_FAILED"));
  }
  const id = nextJob++;
  const total = maxNumber + 1;
  const counts = new Array(workers.length).fill(0);

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
      if (failCurrent === onBlocked) failCurrent = null;
      fn(value);
    };
    const onBlocked = () => finish(reject, new SolveError("the solver workers are blocked", "WORKER_FAILED"));
    failCurrent = onBlocked;
    const onMessage = (event) => {
      const m = event.data;
      if (!m || m.id !== id) return;
      const i = workers.indexOf(event.target);
      switch (m.type) {
        case "found":
          finish(resolve, { number: m.number, took: performance.now() - started, workers: workers.length });
          break;
        case "progress":
          if (i >= 0) counts[i] = m.checked;
          if (onProgress) onProgress(Math.min(1, counts.reduce((s, x) => s + x, 0) / total));
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
