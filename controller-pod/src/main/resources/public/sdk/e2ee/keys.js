// Identity keys and key envelopes (docs/e2ee.md "Key distribution"). Each device makes an ECDH P-256 identity
// key pair (the private key is not extractable); a sender's media key reaches a participant wrapped with a key
// derived from ECDH(sender, recipient) by HKDF-SHA-256 and AES-256-GCM. The server relays only the public keys
// and these envelopes.

const subtle = () => globalThis.crypto.subtle;
const enc = new TextEncoder();

/** @param {Uint8Array} bytes */
export function b64url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** @param {string} text @returns {Uint8Array} */
export function fromB64url(text) {
  const s = atob(String(text).replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** A new identity: {privateKey (not extractable), publicKey, publicRaw: base64url of the 65-byte point}. */
export async function makeIdentity() {
  const pair = /** @type {CryptoKeyPair} */ (await subtle().generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']));
  const raw = new Uint8Array(await subtle().exportKey('raw', pair.publicKey));
  return { privateKey: pair.privateKey, publicKey: pair.publicKey, publicRaw: b64url(raw) };
}

/** @param {string} publicRaw base64url of an uncompressed P-256 point */
export async function importPublic(publicRaw) {
  return subtle().importKey('raw', /** @type {BufferSource} */ (fromB64url(publicRaw)), { name: 'ECDH', namedCurve: 'P-256' }, false, []);
}

/** The context every envelope is bound to (its AAD and HKDF info): a server cannot move it to another pair. */
export function wrapContext(meetingId, from, to) {
  return enc.encode(`parley e2ee key wrap v1|${meetingId}|${from}|${to}`);
}

/**
 * The AES-GCM key of the ordered pair (from, to), derived from our private key and their public key.
 * @param {CryptoKey} myPrivate @param {CryptoKey} theirPublic @param {Uint8Array} context
 */
export async function pairKey(myPrivate, theirPublic, context) {
  const shared = await subtle().deriveBits({ name: 'ECDH', public: theirPublic }, myPrivate, 256);
  const ikm = await subtle().importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  return subtle().deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: /** @type {BufferSource} */ (context) },
    ikm, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

/** Envelope plaintext: KID (8 bytes) | generation (4 bytes) | base key (16 bytes). */
export function packMediaKey(kid, generation, baseKey) {
  const out = new Uint8Array(28);
  const view = new DataView(out.buffer);
  view.setUint32(0, Math.floor(kid / 2 ** 32));
  view.setUint32(4, kid >>> 0);
  view.setUint32(8, generation >>> 0);
  out.set(baseKey, 12);
  return out;
}

/** @param {Uint8Array} bytes @returns {{kid:number, generation:number, baseKey:Uint8Array}|null} */
export function unpackMediaKey(bytes) {
  if (bytes.length !== 28) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { kid: view.getUint32(0) * 2 ** 32 + view.getUint32(4), generation: view.getUint32(8), baseKey: bytes.slice(12) };
}

/**
 * Wraps a media key for one recipient: {iv, ciphertext} (base64url).
 * @param {CryptoKey} key the pair key @param {Uint8Array} context @param {Uint8Array} plaintext
 */
export async function seal(key, context, plaintext) {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: /** @type {BufferSource} */ (context) }, key, /** @type {BufferSource} */ (plaintext)));
  return { iv: b64url(iv), ciphertext: b64url(ct) };
}

/** The plaintext of an envelope, or null when it does not verify (wrong sender, wrong recipient, tampered). */
export async function open(key, context, iv, ciphertext) {
  try {
    return new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: /** @type {BufferSource} */ (fromB64url(iv)), additionalData: /** @type {BufferSource} */ (context) },
      key, /** @type {BufferSource} */ (fromB64url(ciphertext))));
  } catch {
    return null;
  }
}

/**
 * The security code people compare aloud: SHA-256 over every participant's identity key (sorted by participant
 * id), shown as four groups of five digits. It changes whenever someone joins or leaves.
 * @param {Object<string, string>} identities participant id -> public key (base64url), ourselves included
 */
export async function securityCode(identities) {
  const text = Object.keys(identities).sort().map((p) => `${p}:${identities[p]}`).join('\n');
  const digest = new DataView(await subtle().digest('SHA-256', enc.encode(text)));
  const groups = [];
  for (let i = 0; i < 4; i++) groups.push(String(digest.getUint32(i * 4) % 100000).padStart(5, '0'));
  return groups.join(' ');
}
