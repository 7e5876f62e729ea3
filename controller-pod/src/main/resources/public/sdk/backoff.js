// Retry pacing. Full jitter (a random delay between 0 and the exponential cap) so that many clients
// that lost the same server do not come back in lock-step (seed 000: region failure, reconnect storms).

/**
 * @typedef {Object} BackoffOptions
 * @property {number} [baseMs=250]  delay cap for the first retry
 * @property {number} [maxMs=10000] upper bound of any delay
 * @property {number} [minMs=0]     lower bound (keeps a hot loop impossible)
 * @property {() => number} [random=Math.random] source of jitter in [0, 1)
 */

/**
 * Delay before retry number `attempt` (0 = first retry).
 * @param {number} attempt
 * @param {BackoffOptions} [opts]
 * @returns {number} milliseconds
 */
export function backoffDelay(attempt, opts = {}) {
  const base = opts.baseMs ?? 250;
  const max = opts.maxMs ?? 10000;
  const min = opts.minMs ?? 0;
  const random = opts.random ?? Math.random;
  const cap = Math.min(max, base * Math.pow(2, Math.max(0, Math.min(attempt, 30))));
  return Math.max(min, Math.floor(random() * cap));
}

/** Stateful helper: call next() for each failed attempt, reset() after a success. */
export class Backoff {
  /** @param {BackoffOptions} [opts] */
  constructor(opts = {}) {
    this.opts = opts;
    this.attempt = 0;
  }
  /** @returns {number} the delay to wait before the next try */
  next() {
    return backoffDelay(this.attempt++, this.opts);
  }
  reset() {
    this.attempt = 0;
  }
}

/** @param {number} ms @returns {Promise<void>} */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
