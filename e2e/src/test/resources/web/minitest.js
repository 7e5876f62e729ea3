// A very small in-page test runner: tests are async functions; assertions throw.

/** @type {{name:string, fn:() => Promise<void>|void}[]} */
const tests = [];
export function test(name, fn) { tests.push({ name, fn }); }

export class AssertionError extends Error {}

export function ok(cond, msg) { if (!cond) throw new AssertionError(msg || 'expected truthy'); }
export function eq(actual, expected, msg) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new AssertionError(`${msg ? msg + ': ' : ''}expected ${e}, got ${a}`);
}
export async function rejects(p, check, msg) {
  try { await p; } catch (e) { if (check) check(e); return e; }
  throw new AssertionError(msg || 'expected a rejection');
}
export async function waitFor(cond, ms = 3000, msg = 'condition') {
  const until = performance.now() + ms;
  while (performance.now() < until) { if (await cond()) return; await new Promise((r) => setTimeout(r, 20)); }
  throw new AssertionError('timed out waiting for ' + msg);
}

/** Run the given tests (all registered by default), each with a timeout. */
export async function run(list = tests, timeoutMs = 15000) {
  const results = [];
  for (const t of list) {
    const started = performance.now();
    try {
      await Promise.race([Promise.resolve().then(t.fn), new Promise((_, rej) => setTimeout(() => rej(new AssertionError('timeout')), timeoutMs))]);
      results.push({ name: t.name, ok: true, ms: Math.round(performance.now() - started) });
    } catch (e) {
      results.push({ name: t.name, ok: false, error: String(e && e.stack || e), ms: Math.round(performance.now() - started) });
    }
  }
  return results;
}

export function registered() { return tests; }
