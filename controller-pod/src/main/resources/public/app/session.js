// Who is signed in (local mode: a dev token). Kept in sessionStorage: per tab, gone when the tab closes,
// so three tabs can be three different people.

const KEY = 'parley.session';

/** @returns {{token:string, name:string, principal:string, tenant:string}|null} */
export function loadSession() {
  try { return JSON.parse(sessionStorage.getItem(KEY) || 'null'); } catch { return null; }
}

export function saveSession(s) { sessionStorage.setItem(KEY, JSON.stringify(s)); }

export function clearSession() { sessionStorage.removeItem(KEY); }

/** A principal id from a display name: lowercase letters, digits and dashes. */
export function principalFrom(name) {
  const p = (name || '').toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return p || 'guest-' + Math.random().toString(36).slice(2, 8);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The controller identifies tenants and principals by UUID. In local mode people type names ("local",
 * "ari"); the same text always maps to the same UUID (SHA-256 based, version 5 layout), so signing in
 * again as "ari" is the same principal. A typed UUID is used as it is.
 * @param {'tenant'|'principal'} kind @param {string} text @returns {Promise<string>}
 */
export async function nameUuid(kind, text) {
  const t = (text || '').trim();
  if (UUID_RE.test(t)) return t.toLowerCase();
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${kind}:${t}`)));
  const b = digest.slice(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
