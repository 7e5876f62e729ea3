// What people see of end-to-end encryption (docs/e2ee.md "What people see"): a bar with the meeting's state and
// the security code to compare aloud, and on each remote tile "Waiting for keys" (the avatar, never undecryptable
// video) or "Rotating keys". Only for e2ee meetings: `state.e2ee` is set by the SDK (sdk/e2ee/e2ee.js).

import { h, replace } from './dom.js';

const MEETING_LABEL = { encrypted: 'End-to-end encrypted', waiting_for_keys: 'Securing the connection: waiting for keys', rotating_keys: 'End-to-end encrypted: rotating keys' };
const PEER_LABEL = { waiting_for_keys: 'Waiting for keys', rotating_keys: 'Rotating keys' };

/** The render key of the bar (it re-renders only when this changes). */
export function e2eeBarKey(s) {
  return s.meeting?.encryption_mode === 'e2ee' ? JSON.stringify([s.e2ee?.meeting, s.e2ee?.securityCode]) : '';
}

/** Fills `bar` (empty and hidden for a transport meeting). @param {HTMLElement} bar */
export function renderE2eeBar(bar, s) {
  const e = s.e2ee;
  const on = s.meeting?.encryption_mode === 'e2ee';
  bar.hidden = !on;
  if (!on) { replace(bar, []); return; }
  const status = e?.meeting || 'waiting_for_keys';
  bar.dataset.state = status;
  replace(bar, [
    h('span', { class: 'e2ee-state', 'data-testid': 'e2ee-status', 'data-state': status }, MEETING_LABEL[status] || status),
    e?.securityCode ? h('span', { class: 'e2ee-code', title: 'Compare this code aloud with the others: the same code means nobody else holds the keys', 'data-testid': 'e2ee-code' }, `Security code ${e.securityCode}`) : null,
  ]);
}

/**
 * One remote tile of an e2ee meeting: while we cannot decrypt that participant, show the avatar and say why.
 * Returns the label to show (null: none) and whether video may be shown.
 */
export function tileE2ee(s, pid) {
  if (s.meeting?.encryption_mode !== 'e2ee' || !pid) return { label: null, showVideo: true };
  const st = s.e2ee?.peers?.[pid] || 'waiting_for_keys';
  return { label: PEER_LABEL[st] || null, showVideo: st !== 'waiting_for_keys', state: st };
}
