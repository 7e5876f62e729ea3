// RFC 9457 problem details -> a typed error with a stable code and a sentence a person can read.

/** Messages shown to people for the stable codes the controller sends. Never show raw traces. */
const MESSAGES = {
  removed: 'You were removed from this meeting by the host.',
  participant_removed: 'You were removed from this meeting by the host.',
  banned: 'You were removed from this meeting and cannot rejoin it.',
  rejoin_forbidden: 'You were removed from this meeting and cannot rejoin it.',
  principal_banned: 'You were removed from this meeting and cannot rejoin it.',
  meeting_locked: 'This meeting is locked. Ask the host to unlock it.',
  locked: 'This meeting is locked. Ask the host to unlock it.',
  meeting_ended: 'This meeting has ended.',
  ended: 'This meeting has ended.',
  denied: 'The host did not let you in.',
  admission_denied: 'The host did not let you in.',
  not_admitted: 'You are still waiting for the host to let you in.',
  permission_revoked: 'The host turned off your permission for this.',
  publish_not_allowed: 'The host turned off your permission for this.',
  forbidden: 'You are not allowed to do that.',
  not_host: 'Only the host or a co-host can do that.',
  version_conflict: 'Someone changed this at the same moment. The screen was refreshed; try again.',
  stale_version: 'Someone changed this at the same moment. The screen was refreshed; try again.',
  idempotency_conflict: 'This request was already used with different content.',
  not_found: 'Not found. Check the meeting link.',
  meeting_not_found: 'This meeting does not exist. Check the link.',
  unauthorized: 'Your sign-in expired. Sign in again.',
  unauthenticated: 'Your sign-in expired. Sign in again.',
  not_a_participant: 'Join the meeting first.',
  device_session_active: 'This browser tab is already in the meeting.',
  idempotency_key_reused: 'This request was already used with different content.',
  unavailable: 'The service is busy. Retrying shortly.',
  too_many_requests: 'Too many requests. Retrying shortly.',
  reconnect_timeout: 'Connection lost. We could not reconnect.',
  no_media_server: 'No media server is available right now.',
  rate_limited: 'Too many requests. Retrying shortly.',
  validation_failed: 'Some input was not accepted.',
  command_expired: 'This action was pressed while offline and expired before it could be sent.',
  not_replayed: 'This action was pressed while offline and is not repeated automatically. Press it again.',
  offline: 'You are offline. Try again when the connection is back.',
  network: 'The server could not be reached.',
  e2ee_unsupported: 'This browser cannot join an end-to-end encrypted meeting.',
};

/** @param {string|undefined} code @param {string} [fallback] */
export function describeCode(code, fallback) {
  return (code && MESSAGES[code]) || fallback || 'Something went wrong. Try again.';
}

/**
 * An API refusal or failure. `code` is the stable machine code; `message` is for people.
 */
export class ParleyError extends Error {
  /**
   * @param {Object} p
   * @param {number} [p.status]   HTTP status, 0 for network errors
   * @param {string} p.code       stable code
   * @param {string} [p.title]
   * @param {string} [p.detail]
   * @param {Object} [p.raw]      the whole problem document
   */
  constructor({ status = 0, code, title, detail, raw }) {
    super(describeCode(code, detail || title));
    this.name = 'ParleyError';
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
    this.raw = raw;
    /** @type {number|undefined} seconds from a Retry-After header */
    this.retryAfter = undefined;
  }
  /** Worth retrying with the same idempotency key? */
  get retryable() {
    return this.status === 0 || this.status === 408 || this.status === 425 || this.status === 429 || this.status >= 500;
  }
}

/** Code when the server sent none: derived from the status so the UI still says something clear. */
function codeForStatus(status) {
  switch (status) {
    case 400: case 422: return 'validation_failed';
    case 401: return 'unauthorized';
    case 403: return 'forbidden';
    case 404: return 'not_found';
    case 409: return 'conflict';
    case 410: return 'meeting_ended';
    case 429: return 'rate_limited';
    default: return status >= 500 ? 'server_error' : 'http_' + status;
  }
}

/**
 * Build an error from an HTTP answer body (already read as text).
 * @param {number} status
 * @param {string|null} contentType
 * @param {string} bodyText
 * @returns {ParleyError}
 */
export function parseProblem(status, contentType, bodyText) {
  let doc = null;
  if (bodyText && /json/i.test(contentType || '')) {
    try { doc = JSON.parse(bodyText); } catch { doc = null; }
  }
  if (doc && typeof doc === 'object') {
    const code = typeof doc.code === 'string' ? doc.code
      : typeof doc.type === 'string' && doc.type !== 'about:blank' ? doc.type.split('/').pop()
      : codeForStatus(status);
    return new ParleyError({ status, code, title: doc.title, detail: doc.detail, raw: doc });
  }
  return new ParleyError({ status, code: codeForStatus(status), title: 'HTTP ' + status });
}
