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
