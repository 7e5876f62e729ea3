// SFrame frame format (RFC 9605, the subset Parley uses; docs/e2ee.md "Frame format").
//
//   encrypted frame = clear prefix | SFrame header | AES-GCM ciphertext | 16-byte tag
//
// The clear prefix is the part of the codec payload the SFU reads to route (VP8 payload header, Opus TOC byte);
// it is not encrypted but it is authenticated (it is the RFC's "metadata": AAD = header || prefix). The header is
// RFC 9605's: one config byte X|KKK|Y|CCC, then the key id (KID) and the counter (CTR) as big-endian integers.
// Cipher suite AES_128_GCM_SHA256_128 (0x0004): key and salt derived from the sender's base key with HKDF.

/** RFC 9605 cipher suite id of AES_128_GCM_SHA256_128. */
export const CIPHER_SUITE = 0x0004;
export const TAG_BYTES = 16;
export const NONCE_BYTES = 12;
/** The largest KID/CTR this code writes or reads: 2^53 - 1 (a JS number stays exact). */
export const MAX_VALUE = Number.MAX_SAFE_INTEGER;

/** Bytes needed for a value as a big-endian integer (1..8; 0 needs 1). */
function byteLength(v) {
  let n = 1;
  while (n < 8 && v >= 2 ** (8 * n)) n++;
  return n;
}

/**
 * The SFrame header of a key id and counter.
 * @param {number} kid @param {number} ctr @returns {Uint8Array}
 */
export function encodeHeader(kid, ctr) {
  for (const v of [kid, ctr]) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`sframe: KID/CTR must be a non-negative safe integer, got ${v}`);
  }
  const kidLen = kid < 8 ? 0 : byteLength(kid);
  const ctrLen = ctr < 8 ? 0 : byteLength(ctr);
  const out = new Uint8Array(1 + kidLen + ctrLen);
  const k = kidLen ? 0x80 | ((kidLen - 1) << 4) : kid << 4;
  const c = ctrLen ? 0x08 | (ctrLen - 1) : ctr;
  out[0] = k | c;
  writeInt(out, 1, kidLen, kid);
  writeInt(out, 1 + kidLen, ctrLen, ctr);
  return out;
}

function writeInt(buf, off, len, v) {
  for (let i = len - 1; i >= 0; i--) {
    buf[off + i] = v % 256;
    v = Math.floor(v / 256);
  }
}

function readInt(buf, off, len) {
  let v = 0;
  for (let i = 0; i < len; i++) v = v * 256 + buf[off + i];
  return v;
}

/**
 * Parses the header at `off`; null when the bytes cannot be a header (too short, or a KID/CTR beyond 2^53).
 * @param {Uint8Array} buf @param {number} [off=0]
 * @returns {{kid:number, ctr:number, length:number}|null}
 */
export function decodeHeader(buf, off = 0) {
  if (off >= buf.length) return null;
  const b = buf[off];
  const kidLen = b & 0x80 ? ((b >> 4) & 0x07) + 1 : 0;
  const ctrLen = b & 0x08 ? (b & 0x07) + 1 : 0;
  const length = 1 + kidLen + ctrLen;
  if (off + length > buf.length) return null;
  if (kidLen === 8 && buf[off + 1] > 0x1f) return null; // beyond 2^53: never written by us
  if (ctrLen === 8 && buf[off + 1 + kidLen] > 0x1f) return null;
  const kid = kidLen ? readInt(buf, off + 1, kidLen) : (b >> 4) & 0x07;
  const ctr = ctrLen ? readInt(buf, off + 1 + kidLen, ctrLen) : b & 0x07;
  return { kid, ctr, length };
}

/**
 * How many leading payload bytes stay clear for the SFU (docs/e2ee.md "Clear bytes"): VP8 key frame 10 (payload
 * header + start code + size, the SFU reads the P bit of the first byte), VP8 delta 3, Opus 1 (TOC byte), others 0
 * (VP9 and AV1 routing reads the RTP payload descriptor / dependency descriptor, which the browser writes itself).
 * @param {string} mimeType e.g. 'video/VP8' @param {string|undefined} frameType 'key'|'delta'|'empty'|undefined
 */
export function clearBytes(mimeType, frameType) {
  const m = String(mimeType || '').toLowerCase();
  if (m === 'video/vp8') return frameType === 'key' ? 10 : 3;
  if (m === 'audio/opus') return 1;
  return 0;
}

/**
 * The per-frame nonce: the salt XOR the counter, right-aligned (RFC 9605 §4.4.3).
 * @param {Uint8Array} salt 12 bytes @param {number} ctr
 */
export function nonce(salt, ctr) {
  const n = new Uint8Array(salt);
  let v = ctr;
  for (let i = NONCE_BYTES - 1; i >= 0 && v > 0; i--) {
    n[i] ^= v % 256;
    v = Math.floor(v / 256);
  }
  return n;
}

/** The HKDF `info` of the SFrame key or salt of one KID: label || KID (8 bytes) || cipher suite (2 bytes). */
export function hkdfInfo(label, kid) {
  const text = new TextEncoder().encode(`SFrame 1.0 Secret ${label} `);
  const out = new Uint8Array(text.length + 10);
  out.set(text);
  writeInt(out, text.length, 8, kid);
  writeInt(out, text.length + 8, 2, CIPHER_SUITE);
  return out;
}
