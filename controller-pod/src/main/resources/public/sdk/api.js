// REST client for the public API (/v1). Every mutating call carries an Idempotency-Key that is chosen
// once per logical action and reused on every retry, so a lost answer never creates a second meeting,
// a second join request or a second command (seed 000: "same key, never a new key for the same work").

import { backoffDelay, sleep } from './backoff.js';
import { ParleyError, parseProblem } from './problem.js';
import { idempotencyKey } from './ids.js';

/**
 * @typedef {Object} ApiOptions
 * @property {string} [baseUrl='']              origin of the controller ('' = same origin)
 * @property {() => (string|null)} [getToken]    bearer token source
 * @property {typeof fetch} [fetch]
 * @property {number} [maxAttempts=5]           tries per call (first try included)
 * @property {number} [timeoutMs=10000]         per-try timeout
 * @property {import('./backoff.js').BackoffOptions} [backoff]
 * @property {(ms:number) => Promise<void>} [sleep]
 */

/**
 * @typedef {Object} RequestOptions
 * @property {string} [idempotencyKey]  reuse this key (e.g. a queued offline command)
 * @property {string} [keyPrefix]       prefix of a generated key
 * @property {number} [maxAttempts]
 * @property {AbortSignal} [signal]
 * @property {number} [timeoutMs]       per-try timeout for this call
 */

export class ApiClient {
  /** @param {ApiOptions} [opts] */
  constructor(opts = {}) {
    this.baseUrl = (opts.baseUrl || '').replace(/\/$/, '');
    this.getToken = opts.getToken || (() => null);
    this.fetch = opts.fetch || ((...a) => globalThis.fetch(...a));
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.timeoutMs = opts.timeoutMs ?? 10000;
    this.backoff = opts.backoff || { baseMs: 250, maxMs: 4000 };
    this.sleep = opts.sleep || sleep;
    /** Keys sent, newest last: lets tests and the UI show which key a retry used. */
    this.sentKeys = [];
  }

  /**
   * One logical API call, retried with jittered backoff on network errors, 408/425/429 and 5xx.
   * 4xx refusals are returned at once as ParleyError (they will not change by retrying).
   * @param {string} method
   * @param {string} path  path under /v1
   * @param {Object} [body]
   * @param {RequestOptions} [ro]
   * @returns {Promise<any>} parsed JSON answer (or null for 204)
   */
  async request(method, path, body, ro = {}) {
    const mutating = method !== 'GET' && method !== 'HEAD';
    const key = mutating ? (ro.idempotencyKey || idempotencyKey(ro.keyPrefix || 'req')) : undefined;
    const attempts = ro.maxAttempts ?? this.maxAttempts;
    let lastError = null;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (ro.signal?.aborted) throw new ParleyError({ code: 'aborted', title: 'aborted' });
      try {
        return await this.#once(method, path, body, key, ro.signal, ro.timeoutMs ?? this.timeoutMs);
      } catch (e) {
        const err = e instanceof ParleyError ? e : new ParleyError({ status: 0, code: 'network', detail: String(/** @type {any} */ (e)?.message || e) });
        lastError = err;
        if (!err.retryable || attempt === attempts - 1) throw err;
        let delay = backoffDelay(attempt, this.backoff);
        const retryAfter = Number(err.raw?.retry_after_seconds ?? err.retryAfter);
        if (Number.isFinite(retryAfter) && retryAfter > 0) delay = Math.max(delay, retryAfter * 1000);
        await this.sleep(delay);
      }
    }
    throw lastError;
  }

  async #once(method, path, body, key, signal, timeoutMs = this.timeoutMs) {
    const headers = { Accept: 'application/json, application/problem+json' };
    const token = this.getToken();
    if (token) headers.Authorization = 'Bearer ' + token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (key) {
      headers['Idempotency-Key'] = key;
      this.sentKeys.push(key);
      if (this.sentKeys.length > 100) this.sentKeys.shift();
    }
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), timeoutMs);
    const onAbort = () => ctl.abort();
    signal?.addEventListener('abort', onAbort);
    let res;
    let text;
    // The timeout covers the whole exchange, body included: a stalled body must not hang a caller
    // (a waiting room that never learns it was admitted).
    try {
      res = await this.fetch(this.baseUrl + '/v1' + path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: ctl.signal,
      });
      text = res.status === 204 ? '' : await res.text();
    } catch (e) {
      if (ctl.signal.aborted && !signal?.aborted) throw new ParleyError({ status: 0, code: 'timeout', detail: `no answer within ${timeoutMs} ms` });
      throw e;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (!res.ok) {
      const err = parseProblem(res.status, res.headers.get('content-type'), text);
      const ra = Number(res.headers.get('retry-after'));
      if (Number.isFinite(ra) && ra > 0) err.retryAfter = ra;
      throw err;
    }
    if (!text) return null;
    try { return JSON.parse(text); } catch { throw new ParleyError({ status: res.status, code: 'bad_response', detail: 'answer was not JSON' }); }
  }

  // ---- public API (docs/contracts.md, seed 000 "API Signatures") ----

  /** Local mode only. @param {{tenant:string, principal:string, name:string}} who */
  devToken(who) { return this.request('POST', '/dev/tokens', who, { keyPrefix: 'dev-token' }); }

  /** @param {{title:string, waiting_room_enabled:boolean, encryption_mode:string, large_meeting_size?:number|null, unmute_policy?:string}} m @param {RequestOptions} [ro] */
  createMeeting(m, ro) { return this.request('POST', '/meetings', m, { keyPrefix: 'create-meeting', ...ro }); }

  /** @param {string} id */
  getMeeting(id) { return this.request('GET', `/meetings/${enc(id)}`); }

  /** @param {string} id @param {{client_instance_id:string, display_name:string, capabilities:Object}} p @param {RequestOptions} [ro] */
  join(id, p, ro) { return this.request('POST', `/meetings/${enc(id)}/participants`, p, { keyPrefix: 'join', ...ro }); }

  /** @param {string} id @param {string} pid @param {{expected_transport_generation:number, device_key_id?:string}} t @param {RequestOptions} [ro] */
  createTransport(id, pid, t, ro) {
    return this.request('POST', `/meetings/${enc(id)}/participants/${enc(pid)}/transports`, t, { keyPrefix: 'transport', ...ro });
  }

  /** @param {string} id @param {Object} cmd @param {RequestOptions} [ro] */
  command(id, cmd, ro) { return this.request('POST', `/meetings/${enc(id)}/commands`, cmd, { keyPrefix: 'cmd-' + cmd.type, ...ro }); }

  /** @param {string} id @param {string} commandId */
  getCommand(id, commandId) { return this.request('GET', `/meetings/${enc(id)}/commands/${enc(commandId)}`); }

  /** @param {string} id @param {RequestOptions} [ro] */
  snapshot(id, ro) { return this.request('GET', `/meetings/${enc(id)}/snapshot`, undefined, ro); }

  /** A roster page (ordered by participant id). @param {string} id @param {string} [cursor] @param {number} [limit] 1..500 */
  participants(id, cursor, limit) {
    const q = [cursor ? `cursor=${encodeURIComponent(cursor)}` : '', limit ? `limit=${Math.floor(limit)}` : ''].filter(Boolean).join('&');
    return this.request('GET', `/meetings/${enc(id)}/participants` + (q ? `?${q}` : ''));
  }

  /** The roster entries of these participants (waiting or admitted ones; at most 100 ids a request). @param {string} id @param {string[]} ids */
  participantsByIds(id, ids) {
    return this.request('GET', `/meetings/${enc(id)}/participants?ids=${ids.map(encodeURIComponent).join(',')}`);
  }

  /** @param {string} id @param {RequestOptions} [ro] */
  recordings(id, ro) { return this.request('GET', `/meetings/${enc(id)}/recordings`, undefined, ro); }
}

/** @param {string} s */
function enc(s) { return encodeURIComponent(s); }
