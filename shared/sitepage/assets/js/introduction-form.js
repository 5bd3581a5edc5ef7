// The site's introduction form: an ES module with no dependencies beyond
// solver.js beside it. It mounts on every [data-introductions-form]; what it
// does, its settings (data-api-*) and the flow are in ../../README.md.

import { solve, encodePayload, prewarm, terminate, SolveError } from "./solver.js";

const DEFAULT_TRANSCRIPT_LIMIT = 12000;

// BOOT are the few sentences the page shows before it has a definition
// (whose page sentences it uses for everything else), in each language the
// forms are shown in.
const BOOT = {
  en: {
    loading: "Loading the form…",
    failed: "The form could not be loaded",
    busy: "The service is busy right now. Please try again in a moment.",
    offline: "Please check your connection and try again.",
    retry: "Try again",
  },
  fa: {
    loading: "در حال بارگذاری فرم…",
    failed: "فرم بارگذاری نشد",
    busy: "سرویس در این لحظه بیش از اندازه شلوغ است. لطفاً چند لحظهٔ دیگر دوباره امتحان کنید.",
    offline: "لطفاً اتصال اینترنتتان را بررسی کنید و دوباره امتحان کنید.",
    retry: "دوباره امتحان کنید",
  },
};
const BOOT_DIR = { en: "ltr", fa: "rtl" };

// primaryLang is the primary subtag of a language tag: "fa" of "fa-IR".
function primaryLang(tag) {
  return String(tag || "").toLowerCase().split("-")[0];
}

const POW_CODES = new Set(["POW_REQUIRED", "POW_INVALID", "POW_EXPIRED", "POW_SPENT"]);
// MAX_HARDER bounds how often one Review follows POW_TOO_EASY to a harder
// challenge before it says the check did not go through.
const MAX_HARDER = 3;

// SERVICE_LANG is the language of the service's own details.
const SERVICE_LANG = "en";

// Codes whose detail from the service says more precisely than the page's
// own sentence what to change in the field.
const DETAILED_CODES = new Set([
  "NAME_INVALID", "COMPANY_INVALID", "ROLE_INVALID", "EMAIL_INVALID", "MESSAGE_INVALID", "MESSAGE_TOO_MANY_LINKS",
  "CONVERSATION_INVALID", "CONVERSATION_TOO_LONG", "CONVERSATION_TOO_MANY_LINKS", "CONSENT_REQUIRED", "FIELD_INVALID",
  "ATTACHMENT_TOO_LARGE", "ATTACHMENT_EMPTY", "ATTACHMENT_NOT_OFFERED",
]);

// dispositionName is a Content-Disposition naming the file in UTF-8.
function dispositionName(name) {
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename*=UTF-8''${encoded}`;
}

// el makes an element; attrs are attributes (false/null/undefined skipped,
// true as empty); children are nodes or strings (as text, never markup), in
// arrays nested to any depth.
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

// put replaces node's children, skipping null, undefined and false, and
// flattening arrays.
function put(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

function codePoints(s) {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// countLinks is the page's estimate of the service's link count: each
// http or https scheme with its slashes, and each www. after no letter,
// digit or ._/@-.
export function countLinks(s) {
  const text = String(s ?? "");
  const schemes = text.match(/https?:\/\//gi) || [];
  const www = text.match(/(?<![\p{L}\p{N}._\/@-])www\./giu) || [];
  return schemes.length + www.length;
}

// emailShape is the service's rule for an address: one @; a local part of
// 1 to 64 characters without whitespace, ()<>[]\,;:"?% or outer or doubled
// dots; a dotted domain of labels of letters, digits and inner hyphens, the
// last not all digits.
function emailShape(s) {
  const [local, domain, extra] = s.split("@");
  if (extra !== undefined || !local || !domain || local.length > 64 || /[\s()<>[\]\\,;:"?%]|^\.|\.$|\.\./.test(local)) return false;
  const labels = domain.split(".");
  return domain.length <= 253 && labels.length > 1 && !/^\d+$/.test(labels[labels.length - 1]) &&
    labels.every((l) => /^[\p{L}\p{N}]([\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u.test(l));
}

// Characters that do not show, or that change the direction of the text
// around them. The review shows each as a visible code instead.
const INVISIBLE_NAMES = {
  0x00ad: "soft hyphen",
  0x034f: "combining grapheme joiner",
  0x061c: "Arabic letter mark",
  0x115f: "Hangul filler",
  0x1160: "Hangul filler",
  0x17b4: "Khmer vowel inherent",
  0x17b5: "Khmer vowel inherent",
  0x180e: "Mongolian vowel separator",
  0x200b: "zero-width space",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2060: "word joiner",
  0x2061: "invisible function application",
  0x2062: "invisible times",
  0x2063: "invisible separator",
  0x2064: "invisible plus",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0x3164: "Hangul filler",
  0xfeff: "zero-width no-break space",
  0xffa0: "Hangul filler",
};

function invisibleName(cp) {
  if (INVISIBLE_NAMES[cp]) return INVISIBLE_NAMES[cp];
  if (cp < 0x20 && cp !== 0x0a) return "control character";
  if (cp >= 0x7f && cp <= 0x9f) return "control character";
  if (cp >= 0x206a && cp <= 0x206f) return "deprecated format character";
  if (cp >= 0xfff9 && cp <= 0xfffb) return "interlinear annotation character";
  if (cp >= 0xe0000 && cp <= 0xe007f) return "tag character";
  return "";
}

// revealInvisible splits text into runs (strings) and the characters that
// would not show or would turn the text around them ({codePoint, label, name}).
export function revealInvisible(text) {
  const out = [];
  let run = "";
  for (const ch of String(text ?? "")) {
    const cp = ch.codePointAt(0);
    const name = invisibleName(cp);
    if (!name) {
      run += ch;
      continue;
    }
    if (run) out.push(run);
    run = "";
    out.push({ codePoint: cp, label: `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`, name });
  }
  if (run) out.push(run);
  return out;
}

// cleanText drops control characters the service refuses (all but newline),
// turning tabs into spaces and CRLF into LF.
function cleanText(s) {
  return String(s ?? "")
    .replace(/\r\n?/g, "\n")
    .replace(/\t/g, " ")
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, "");
}

function speaker(turn, names) {
  const role = String(turn.role ?? turn.speaker ?? "").toLowerCase();
  if (role === "visitor" || role === "user" || role === "you") return names.you;
  if (role === "guide" || role === "assistant" || role === "bot") return names.guide;
  return role ? role[0].toUpperCase() + role.slice(1) : "";
}

// formatTranscript makes turns the "You: …" / "Guide: …" text sent, the
// oldest dropped past limit code points (a newest turn alone keeps its end):
// {text, kept, dropped}.
export function formatTranscript(turns, limit = DEFAULT_TRANSCRIPT_LIMIT, names = { you: "You", guide: "Guide" }) {
  const parts = (Array.isArray(turns) ? turns : [])
    .map((t) => {
      const text = cleanText(typeof t === "string" ? t : t && t.text).trim();
      const who = typeof t === "string" ? "" : speaker(t || {}, names);
      return text ? (who ? `${who}: ${text}` : text) : "";
    })
    .filter(Boolean);
  const sep = 2; // "\n\n"
  let total = 0;
  let first = parts.length;
  while (first > 0) {
    const len = codePoints(parts[first - 1]) + (first < parts.length ? sep : 0);
    if (total + len > limit) break;
    total += len;
    first--;
  }
  let kept = parts.slice(first);
  if (kept.length === 0 && parts.length > 0) {
    const newest = [...parts[parts.length - 1]];
    kept = ["[…] " + newest.slice(newest.length - (limit - 4)).join("")];
    first = parts.length - 1;
  }
  return { text: kept.join("\n\n"), kept: kept.length, dropped: first };
}

function retryAfterSeconds(res) {
  const v = res && res.headers.get("Retry-After");
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.round((at - Date.now()) / 1000));
}

function idempotencyKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function saltExpiry(salt) {
  const q = String(salt || "").split("?")[1];
  const v = q ? new URLSearchParams(q).get("expires") : null;
  return v && /^\d+$/.test(v) ? Number(v) * 1000 : null;
}

// ProofOfWork keeps one solved (or solving) challenge ready ahead of need.
// Its state is mirrored in the form root's data-pow attribute (fetching,
// solving, ready, failed) for the site's styling and for tests.
class ProofOfWork {
  constructor(url, onState) {
    this.url = url;
    this.onState = onState || (() => {});
    this.current = null; // {promise, progress, expiresAt}
    this.listener = null;
    this.maxNumber = null; // the harder challenge a POW_TOO_EASY asked for, if any
  }

  // challengeURL is the challenge endpoint, asking for the harder
  // challenge when the service said this source owes one.
  challengeURL() {
    const url = this.url();
    if (!this.maxNumber) return url;
    return `${url}${url.includes("?") ? "&" : "?"}maxnumber=${encodeURIComponent(String(this.maxNumber))}`;
  }

  // start makes sure a challenge is being fetched or is solved and fresh.
  start() {
    const c = this.current;
    if (c && !c.failed && !(c.expiresAt && c.expiresAt - Date.now() < 60_000)) return c;
    if (c) c.ctl.abort();
    const entry = { progress: 0, expiresAt: null, failed: false, ready: false, ctl: new AbortController() };
    const state = (s) => {
      if (this.current === entry) this.onState(s);
    };
    this.current = entry;
    entry.promise = (async () => {
      state("fetching");
      const res = await fetch(this.challengeURL(), { cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" });
      if (!res.ok) throw new Error(`challenge: HTTP ${res.status}`);
      const challenge = await res.json();
      entry.expiresAt = saltExpiry(challenge.salt);
      state("solving");
      const { number, took, workers } = await solve(challenge, {
        signal: entry.ctl.signal,
        onProgress: (p) => {
          entry.progress = p;
          if (this.listener && this.current === entry) this.listener(p);
        },
      });
      entry.solved = { solveMs: solveBucket(took), workers };
      entry.ready = true;
      state("ready");
      return encodePayload(challenge, number);
    })();
    entry.promise.catch(() => {
      entry.failed = true;
      state("failed");
    });
    return entry;
  }

  // payload resolves to a solved challenge's ALTCHA payload; onProgress
  // hears the progress until the caller calls quiet().
  payload(onProgress) {
    const entry = this.start();
    this.listener = onProgress || null;
    if (onProgress && !entry.ready) onProgress(entry.progress);
    return entry.promise;
  }

  // quiet stops reporting progress: nobody is waiting for it any more.
  quiet() {
    this.listener = null;
  }

  isReady() {
    return !!(this.current && this.current.ready);
  }

  // solved is the current solution's solve time (bucketed) and worker
  // count, {solveMs: 0, workers: 0} before one is solved.
  solved() {
    return (this.current && this.current.solved) || { solveMs: 0, workers: 0 };
  }

  // stop abandons the current challenge and starts none; the next one is
  // of the base cost again.
  stop() {
    if (this.current) this.current.ctl.abort();
    this.current = null;
    this.listener = null;
    this.maxNumber = null;
  }

  // harder abandons the current challenge (too easy for what this source
  // owes) and starts solving one of maxNumber.
  harder(maxNumber) {
    this.maxNumber = maxNumber;
    this.discard();
  }

  // discard forgets the current solution (spent, refused) and starts another.
  discard() {
    if (this.current) this.current.ctl.abort();
    this.current = null;
    this.start();
  }
}

// SOLVE_BUCKETS: a solve time is sent rounded down to one (intake.SolveBuckets).
const SOLVE_BUCKETS = [0, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 15000, 20000, 30000, 60000];

function solveBucket(ms) {
  let b = 0;
  for (const v of SOLVE_BUCKETS) if (ms >= v) b = v;
  return b;
}

// automated is what the browser says of itself: automated or headless.
function automated() {
  if (typeof navigator === "undefined") return false;
  return navigator.webdriver === true || /\bHeadless/.test(navigator.userAgent || "");
}

// Storage keys in sessionStorage (this tab only), per form id.
const storeKey = (formId) => `introductions:${formId}:typing`;
const receiptKey = (formId) => `introductions:${formId}:receipt`;

function readStored(key) {
  try {
    const raw = sessionStorage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null; // storage disabled or unreadable: nothing kept
  }
}

function writeStored(key, value) {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage disabled or full: the page works without it
  }
}

// keptValue is a field's value in a draft as kept: the fields every draft
// carries are members of the introduction, the ones a form version adds are
// under its "added".
function keptValue(kept, name) {
  const v = Object.prototype.hasOwnProperty.call(kept, name) && name !== "added" ? kept[name] : (kept.added || {})[name];
  return typeof v === "string" ? v : "";
}

/** IntroductionForm is one mounted form. */
export class IntroductionForm {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.formId = root.dataset.formId || "introduction";
    const base = (root.dataset.apiBase || "").replace(/\/+$/, "");
    const pick = (name) => (root.dataset[name] || base).replace(/\/+$/, "");
    this.urls = {
      form: () => `${pick("apiForms")}/api/forms/${encodeURIComponent(this.formId)}`,
      challenge: () => pick("apiChallenge") + ((this.def && this.def.proofOfWork && this.def.proofOfWork.challengePath) || "/api/introductions/challenge"),
      drafts: () => `${pick("apiDrafts")}/api/introductions`,
      revision: (id) => `${pick("apiConfirmation")}/api/introductions/${encodeURIComponent(id)}/revision`,
      confirmation: (id) => `${pick("apiConfirmation")}/api/introductions/${encodeURIComponent(id)}/confirmation`,
      withdrawal: (id) => `${pick("apiConfirmation")}/api/introductions/${encodeURIComponent(id)}/withdrawal`,
      attachment: (id) => `${pick("apiDrafts")}/api/introductions/${encodeURIComponent(id)}/attachment`,
    };
    this.def = null;
    this.pow = new ProofOfWork(this.urls.challenge, (s) => {
      this.root.dataset.pow = s;
    });
    this.transcript = null; // {text, kept, dropped}
    this.draft = null; // the kept, unconfirmed draft: {id, token, expiresAt, introduction, …}
    this.lastAttempt = null; // {json, key} of a draft post that failed in transit
    this.renderedAt = null; // performance.now() of the form's first render on this page
    this.view = "";
    this.fields = new Map(); // name -> {input, error, count, note, def}
    this.reached = false; // the service has answered this page at least once
    this.ticked = new Set(); // ids of the optional consent purposes the visitor ticked
    this.turns = null; // the guide's turns as handed over, to format again in another language
    // The language the visitor picked with the switch (kept in this tab),
    // else none: the browser's Accept-Language chooses.
    const typed = readStored(storeKey(this.formId));
    this.chosenLang = (typed && typeof typed.lang === "string" && typed.lang) || null;
    // Before a definition: the browser's language if BOOT has it, else English.
    const browserLang = primaryLang((typeof navigator !== "undefined" && navigator.language) || "en");
    this.lang = this.chosenLang || (BOOT[browserLang] ? browserLang : "en");
  }

  // ---- the visitor's language ----

  // t is the page's sentence key in the definition's language, each {name}
  // filled from vars (numbers through Intl, in the language's digits); with
  // a number vars.n, the plural form Intl.PluralRules picks for it.
  t(key, vars = {}) {
    const page = (this.def && this.def.page) || {};
    let s;
    if (typeof vars.n === "number") {
      const form = new Intl.PluralRules(this.lang).select(vars.n);
      s = page[`${key}.${form}`] ?? page[`${key}.other`];
    }
    return this.fill(s ?? page[key] ?? key, vars);
  }

  fill(s, vars) {
    return String(s).replace(/\{([a-zA-Z]+)\}/g, (m, name) => {
      const v = vars[name];
      if (v === undefined || v === null) return m;
      return typeof v === "number" ? this.num(v) : String(v);
    });
  }

  // boot is one of the sentences shown before a definition is loaded.
  boot(key) {
    return (BOOT[this.lang] || BOOT.en)[key];
  }

  num(n) {
    return new Intl.NumberFormat(this.lang).format(n);
  }

  // tNodes is t with nodes among vars (a name in a <bdi>, say): the
  // sentence as a list of strings and those nodes, in the sentence's order.
  tNodes(key, vars = {}) {
    const nodes = Object.fromEntries(Object.entries(vars).filter(([, v]) => v instanceof Node));
    const s = this.t(key, Object.fromEntries(Object.entries(vars).filter(([, v]) => !(v instanceof Node))));
    return s.split(/(\{[a-zA-Z]+\})/).filter((part) => part !== "").map((part) => {
      const m = /^\{([a-zA-Z]+)\}$/.exec(part);
      return m && nodes[m[1]] ? nodes[m[1]] : part;
    });
  }

  // sizeText states a number of bytes as the service does ("5 MiB"), in the
  // language's words and digits.
  sizeText(n) {
    const mib = 1 << 20;
    if (n >= mib) return this.t("size.mib", { n: Number.isInteger(n / mib) ? n / mib : Math.round((n / mib) * 10) / 10 });
    if (n >= 1 << 10) return this.t("size.kib", { n: Math.floor(n / (1 << 10)) });
    return this.t("size.bytes", { n });
  }

  // typeName names an attachment's type as the definition's language does;
  // in a right-to-left language, isolated (U+2068 … U+2069), so that a
  // Latin name ("PDF") keeps its place in the sentence and in a list.
  typeName(type) {
    const names = (this.def && this.def.attachment && this.def.attachment.typeNames) || {};
    const name = names[type] || type;
    return this.def && this.def.dir === "rtl" ? `\u2068${name}\u2069` : name;
  }

  // typesText names the allowed types: "PDF, PNG, JPEG or plain text".
  typesText(types) {
    const names = (types || []).map((t) => this.typeName(t));
    if (names.length < 2) return names.join("");
    return this.t("list.or", { list: names.slice(0, -1).join(this.t("list.separator")), last: names[names.length - 1] });
  }

  // clock is a moment with its date, time and zone, in the language's words.
  clock(d) {
    return d.toLocaleString(this.lang, { dateStyle: "medium", timeStyle: "short" }) + " " +
      (new Intl.DateTimeFormat(this.lang, { timeZoneName: "short" }).formatToParts(d).find((x) => x.type === "timeZoneName") || {}).value;
  }

  // dateTime is a moment as the visitor's language writes it (its calendar
  // and digits), with the UTC time beside it.
  dateTime(iso) {
    const d = iso ? new Date(iso) : null;
    if (!d || Number.isNaN(d.getTime())) return "";
    return `${d.toLocaleString(this.lang, { dateStyle: "long", timeStyle: "short" })} (${d.toISOString().replace(/\.\d+Z$/, "Z")})`;
  }

  whenText(seconds) {
    if (seconds === null || seconds === undefined) return this.t("when.later");
    if (seconds < 90) return this.t("when.seconds", { n: Math.max(1, seconds) });
    const minutes = Math.ceil(seconds / 60);
    const at = this.clock(new Date(Date.now() + seconds * 1000));
    return minutes < 120 ? this.t("when.minutes", { n: minutes, time: at }) : this.t("when.at", { time: at });
  }

  // applyLanguage sets the language and direction on the page and the form.
  applyLanguage() {
    const dir = (this.def && this.def.dir) || BOOT_DIR[this.lang] || "ltr";
    for (const node of [document.documentElement, this.root]) {
      node.lang = this.lang;
      node.dir = dir;
    }
    if (this.def && this.def.title) document.title = this.def.title;
  }

  // languageSwitch offers the form's other languages, each named in itself.
  languageSwitch() {
    const langs = ((this.def && this.def.languages) || []).filter((l) => l.lang !== this.lang);
    if (langs.length === 0) return null;
    const nav = el("nav", { class: "intro-lang", "aria-label": this.t("language") });
    for (const l of langs) {
      const b = this.button(l.name, () => this.switchLanguage(l.lang), "intro-secondary");
      b.lang = l.lang;
      b.dir = l.dir || "auto";
      b.id = `intro-lang-${l.lang}`;
      nav.append(b);
    }
    return nav;
  }

  // switchLanguage shows the form in lang, keeping what was typed, the
  // boxes ticked and the guide's conversation (formatted again).
  async switchLanguage(lang) {
    if (this.busy) return;
    const values = this.formValues;
    this.chosenLang = lang;
    this.formValues = values;
    this.remember();
    this.busy = true;
    try {
      if (!(await this.loadDefinition(lang))) return;
    } finally {
      this.busy = false;
    }
    if (this.turns) this.attachConversation(this.turns);
    this.showForm(values);
    this.focusHeading();
  }

  /** start loads the definition and shows the view the URL asks for. */
  async start() {
    window.addEventListener("hashchange", () => this.route());
    document.addEventListener("pointerdown", () => (this.pressing = true), true);
    document.addEventListener("pointerup", () => setTimeout(() => (this.pressing = false)), true);
    window.addEventListener("beforeunload", (e) => {
      if (!this.hasUnsentText()) return;
      e.preventDefault();
      e.returnValue = ""; // older browsers need it set to warn
    });
    await this.loadDefinition();
    this.route();
  }

  // loadDefinition loads the definition, in lang when given (else in the
  // language the browser asks for); it reports whether it did.
  async loadDefinition(lang = this.chosenLang) {
    this.applyLanguage();
    this.setStatus(this.boot("loading"));
    try {
      let res;
      const url = this.urls.form() + (lang ? `?lang=${encodeURIComponent(lang)}` : "");
      try {
        res = await fetch(url, { cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" });
      } catch {
        throw Object.assign(new Error("unreachable"), { code: this.unreachableCode() });
      }
      this.reached = true;
      if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { code: "BUSY" });
      this.def = await res.json();
      if (this.def.lang) this.lang = this.def.lang;
      this.applyLanguage();
      return true;
    } catch (err) {
      this.def = null;
      this.view = "not-loaded";
      put(this.root,
        this.heading(this.boot("failed")),
        el("p", { class: "intro-status", role: "alert" }, err.code === "BUSY" ? this.boot("busy") : this.boot("offline")),
        this.button(this.boot("retry"), () => this.loadDefinition().then(() => this.route())),
      );
      this.focusHeading();
      return false;
    }
  }

  // unreachableCode names a request without a readable answer: NETWORK
  // offline or before the service ever answered, else BUSY (the platform's
  // refusals carry no CORS headers).
  unreachableCode() {
    if (typeof navigator !== "undefined" && navigator.onLine === false) return "NETWORK";
    return this.reached ? "BUSY" : "NETWORK";
  }

  withdrawalParams() {
    const h = location.hash;
    if (!h.startsWith("#withdraw?")) return null;
    const p = new URLSearchParams(h.slice("#withdraw?".length));
    const id = p.get("id");
    const token = p.get("token");
    return id && token ? { id, token, name: p.get("name"), at: p.get("at") } : null;
  }

  route() {
    const w = this.withdrawalParams();
    if (w) return this.showWithdraw(w);
    if (!this.def) return;
    if (["form", "review", "success", "kept", "withdrawn"].includes(this.view)) return;
    const receipt = readStored(receiptKey(this.formId));
    if (receipt && receipt.href) return this.showSuccess(receipt, { restored: true });
    const typed = readStored(storeKey(this.formId));
    if (typed) {
      const d = typed.draft;
      if (d && d.id && d.token && Date.parse(d.expiresAt) - Date.now() > 30_000) this.draft = d;
      this.ticked = new Set(Array.isArray(typed.ticked) ? typed.ticked : []);
      return this.showForm(typed.values || {});
    }
    this.showForm();
  }

  setStatus(text) {
    put(this.root, el("p", { class: "intro-status" }, text));
  }

  button(label, onClick, cls) {
    const b = el("button", { type: "button", class: cls }, label);
    b.addEventListener("click", onClick);
    return b;
  }

  heading(text) {
    return el("h1", { tabindex: "-1" }, text);
  }

  focusHeading() {
    const h = this.root.querySelector("h1");
    if (h) h.focus();
  }

  fieldDef(name) {
    return ((this.def && this.def.fields) || []).find((f) => f.name === name) || { name, label: name };
  }

  consentPurpose() {
    const conv = this.fieldDef("conversation");
    return ((this.def && this.def.purposes) || []).find((p) => p.id === (conv.purpose || "attach-conversation") && p.consent);
  }

  // optionPurposes are the consent-based purposes offered as boxes of their
  // own: every one but the conversation's, whose box sits with the
  // conversation it attaches.
  optionPurposes() {
    const conv = this.consentPurpose();
    return ((this.def && this.def.purposes) || []).filter((p) => p.consent && p !== conv);
  }

  // hasUnsentText reports whether leaving now would lose something: words
  // not yet sent on (a form with anything typed, a draft not yet confirmed),
  // or a withdrawal link the visitor has not yet copied, downloaded or kept.
  hasUnsentText() {
    if (this.view === "review") return true;
    if (this.view === "success") return !this.receiptSaved;
    if (this.view !== "form") return false;
    for (const f of this.fields.values()) {
      if (f.input && typeof f.input.value === "string" && f.input.type !== "checkbox" && f.input.value.trim() !== "") return true;
    }
    return false;
  }

  // remember writes what was typed (and the unconfirmed draft) to this tab's
  // sessionStorage.
  remember() {
    const values = this.formValues || {};
    const typed = Object.values(values).some((v) => v && String(v).trim() !== "") || this.ticked.size > 0;
    if (!typed && !this.draft && !this.chosenLang) {
      writeStored(storeKey(this.formId), null);
      return;
    }
    const d = this.draft;
    writeStored(storeKey(this.formId), {
      lang: this.chosenLang,
      values,
      ticked: [...this.ticked],
      draft: d ? { id: d.id, token: d.token, expiresAt: d.expiresAt } : null,
    });
  }

  forget() {
    writeStored(storeKey(this.formId), null);
  }

  // ---- the form ----

  showForm(values = this.formValues) {
    const def = this.def;
    this.view = "form";
    this.fields.clear();
    if (this.renderedAt === null) this.renderedAt = performance.now();
    if (!this.draft) {
      // A kept draft is revised without a new proof of work.
      this.pow.start();
      prewarm();
    }
    // A draft already reviewed: this is an edit of it.
    const editing = this.draft && this.draft.introduction;
    const form = el("form", { novalidate: true, "aria-describedby": "intro-lead" });
    for (const f of def.fields || []) {
      if (f.type === "transcript") continue;
      form.append(this.renderField(f, values ? values[f.name] : ""));
    }
    if (def.attachment) form.append(this.renderAttachment());
    this.optionsBox = this.renderOptions();
    this.conversationBox = el("div");
    form.append(this.conversationBox);
    if (this.optionsBox) form.append(this.optionsBox);
    this.renderConversation();

    const hp = def.honeypot && def.honeypot.name;
    if (hp) {
      // Invisible to people and assistive technology, never focusable.
      form.append(
        el("div", { class: "intro-hp", hidden: true, "aria-hidden": "true", inert: true },
          el("label", {}, this.t("honeypot"), el("input", { type: "text", name: hp, tabindex: "-1", autocomplete: "off", value: "" }))),
      );
    }

    form.append(this.renderNotice());
    this.submitButton = el("button", { type: "submit" }, this.t("review"));
    form.append(el("div", { class: "intro-actions" }, this.submitButton, editing && this.button(this.t("edit.back"), () => {
      this._values = this.reviewedValues;
      this.fields.clear();
      this.showReview(this.draft);
    }, "intro-secondary")));
    this.progress = el("div", { class: "intro-progress", "aria-live": "polite" });
    form.append(this.progress);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.review();
    });
    form.addEventListener("input", () => this.remember());
    this.form = form;
    this.summary = el("div", { class: "intro-summary", role: "alert", tabindex: "-1" });
    put(this.root,
      this.languageSwitch(),
      this.heading(def.title || "Introduce yourself"),
      def.description ? el("p", { class: "intro-lead", id: "intro-lead" }, def.description) : el("p", { id: "intro-lead", hidden: true }),
      editing && el("p", { class: "intro-editing" }, this.t("edit.note")),
      this.summary,
      form,
    );
  }

  renderField(f, value) {
    const id = `intro-${f.name}`;
    const hintId = `${id}-hint`;
    const errId = `${id}-error`;
    const countId = `${id}-count`;
    const limited = f.maxLength > 0;
    const attrs = {
      id,
      name: f.name,
      autocomplete: f.autocomplete || "off",
      dir: "auto", // the visitor may write in another script than the page's
      "aria-required": f.required ? "true" : null,
      // No maxlength: the browser would cut a long paste without a word.
      // The count below says where the limit is instead.
      "aria-describedby": [f.hint ? hintId : "", limited ? countId : "", errId].filter(Boolean).join(" "),
    };
    let input;
    if (f.type === "textarea") {
      input = el("textarea", { ...attrs, rows: 8 });
    } else {
      input = el("input", { ...attrs, type: f.type === "email" ? "email" : "text", spellcheck: f.type === "email" ? "false" : null });
    }
    input.value = value || "";
    const error = el("p", { class: "intro-error", id: errId });
    const count = limited ? el("p", { class: "intro-count", id: countId }) : null;
    const note = el("p", { class: "intro-note", id: `${id}-note`, role: "status" });
    const field = { input, error, count, note, def: f, text: true };
    this.fields.set(f.name, field);
    // Checked when left (once typed in), and again as it is corrected.
    input.addEventListener("input", () => {
      field.edited = true;
      if (input.getAttribute("aria-invalid")) this.checkField(field);
    });
    // While a pointer is down the check waits for its release, so that
    // the sentence it adds does not move the button being pressed.
    input.addEventListener("blur", () => {
      if (!field.edited) return;
      if (this.pressing) document.addEventListener("pointerup", () => setTimeout(() => this.checkField(field)), { once: true });
      else this.checkField(field);
    });
    if (count) {
      this.updateCount(field);
      let pasted = false;
      input.addEventListener("paste", () => (pasted = true));
      input.addEventListener("input", () => {
        const over = this.updateCount(field);
        if (pasted) this.notePaste(field, over);
        else if (!over.length && !over.links) note.textContent = "";
        pasted = false;
      });
    }
    return el("div", { class: "intro-field" },
      el("label", { for: id }, f.label || f.name, f.required ? null : el("span", { class: "intro-optional" }, " ", this.t("optional"))),
      f.hint ? el("span", { class: "intro-hint", id: hintId }, f.hint) : null,
      input,
      error,
      note,
      count);
  }

  // updateCount shows a field's characters (and links) against its limits
  // and returns by how much each is over them.
  updateCount(field) {
    const f = field.def;
    const text = field.input.value.replace(/\r\n?/g, "\n").trim();
    const n = codePoints(text);
    const links = f.type === "textarea" ? countLinks(text) : 0;
    const over = { length: Math.max(0, n - f.maxLength), links: f.type === "textarea" ? Math.max(0, links - (f.maxLinks ?? 0)) : 0 };
    const parts = [this.t("count.characters", { n, max: f.maxLength })];
    if (over.length) parts[0] += ` ${this.t("count.tooMany", { n: over.length })}`;
    if (f.type === "textarea") {
      parts.push(this.t("count.links", { n: links, max: f.maxLinks ?? 0 }) + (over.links ? ` ${this.t("count.tooMany", { n: over.links })}` : ""));
    }
    field.count.textContent = parts.join(this.t("count.separator"));
    field.count.classList.toggle("intro-over", over.length > 0 || over.links > 0);
    return over;
  }

  // problemOf is what the definition's rules for a text field (required,
  // length, email shape, links) find wrong with its value: a sentence, or "".
  problemOf(field) {
    const f = field.def;
    const v = field.input.value.replace(/\r\n?/g, "\n").trim();
    const n = codePoints(v);
    const links = f.type === "textarea" ? countLinks(v) : 0;
    if (!v) return f.required ? this.t("check.required", { label: f.label || f.name }) : "";
    if (n > f.maxLength) return this.t("check.long", { n, max: f.maxLength });
    if (f.type === "email" && !emailShape(v)) return this.t("check.email");
    if (links > (f.maxLinks ?? 0)) return this.t("check.links", { n: links, max: f.maxLinks ?? 0 });
    return "";
  }

  // checkField says problemOf under the field, or clears it.
  checkField(field, text = this.problemOf(field)) {
    field.error.textContent = text;
    if (text) field.input.setAttribute("aria-invalid", "true");
    else field.input.removeAttribute("aria-invalid");
  }

  notePaste(field, over) {
    const f = field.def;
    const said = [];
    if (over.length) {
      said.push(this.t("paste.longer", { n: over.length, max: f.maxLength }));
    }
    if (over.links) {
      said.push(this.t("paste.links", { n: over.links, max: f.maxLinks ?? 0 }));
    }
    field.note.textContent = said.join(" ");
  }

  renderConversation() {
    const box = this.conversationBox;
    if (!box) return;
    const def = this.fieldDef("conversation");
    const purpose = this.consentPurpose();
    const t = this.transcript;
    const prevChecked = this.consentInput ? this.consentInput.checked : false;
    this.consentInput = null;
    if (!t || !purpose) {
      this.fields.delete("conversation");
      this.fields.delete("consents");
      if (this.optionsField) this.fields.set("consents", this.optionsField);
      put(box);
      return;
    }
    const control = purpose.consent.control || "consent-attach-conversation";
    const consent = el("input", { type: "checkbox", id: control, name: control, "aria-describedby": "intro-consents-error" });
    consent.checked = prevChecked;
    this.consentInput = consent;
    const convError = el("p", { class: "intro-error", id: "intro-conversation-error" });
    const consentError = el("p", { class: "intro-error", id: "intro-consents-error" });
    const text = el("div", {
      class: "intro-transcript",
      id: "intro-conversation",
      tabindex: "0",
      role: "region",
      "aria-label": this.t("conversation.region"),
      "aria-describedby": "intro-conversation-error",
      dir: "auto",
    }, t.text);
    this.fields.set("conversation", { input: text, error: convError, def });
    this.fields.set("consents", { input: consent, error: consentError, def: { name: "consents" } });
    put(box,
      el("fieldset", { class: "intro-conversation" },
        el("legend", {}, def.label || "Your conversation with the guide"),
        def.hint ? el("p", { class: "intro-hint" }, def.hint) : null,
        el("p", {}, this.t("conversation.whole", { n: codePoints(t.text) })),
        t.dropped > 0
          ? el("p", { class: "intro-hint" }, this.t("conversation.dropped", { n: t.dropped, max: def.maxLength || DEFAULT_TRANSCRIPT_LIMIT }))
          : null,
        text,
        convError,
        el("label", { class: "intro-check", for: control }, consent, el("span", {}, purpose.consent.text)),
        consentError,
        el("div", { class: "intro-actions" }, this.button(this.t("conversation.remove"), () => {
          this.transcript = null;
          this.turns = null;
          this.renderConversation();
          this.submitButton && this.submitButton.focus();
        }, "intro-secondary")),
      ),
    );
  }

  // renderOptions renders one unticked box per optional consent purpose,
  // with the purpose's exact consent text and its text version; null when
  // the form version has none.
  renderOptions() {
    this.optionInputs = new Map();
    this.optionsField = null;
    const purposes = this.optionPurposes();
    if (purposes.length === 0) return null;
    const error = el("p", { class: "intro-error", id: "intro-options-error" });
    const boxes = purposes.map((p) => {
      const control = p.consent.control || `consent-${p.id}`;
      const versionId = `${control}-version`;
      const input = el("input", {
        type: "checkbox",
        id: control,
        name: control,
        "data-purpose": p.id,
        "data-text-version": p.consent.textVersion,
        "aria-describedby": `${versionId} intro-options-error`,
      });
      input.checked = this.ticked.has(p.id);
      input.addEventListener("change", () => {
        if (input.checked) this.ticked.add(p.id);
        else this.ticked.delete(p.id);
        this.remember();
      });
      this.optionInputs.set(p.id, input);
      return el("div", { class: "intro-option" },
        el("label", { class: "intro-check", for: control }, input, el("span", {}, p.consent.text)),
        el("p", { class: "intro-hint intro-text-version", id: versionId }, this.t("options.hint")));
    });
    this.optionsField = { input: this.optionInputs.values().next().value, error, def: { name: "consents" } };
    this.fields.set("consents", this.optionsField);
    return el("fieldset", { class: "intro-options" },
      el("legend", {}, this.t("options.legend", { n: purposes.length })),
      boxes,
      error);
  }

  renderNotice() {
    const def = this.def;
    const purposes = (def.purposes || []).map((p) =>
      el("li", {}, p.description || p.id, " ",
        el("span", { class: "intro-basis" }, this.t(p.required ? "notice.basis" : "notice.basisOptional", { basis: this.t(`basis.${p.basis}`) }))));
    const notice = def.notice || {};
    const r = def.retention || {};
    return el("details", { class: "intro-notice-box" },
      el("summary", {}, notice.title || this.t("notice.title")),
      el("h2", {}, this.t("notice.usedFor")),
      el("ul", { class: "intro-purposes" }, purposes),
      (notice.sections || []).map((s) => [
        el("h2", {}, s.heading),
        String(s.body || "").split("\n").filter((line) => line.trim() !== "").map((line) => el("p", {}, line)),
      ]),
      r.draftMinutes
        ? el("p", {}, this.t("notice.retention", { minutes: r.draftMinutes, days: r.introductionDays }))
        : null);
  }

  get formValues() {
    if (!this.fields || this.fields.size === 0) return this._values;
    const v = {};
    for (const [name, f] of this.fields) {
      if (f.input && "value" in f.input && f.input.type !== "checkbox") v[name] = f.input.value;
    }
    return v;
  }

  set formValues(v) {
    this._values = v;
  }

  clearErrors() {
    for (const f of this.fields.values()) {
      f.error.textContent = "";
      f.input.removeAttribute("aria-invalid");
    }
    if (this.summary) put(this.summary);
  }

  collect() {
    const def = this.def;
    const body = { formId: def.formId || this.formId, formVersion: def.formVersion, lang: def.lang || this.lang };
    for (const f of def.fields || []) {
      if (f.type === "transcript") continue;
      const field = this.fields.get(f.name);
      body[f.name] = field ? field.input.value : "";
    }
    body.consents = [];
    const purpose = this.consentPurpose();
    if (this.transcript && this.consentInput && this.consentInput.checked && purpose) {
      body.conversation = this.transcript.text;
      body.consents.push({ purpose: purpose.id, textVersion: purpose.consent.textVersion, given: true });
    }
    for (const p of this.optionPurposes()) {
      const input = this.optionInputs && this.optionInputs.get(p.id);
      if (input && input.checked) body.consents.push({ purpose: p.id, textVersion: p.consent.textVersion, given: true });
    }
    const hp = def.honeypot && def.honeypot.name;
    if (hp) body[hp] = this.form.elements[hp] ? this.form.elements[hp].value : "";
    return body;
  }

  // sentence turns a problem code into a sentence for the visitor, in the
  // definition's language.
  sentence(code, field, detail, retryAfter) {
    const f = field ? this.fieldDef(field) : {};
    const label = (f.label || field || "").replace(/\s*\(optional\)$/i, "");
    const problems = (this.def && this.def.problems) || {};
    // A field a form version adds has its own label and limits.
    const key = code === "FIELD_INVALID" && f.maxLinks ? "FIELD_INVALID.links" : code;
    let when;
    if (code === "RATE_LIMITED") when = this.whenText(retryAfter);
    if (code === "UNAVAILABLE") when = this.whenText(retryAfter ?? 30);
    const s = problems[key] ?? problems.INTERNAL ?? "Something went wrong on our side. Please try again in a moment.";
    const att = (this.def && this.def.attachment) || null;
    const size = att ? this.sizeText(att.maxBytes) : undefined;
    const types = att ? this.typesText(att.types) : undefined;
    return this.fill(s, { max: f.maxLength, label, links: f.maxLinks ?? 3, when, size, types });
  }

  // explain is what the visitor reads for one problem: the service's own
  // detail for a field's content (it says exactly what to change) when the
  // page is in English, the language the service writes its details in;
  // the page's sentence otherwise.
  explain(code, field, detail, retryAfter) {
    const target = field && this.fields.get(field);
    const own = target && target.text ? this.problemOf(target) : "";
    const english = primaryLang(this.lang) === SERVICE_LANG;
    if (own && !(english && target.def.type === "email")) return own;
    const detailed = DETAILED_CODES.has(code) && english;
    if (detailed && typeof detail === "string" && /\w/.test(detail) && detail.length <= 400) return detail;
    return this.sentence(code, field, detail, retryAfter);
  }

  // showProblem puts each error at its field and lists them all at the top.
  showProblem(problem, retryAfter) {
    this.clearErrors();
    const items = [];
    const errors = Array.isArray(problem.errors) && problem.errors.length ? problem.errors : [{ field: "", code: problem.code }];
    let first = null;
    for (const e of errors) {
      const field = e.field === "consents" && !this.fields.has("consents") ? "" : e.field;
      const text = this.explain(e.code || problem.code, field, e.detail, retryAfter);
      const target = field && this.fields.get(field);
      if (target) {
        target.error.textContent = target.error.textContent ? `${target.error.textContent} ${text}` : text;
        target.input.setAttribute("aria-invalid", "true");
        first = first || target.input;
        const label = field === "consents" ? this.t("problems.consent") : (target.def.label || field);
        const link = el("a", { href: `#${target.input.id}` }, `${label}: ${text}`);
        link.addEventListener("click", (ev) => {
          ev.preventDefault();
          target.input.focus();
        });
        items.push(el("li", {}, link));
      } else {
        items.push(el("li", {}, text));
      }
    }
    const extra = [];
    if (errors.some((e) => e.code === "FORM_VERSION_UNKNOWN") || problem.code === "FORM_VERSION_UNKNOWN") {
      extra.push(this.button(this.t("reload"), async () => {
        const values = this.formValues;
        await this.loadDefinition();
        if (this.def) this.showForm(values);
      }));
    }
    put(this.summary,
      el("h2", {}, this.t("problems", { n: items.length })),
      el("ul", {}, items),
      ...extra,
    );
    if (first) first.focus();
    else this.summary.focus();
  }

  // showProgress says in the Review button how far the check has come: the
  // workers' count against the expected work (half the challenge's
  // numbers), short of 100% until it is done; the live region says once
  // what is happening. The button is brought into view.
  showProgress(fraction) {
    const b = this.submitButton;
    if (!b) return;
    const pct = Math.min(99, Math.floor(fraction * 200));
    const key = this.slow ? "pow.slowChecking" : "pow.checking";
    if (!b.classList.contains("intro-busy") || this.said !== key) {
      this.said = key;
      b.classList.add("intro-busy");
      b.parentNode.classList.add("intro-waiting");
      b.scrollIntoView({ block: "nearest" });
      put(this.progress, el("span", { class: "visually-hidden" }, this.t(this.slow ? "pow.slow" : "pow.checking", { percent: "" })));
    }
    put(b, this.t(key, { percent: new Intl.NumberFormat(this.lang, { style: "percent" }).format(pct / 100) }),
      el("progress", { max: "100", value: String(pct), "aria-hidden": "true" }));
  }

  // idle gives the Review button back its word.
  idle() {
    const b = this.submitButton;
    put(this.progress);
    this.said = "";
    if (!b) return;
    b.classList.remove("intro-busy");
    b.parentNode.classList.remove("intro-waiting");
    b.textContent = this.t("review");
  }

  async postJSON(url, body, headers = {}) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
    this.reached = true;
    let data = null;
    const type = res.headers.get("Content-Type") || "";
    if (res.status !== 204 && /json/.test(type)) {
      try {
        data = await res.json();
      } catch {
        data = null;
      }
    }
    if (!res.ok && (!data || !data.code)) {
      // Not the service's own problem: the platform in front of it answered
      // (Cloud Run's 429 when every instance is busy, a 5xx from its front
      // end). That is the service being busy, never the visitor's limit.
      const byStatus = { 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 409: "STATE_CONFLICT", 413: "BODY_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE" };
      data = { code: byStatus[res.status] || (res.status === 503 && res.headers.get("Retry-After") ? "UNAVAILABLE" : "BUSY"), status: res.status };
    }
    return { res, data, retryAfter: retryAfterSeconds(res) };
  }

  // send posts once and, if the request never got an answer, once more
  // with the same body (and so the same Idempotency-Key).
  async send(url, body, headers) {
    try {
      return await this.postJSON(url, body, headers);
    } catch {
      await new Promise((r) => setTimeout(r, 1000));
      return await this.postJSON(url, body, headers);
    }
  }

  async review() {
    if (this.busy) return;
    this.busy = true;
    this.submitButton.disabled = true;
    this.clearErrors();
    try {
      const body = this.collect();
      this.pendingFile = this.attachmentInput && this.attachmentInput.files.length ? this.attachmentInput.files[0] : null;
      if (this.draft && (await this.revise(body))) return;
      await this.keepNew(body);
    } finally {
      this.busy = false;
      this.pow.quiet();
      this.idle();
      if (this.submitButton) this.submitButton.disabled = false;
    }
  }

  // revise sends the edited fields as a revision of the kept draft. It
  // returns false when there is no draft to revise any more (expired, or
  // revised as often as the service allows): a new draft is then kept.
  async revise(body) {
    const { formId, formVersion, ...fields } = body;
    const hp = this.def.honeypot && this.def.honeypot.name;
    if (hp) delete fields[hp];
    let answer;
    try {
      answer = await this.send(this.urls.revision(this.draft.id), { token: this.draft.token, ...fields });
    } catch {
      this.showProblem({ code: this.unreachableCode() });
      return true;
    }
    const { res, data, retryAfter } = answer;
    if (res.ok && data && data.id) {
      this.formValues = this.formValues;
      await this.showReview(data);
      return true;
    }
    if (data.code === "NOT_FOUND" || data.code === "RATE_LIMITED") {
      this.draft = null;
      this.remember();
      return false;
    }
    this.showProblem(data, retryAfter);
    return true;
  }

  // keepNew keeps body as a new draft: refused for the proof of work alone,
  // once more with a new one; on POW_TOO_EASY, up to MAX_HARDER times harder.
  async keepNew(body) {
    this.slow = false;
    try {
      await this.keepNewOnce(body);
    } finally {
      this.slow = false;
    }
  }

  async keepNewOnce(body) {
    let harder = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!this.pow.isReady()) this.showProgress(this.pow.current ? this.pow.current.progress : 0);
      let altcha;
      try {
        altcha = await this.pow.payload((p) => this.showProgress(p));
      } catch {
        this.pow.discard();
        try {
          altcha = await this.pow.payload((p) => this.showProgress(p));
        } catch (err2) {
          this.pow.quiet();
          this.idle();
          this.showProblem({ code: err2 instanceof SolveError ? "SOLVER" : this.unreachableCode() });
          return;
        }
      }
      this.pow.quiet();
      this.idle();
      const full = { ...body, altcha, page: this.pageReport() };
      const json = JSON.stringify({ ...body, altcha });
      const key = this.lastAttempt && this.lastAttempt.json === json ? this.lastAttempt.key : idempotencyKey();
      let answer;
      try {
        answer = await this.send(this.urls.drafts(), full, { "Idempotency-Key": key });
      } catch {
        this.lastAttempt = { json, key };
        this.showProblem({ code: this.unreachableCode() });
        return;
      }
      this.lastAttempt = null;
      const { res, data, retryAfter } = answer;
      if (res.status === 201 || res.status === 200) {
        this.pow.stop(); // spent; an edit revises this draft without another
        this.formValues = this.formValues;
        await this.showReview(data);
        return;
      }
      const required = Number(data.requiredMaxNumber);
      if (data.code === "POW_TOO_EASY" && Number.isSafeInteger(required) && required > 0 && harder < MAX_HARDER) {
        harder++;
        attempt--; // not a failure of the proof of work: the same attempt, harder
        this.slow = true;
        this.pow.harder(required);
        continue;
      }
      const codes = data.errors && data.errors.length ? data.errors.map((e) => e.code) : [data.code];
      if (attempt === 0 && codes.every((c) => POW_CODES.has(c))) {
        this.pow.discard(); // expired, spent or from another instance: solve a new one
        continue;
      }
      this.showProblem(data, retryAfter);
      return;
    }
    // Refused twice for the proof of work: say so.
    this.showProblem({ code: "POW_INVALID" });
  }

  // pageReport is the draft's content-free "page" member.
  pageReport() {
    const fillMs = this.renderedAt === null ? 0 : Math.max(0, Math.round(performance.now() - this.renderedAt));
    const { solveMs, workers } = this.pow.solved();
    return { fillMs, automation: automated(), solveMs, workers };
  }

  // ---- the review step ----

  // shown renders a kept value with every invisible or direction-changing
  // character as a visible code; it reports whether it found any.
  shown(text) {
    let found = false;
    const nodes = revealInvisible(text).map((part) => {
      if (typeof part === "string") return part;
      found = true;
      return el("span", { class: "intro-invisible", title: `${part.label} ${part.name}` },
        part.label, el("span", { class: "visually-hidden" }, " ", this.t("review.invisibleCharacter", { name: part.name })));
    });
    return { nodes, found };
  }

  showReview(draft) {
    if (this.pendingFile) return this.uploadThenReview(draft);
    this.draft = draft;
    this.view = "review";
    this.reviewedValues = this._values;
    this.remember();
    const kept = draft.introduction || {};
    const rows = [];
    let invisible = false;
    for (const f of this.def.fields || []) {
      if (f.type === "transcript") continue;
      const v = keptValue(kept, f.name);
      if (v) {
        const { nodes, found } = this.shown(v);
        invisible = invisible || found;
        rows.push(el("dt", {}, f.label || f.name), el("dd", { "data-field": f.name, dir: "auto" }, nodes));
      } else {
        rows.push(el("dt", {}, f.label || f.name), el("dd", { class: "intro-empty", "data-field": f.name }, this.t("review.notGiven")));
      }
    }
    const convLabel = this.fieldDef("conversation").label || "Conversation";
    if (kept.conversation) {
      const { nodes, found } = this.shown(kept.conversation);
      invisible = invisible || found;
      rows.push(
        el("dt", {}, this.t("review.conversationAttached", { label: convLabel })),
        el("dd", { "data-field": "conversation" },
          el("div", { class: "intro-transcript", tabindex: "0", role: "region", "aria-label": this.t("review.conversationRegion"), dir: "auto" }, nodes)),
      );
    } else if (this.transcript) {
      rows.push(
        el("dt", {}, convLabel),
        el("dd", { class: "intro-empty", "data-field": "conversation" },
          this.t("review.notAttached")),
      );
    }
    if (this.def.attachment) {
      const a = draft.attachment;
      rows.push(
        el("dt", {}, this.def.attachment.label || this.t("attachment.label")),
        a
          ? el("dd", { "data-field": "attachment" }, this.tNodes("attachment.reviewed", { name: el("bdi", {}, a.name || this.t("attachment.unnamed")), type: this.typeName(a.type), size: this.sizeText(a.size) }))
          : el("dd", { class: "intro-empty", "data-field": "attachment" }, this.t("attachment.none")),
      );
    }
    if (((this.def && this.def.purposes) || []).some((p) => p.consent)) {
      const agreed = this.agreedTo(draft);
      rows.push(
        el("dt", {}, this.t("review.agreedTo")),
        el("dd", { "data-field": "consents" }, agreed.length
          ? el("ul", { class: "intro-agreed" }, agreed.map((a) =>
            el("li", { "data-purpose": a.purpose }, a.text, " ", el("span", { class: "intro-text-version", "data-text-version": a.textVersion }, this.t("review.agreedTicked")))))
          : el("span", { class: "intro-empty" }, this.t("review.agreedNothing"))),
      );
    }
    const until = draft.expiresAt ? new Date(draft.expiresAt) : null;
    this.summary = el("div", { class: "intro-summary", role: "alert", tabindex: "-1" });
    this.confirmButton = this.button(this.t("review.confirm"), () => this.confirm());
    put(this.root,
      this.heading(this.t("review.heading")),
      el("p", {}, this.t("review.lead")),
      this.summary,
      invisible
        ? el("p", { class: "intro-hint intro-invisible-note" }, this.t("review.invisible"))
        : null,
      el("dl", { class: "intro-kept" }, rows),
      until && !Number.isNaN(until.getTime())
        ? el("p", { class: "intro-hint" }, this.t("review.deletedAt", { time: this.clock(until) }))
        : null,
      el("div", { class: "intro-actions" },
        this.confirmButton,
        this.button(this.t("review.edit"), () => {
          this.showForm(this._values);
          this.focusHeading();
        }, "intro-secondary")),
    );
    this.focusHeading();
  }

  // ---- the attachment ----

  // renderAttachment is the file field with its rules and the kept file; the
  // native input stays the control, drawn in the page's language.
  renderAttachment() {
    const a = this.def.attachment;
    const id = "intro-attachment";
    const label = a.label || this.t("attachment.label");
    const rules = this.t("attachment.rules", { types: this.typesText(a.types), size: this.sizeText(a.maxBytes) });
    const input = el("input", {
      id, name: "attachment", type: "file", class: "intro-file-input",
      accept: [...(a.types || []), ".pdf", ".png", ".jpg", ".jpeg", ".txt"].join(","),
      "aria-describedby": `${id}-hint ${id}-rules ${id}-kept ${id}-error`,
    });
    // The picker as drawn: hidden from assistive technology, which has the
    // input itself; a click on it is a click on the input.
    const choose = el("span", { class: "intro-file-button", "aria-hidden": "true" }, this.t("attachment.choose"));
    const chosen = el("span", { class: "intro-file-chosen", id: `${id}-chosen`, "aria-hidden": "true" });
    const showChosen = () => {
      const f = input.files && input.files[0];
      put(chosen, f ? el("bdi", {}, f.name || this.t("attachment.unnamed")) : this.t("attachment.noneChosen"));
    };
    choose.addEventListener("click", () => input.click());
    input.addEventListener("change", () => {
      showChosen();
      this.checkFile();
    });
    showChosen();
    const error = el("p", { class: "intro-error", id: `${id}-error` });
    const kept = el("div", { class: "intro-attached", id: `${id}-kept`, "aria-live": "polite" });
    this.attachmentInput = input;
    this.attachmentKept = kept;
    this.fields.set("attachment", { input, error, count: null, note: null, def: { name: "attachment", label } });
    this.showAttached();
    return el("div", { class: "intro-field intro-file" },
      el("label", { for: id }, label, el("span", { class: "intro-optional" }, " ", this.t("optional"))),
      a.hint ? el("span", { class: "intro-hint", id: `${id}-hint` }, a.hint) : el("span", { id: `${id}-hint`, hidden: true }),
      el("span", { class: "intro-hint intro-rules", id: `${id}-rules` }, rules),
      el("div", { class: "intro-file-picker" }, input, choose, chosen),
      kept,
      error);
  }

  // checkFile says under the file field what the definition's type and size
  // rules find wrong with the chosen file.
  checkFile() {
    const a = this.def.attachment;
    const f = this.attachmentInput.files[0];
    const code = !f ? "" : !f.size ? "ATTACHMENT_EMPTY" : f.size > a.maxBytes ? "ATTACHMENT_TOO_LARGE"
      : f.type && !(a.types || []).includes(f.type) ? "ATTACHMENT_TYPE_REFUSED" : "";
    this.checkField(this.fields.get("attachment"), code && this.sentence(code));
  }

  // showAttached says which file the kept draft holds, with its Remove.
  showAttached() {
    const a = this.draft && this.draft.attachment;
    if (!this.attachmentKept) return;
    if (!a) {
      put(this.attachmentKept);
      return;
    }
    const remove = this.button(this.t("attachment.remove"), () => this.removeAttachment(), "intro-secondary");
    put(this.attachmentKept,
      el("p", {}, this.tNodes("attachment.kept", { name: el("bdi", {}, a.name || this.t("attachment.unnamed")), type: this.typeName(a.type), size: this.sizeText(a.size) })),
      remove);
  }

  async removeAttachment() {
    if (this.busy || !this.draft) return;
    this.busy = true;
    try {
      let res;
      try {
        res = await fetch(this.urls.attachment(this.draft.id), {
          method: "DELETE", headers: { Authorization: `Bearer ${this.draft.token}` },
          credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer",
        });
      } catch {
        this.showProblem({ errors: [{ field: "attachment", code: this.unreachableCode() }] });
        return;
      }
      if (res.status === 204) {
        this.draft.attachment = null;
        this.remember();
        this.showAttached();
        put(this.attachmentKept, el("p", {}, this.t("attachment.removed")));
        this.attachmentInput.focus();
        return;
      }
      const data = await res.json().catch(() => ({ code: "BUSY" }));
      this.showProblem({ errors: [{ field: "attachment", code: data.code, detail: data.detail }] }, retryAfterSeconds(res));
    } finally {
      this.busy = false;
    }
  }

  // uploadThenReview sends the chosen file, then shows the review; a refusal
  // stays on the form, said at the file field.
  async uploadThenReview(draft) {
    const file = this.pendingFile;
    this.pendingFile = null;
    this.draft = draft;
    this.remember();
    const answer = await this.upload(draft, file);
    if (answer.ok) {
      draft.attachment = answer.data.attachment;
      this.attachmentInput.value = "";
      this.attachmentInput.dispatchEvent(new Event("change"));
      return this.showReview(draft);
    }
    this.showAttached();
    this.showProblem({ errors: [{ field: "attachment", code: answer.data.code, detail: answer.data.detail }] }, answer.retryAfter);
  }

  // upload PUTs file as the draft's attachment (XMLHttpRequest: fetch
  // reports no upload progress) and resolves to {ok, data, retryAfter}.
  upload(draft, file) {
    const name = file.name || "";
    const show = (fraction) => {
      const pct = Math.round(fraction * 100);
      put(this.progress,
        el("label", { for: "intro-upload-progress" }, this.t("attachment.sending", { percent: new Intl.NumberFormat(this.lang, { style: "percent" }).format(pct / 100) })),
        el("progress", { id: "intro-upload-progress", max: "100", value: String(pct) }));
    };
    show(0);
    return new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open("PUT", this.urls.attachment(draft.id));
      xhr.setRequestHeader("Authorization", `Bearer ${draft.token}`);
      xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
      if (name) xhr.setRequestHeader("Content-Disposition", dispositionName(name));
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) show(e.loaded / e.total);
      };
      xhr.onload = () => {
        put(this.progress);
        let data = null;
        try {
          data = JSON.parse(xhr.responseText);
        } catch {
          data = null;
        }
        const wait = Number(xhr.getResponseHeader("Retry-After"));
        if (xhr.status === 200 && data && data.attachment) resolve({ ok: true, data });
        else resolve({ ok: false, data: data && data.code ? data : { code: "BUSY" }, retryAfter: Number.isFinite(wait) && wait > 0 ? wait : undefined });
      };
      xhr.onerror = () => {
        put(this.progress);
        resolve({ ok: false, data: { code: this.unreachableCode() } });
      };
      xhr.send(file);
    });
  }

  // agreedTo lists the consents the service kept with the draft, each with
  // the text the visitor agreed to (the form's text of that version).
  agreedTo(draft) {
    const purposes = (this.def && this.def.purposes) || [];
    return (Array.isArray(draft.consents) ? draft.consents : []).map((c) => {
      const p = purposes.find((x) => x.id === c.purpose);
      const text = p && p.consent && p.consent.textVersion === c.textVersion ? p.consent.text : (p && p.description) || c.purpose;
      return { purpose: c.purpose, textVersion: c.textVersion, text };
    });
  }

  async confirm() {
    if (this.busy || !this.draft) return;
    this.busy = true;
    this.confirmButton.disabled = true;
    try {
      let answer;
      try {
        answer = await this.send(this.urls.confirmation(this.draft.id), { token: this.draft.token });
      } catch {
        this.showReviewProblem({ code: this.unreachableCode() });
        return;
      }
      const { res, data, retryAfter } = answer;
      if (res.ok) {
        this.forget();
        this.showSuccess(this.receiptOf(this.draft, data || {}));
        return;
      }
      if (data.code === "NOT_FOUND") {
        const values = this._values;
        this.draft = null;
        this.showForm(values);
        this.remember();
        this.showProblem(data);
        return;
      }
      this.showReviewProblem(data, retryAfter);
    } finally {
      this.busy = false;
      if (this.confirmButton) this.confirmButton.disabled = false;
    }
  }

  showReviewProblem(problem, retryAfter) {
    put(this.summary, el("p", {}, this.sentence(problem.code, "", "", retryAfter)));
    this.summary.focus();
  }

  // ---- success, the receipt and withdrawal ----

  // withdrawalLink is the link that withdraws id; it carries the name and
  // the confirmation's time from the draft's answer, so that its page can
  // say which introduction it withdraws (a fragment: no server sees it).
  withdrawalLink(id, token, name, at) {
    const u = new URL(location.href);
    u.hash = `withdraw?${new URLSearchParams({ id, token, ...(name ? { name } : {}), ...(at ? { at } : {}) })}`;
    return u.href;
  }

  // siteLink leads back to the site (the definition's siteUrl), if it has one.
  siteLink() {
    const u = this.def && this.def.siteUrl;
    return u ? el("p", {}, el("a", { href: u, id: "intro-back-to-site" }, this.t("backToSite"))) : null;
  }

  // receiptOf makes a confirmed draft's receipt: link, rows and text (with
  // the conversation) and tabText (saying only whether one was attached).
  receiptOf(draft, confirmation) {
    const id = confirmation.id || draft.id;
    const kept = draft.introduction || {};
    const confirmedAt = confirmation.confirmedAt || new Date().toISOString();
    const href = this.withdrawalLink(id, draft.token, keptValue(kept, "name"), confirmedAt);
    const until = confirmation.withdrawal && confirmation.withdrawal.until;
    const language = ((this.def.languages || []).find((l) => l.lang === (draft.lang || this.lang)) || {}).name;
    const lines = [
      this.t("receipt.title"),
      "",
      this.t("receipt.sentTo", { host: location.host || this.t("receipt.thisSite"), address: `${location.origin}${location.pathname}` }),
      this.t("receipt.confirmed", { when: this.dateTime(confirmedAt) }),
      until ? this.t("receipt.keptUntil", { when: this.dateTime(until) }) : null,
      this.t("receipt.reference", { id }),
      language ? this.t("receipt.language", { language }) : null,
      "",
      this.t("receipt.whatWasKept"),
    ];
    const rows = [];
    for (const f of this.def.fields || []) {
      if (f.type === "transcript") continue;
      rows.push([f.label || f.name, keptValue(kept, f.name)]);
      const v = keptValue(kept, f.name) || this.t("receipt.notGiven");
      lines.push(v.includes("\n") ? `${f.label || f.name}:\n  ${v.replace(/\n/g, "\n  ")}` : `${f.label || f.name}: ${v}`);
    }
    const convLabel = this.fieldDef("conversation").label || "Conversation";
    const file = draft.attachment && (draft.attachment.name || this.t("attachment.unnamed"));
    if (this.def.attachment) {
      rows.push([this.def.attachment.label || this.t("attachment.label"), file || "", this.t("attachment.none")]);
      lines.push(`${this.def.attachment.label || this.t("attachment.label")}: ${file || this.t("attachment.none")}`);
    }
    if (kept.conversation) rows.push([convLabel, this.t("success.attached")]);
    const conversation = kept.conversation
      ? `${this.t("receipt.conversationAttached", { label: convLabel })}\n  ${kept.conversation.replace(/\n/g, "\n  ")}`
      : this.t("receipt.conversationNotAttached", { label: convLabel });
    const inTab = kept.conversation ? this.t("receipt.conversationInTab", { label: convLabel }) : conversation;
    const agreed = this.agreedTo(draft);
    const rest = [
      agreed.length
        ? `${this.t("receipt.agreedTo")}\n${agreed.map((a) => `  - ${this.t("receipt.agreedItem", { text: a.text, textVersion: a.textVersion })}`).join("\n")}`
        : this.t("receipt.agreedNothing"),
      "",
      this.t("receipt.withdraw"),
      href,
      "",
      this.t("receipt.private"),
      "",
    ];
    const text = (conv) => [...lines, conv, ...rest].filter((l) => l !== null).join("\n");
    return { id, href, confirmedAt, rows, text: text(conversation), tabText: text(inTab) };
  }

  // receiptForTab is the receipt as this tab keeps it: without the
  // conversation's text.
  receiptForTab(receipt) {
    return { id: receipt.id, href: receipt.href, confirmedAt: receipt.confirmedAt, rows: receipt.rows, text: receipt.tabText ?? receipt.text };
  }

  // receiptActions are the buttons that keep the withdrawal link: copy it,
  // download the receipt, keep it in this tab (or forget it there).
  receiptActions(receipt, { keepInTab = true } = {}) {
    const status = el("p", { class: "intro-receipt-status", role: "status", id: "intro-receipt-status" });
    const copy = this.button(this.t("receipt.copy"), async () => {
      try {
        await navigator.clipboard.writeText(receipt.href);
        this.receiptSaved = true;
        status.textContent = this.t("receipt.copied");
      } catch {
        const link = this.root.querySelector("#intro-withdraw-link");
        if (link) link.select();
        status.textContent = this.t("receipt.copyFailed");
      }
    }, "intro-secondary");
    const actions = [copy];
    if (receipt.text) {
      actions.push(this.button(this.t("receipt.download"), () => {
        const blob = new Blob([receipt.text], { type: "text/plain;charset=utf-8" });
        const url = URL.createObjectURL(blob);
        const a = el("a", { href: url, download: this.t("receipt.fileName", { date: String(receipt.confirmedAt || "").slice(0, 10) || "now" }), hidden: true });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
        this.receiptSaved = true;
        status.textContent = this.t("receipt.downloaded");
      }, "intro-secondary"));
    }
    if (keepInTab) {
      const stored = readStored(receiptKey(this.formId));
      const inTab = !!(stored && stored.id === receipt.id);
      const toggle = this.button(this.t(inTab ? "receipt.forgetInTab" : "receipt.keepInTab"), () => {
        const now = readStored(receiptKey(this.formId));
        if (now && now.id === receipt.id) {
          writeStored(receiptKey(this.formId), null);
          toggle.textContent = this.t("receipt.keepInTab");
          status.textContent = this.t("receipt.forgotten");
        } else {
          writeStored(receiptKey(this.formId), this.receiptForTab(receipt));
          this.receiptSaved = true;
          toggle.textContent = this.t("receipt.forgetInTab");
          status.textContent = this.t("receipt.keptInTab");
        }
      }, "intro-secondary");
      actions.push(toggle);
    }
    return [el("div", { class: "intro-actions" }, actions), status];
  }

  showSuccess(receipt, { restored = false } = {}) {
    this.view = "success";
    this.receiptSaved = restored;
    this.draft = null;
    this.pow.stop(); // nothing more to solve: free the workers
    terminate();
    this.fields.clear();
    this._values = {};
    this.ticked = new Set(); // a next introduction starts with every box unticked
    this.transcript = null;
    const r = this.def.retention || {};
    put(this.root,
      this.heading(this.t(restored ? "success.headingRestored" : "success.heading")),
      el("p", { class: "intro-done" }, this.t(restored ? "success.doneRestored" : "success.done")),
      receipt.rows ? [el("h2", {}, this.t("success.sent")), el("dl", { class: "intro-kept" }, receipt.rows.map(([label, v, none]) => [
        el("dt", {}, label),
        v ? el("dd", { dir: "auto" }, v) : el("dd", { class: "intro-empty" }, none || this.t("review.notGiven")),
      ]))] : null,
      el("h2", {}, this.t("success.nextHeading")),
      el("p", {}, this.t("success.next", { days: r.introductionDays })),
      el("h2", {}, this.t("success.changedMind")),
      this.linkField(receipt.href, "success.link"),
      this.receiptActions(receipt),
      this.siteLink(),
    );
    this.focusHeading();
  }

  // linkField is the withdrawal link in a field to copy from, with why to keep it.
  linkField(href, why) {
    const input = el("input", { class: "intro-link", id: "intro-withdraw-link", readonly: true, dir: "ltr", "aria-describedby": "intro-link-why" });
    input.value = href;
    return [el("label", { for: "intro-withdraw-link" }, this.t("success.linkLabel")), el("p", { class: "intro-hint", id: "intro-link-why" }, this.t(why)), input];
  }

  // withdrawnIds are the introductions withdrawn in this tab.
  withdrawnIds() {
    return new Set(readStored(`introductions:${this.formId}:withdrawn`) || []);
  }

  showWithdraw({ id, token, name, at }) {
    this.view = "withdraw";
    const status = el("div", { class: "intro-summary", role: "alert", tabindex: "-1" });
    const href = this.withdrawalLink(id, token, name, at);
    const when = at && !Number.isNaN(Date.parse(at)) ? this.clock(new Date(at)) : "";
    const go = this.button(this.t("withdraw.button"), async () => {
      go.disabled = true;
      keep.disabled = true;
      let answer;
      try {
        answer = await this.send(this.urls.withdrawal(id), { token });
      } catch {
        put(status, el("p", {}, this.sentence(this.unreachableCode())));
        status.focus();
        go.disabled = false;
        keep.disabled = false;
        return;
      }
      const { res, data, retryAfter } = answer;
      if (res.ok) {
        writeStored(`introductions:${this.formId}:withdrawn`, [...this.withdrawnIds(), id]);
        this.forget();
        writeStored(receiptKey(this.formId), null);
        history.replaceState(null, "", location.pathname + location.search);
        this.view = "withdrawn";
        put(this.root,
          this.heading(this.t("withdrawn.heading")),
          el("p", { class: "intro-done" }, this.t("withdrawn.done")),
          this.ways(),
        );
        this.focusHeading();
        return;
      }
      if (data.code === "NOT_FOUND") {
        gone(this.t("withdraw.nothing"));
        return;
      }
      put(status, el("p", {}, this.sentence(data.code, "", "", retryAfter)));
      status.focus();
      go.disabled = false;
      keep.disabled = false;
    }, "intro-danger");
    const keep = this.button(this.t("withdraw.keep"), () => this.showKept(id, href), "intro-secondary");
    // gone says the link leads nowhere any more: no warning, no choice,
    // and the way back to the form.
    const gone = (text) => {
      this.view = "withdraw-gone";
      history.replaceState(null, "", location.pathname + location.search);
      put(this.root,
        this.heading(this.t("withdraw.goneHeading")),
        el("p", {}, text),
        this.ways(),
      );
      this.focusHeading();
    };
    if (this.withdrawnIds().has(id)) return gone(this.t("withdraw.already"));
    put(this.root,
      this.heading(this.t("withdraw.heading")),
      name ? el("p", { class: "intro-which" }, this.tNodes(when ? "withdraw.which" : "withdraw.whichName", { name: el("bdi", {}, name), date: when })) : null,
      el("p", {}, this.t("withdraw.lead")),
      status,
      el("div", { class: "intro-actions" }, go, keep),
    );
    this.focusHeading();
  }

  // ways are the ways on from a withdrawal: the form, and the site.
  ways() {
    return [el("p", {}, el("a", { id: "intro-back-to-form", href: location.pathname + location.search }, this.t("withdraw.backToForm"))), this.siteLink()];
  }

  // showKept is where "Keep it" leads: the introduction stays, and the link
  // that withdraws it is still at hand.
  showKept(id, href) {
    history.replaceState(null, "", location.pathname + location.search);
    this.view = "kept";
    const stored = readStored(receiptKey(this.formId));
    const receipt = stored && stored.id === id ? stored : { id, href };
    put(this.root,
      this.heading(this.t("kept.heading")),
      el("p", { class: "intro-done" }, this.t("kept.done")),
      this.linkField(href, "kept.link"),
      this.receiptActions(receipt, { keepInTab: !!receipt.text }),
      this.siteLink(),
    );
    this.focusHeading();
  }

  /**
   * attachConversation hands over the guide's transcript (kept in memory
   * only). Returns {kept, dropped}: the number of turns shown and left out.
   */
  attachConversation(turns) {
    const limit = (this.def && this.fieldDef("conversation").maxLength) || DEFAULT_TRANSCRIPT_LIMIT;
    this.turns = turns;
    const t = formatTranscript(turns, limit, { you: this.t("conversation.you"), guide: this.t("conversation.guide") });
    this.transcript = t.text ? t : null;
    if (this.view === "form") this.renderConversation();
    return { kept: t.kept, dropped: t.dropped };
  }
}

const mounted = [];
let readyResolve;
/** ready resolves to the mounted forms once the page has started them. */
export const ready = new Promise((r) => (readyResolve = r));

// attachConversation hands the guide's turns to the page's forms (in memory
// only): see ../../README.md. Resolves to {kept, dropped}.
export async function attachConversation(turns) {
  const forms = await ready;
  let result = { kept: 0, dropped: 0 };
  for (const f of forms) result = f.attachConversation(turns);
  return result;
}

/** mount starts a form on root (done automatically for [data-introductions-form]). */
export function mount(root) {
  const f = new IntroductionForm(root);
  mounted.push(f);
  return f.start().then(() => f);
}

function boot() {
  const roots = document.querySelectorAll("[data-introductions-form]");
  Promise.all(Array.from(roots, (r) => mount(r))).then(readyResolve, () => readyResolve(mounted));
}

if (typeof window !== "undefined") {
  window.introductions = Object.freeze({ attachConversation, ready });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot, { once: true });
  else boot();
}
