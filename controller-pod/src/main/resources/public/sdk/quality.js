// Connection quality from WebRTC stats (W3C webrtc-stats): round-trip time, packet loss and whether the
// transport is connected at all. Pure so it can be tested without a network.

/**
 * @param {{connected:boolean, rttMs:number|null, lossPct:number|null}} m
 * @returns {'good'|'fair'|'poor'|'lost'|'unknown'}
 */
export function qualityLevel(m) {
  if (!m.connected) return 'lost';
  if (m.rttMs == null && m.lossPct == null) return 'unknown';
  const rtt = m.rttMs ?? 0;
  const loss = m.lossPct ?? 0;
  if (loss >= 10 || rtt >= 600) return 'poor';
  if (loss >= 3 || rtt >= 250) return 'fair';
  return 'good';
}

/** Worse of two levels (the UI shows the worse of the local and the server's view). */
export function worseQuality(a, b) {
  const order = ['unknown', 'good', 'fair', 'poor', 'lost'];
  return order.indexOf(a) >= order.indexOf(b) ? a : b;
}

/**
 * Loss percent over an interval from cumulative counters.
 * @param {{lost:number, received:number}|null} prev @param {{lost:number, received:number}} cur
 */
export function intervalLossPct(prev, cur) {
  if (!prev) return null;
  const lost = cur.lost - prev.lost;
  const recv = cur.received - prev.received;
  if (lost < 0 || recv < 0 || lost + recv === 0) return null;
  return (100 * lost) / (lost + recv);
}
