// Three video streams shaped like one 720p camera's three simulcast layers (1280x720, 640x360, 320x180 at 30 fps),
// sent from pc1 to pc2 in this page. With `e2ee`, each stream passes the SDK's frame encryption (WorkerCryptor, the
// path the SDK picks) on the way out and its decryption on the way in; without it, the same media goes as it is.
// A loopback pair cannot receive simulcast, so the three layers are three transceivers of one canvas source each scaled
// by the encoder (scaleResolutionDownBy), which is what a simulcast sender encodes and encrypts.
import { WorkerCryptor } from '/sdk/e2ee/transforms.js';

function canvasSource() {
  const cv = document.createElement('canvas');
  cv.width = 1280; cv.height = 720;
  const g = cv.getContext('2d');
  let n = 0;
  const timer = setInterval(() => {
    n++;
    g.fillStyle = `hsl(${(n * 7) % 360},70%,45%)`; g.fillRect(0, 0, 1280, 720);
    for (let i = 0; i < 40; i++) { g.fillStyle = `hsl(${(n * 13 + i * 29) % 360},80%,60%)`; g.fillRect((n * 9 + i * 97) % 1280, (i * 53 + n * 3) % 720, 90, 60); }
    g.fillStyle = '#000'; g.font = '48px sans-serif'; g.fillText(String(n), 40 + (n % 900), 360);
  }, 33);
  return { track: cv.captureStream(30).getVideoTracks()[0], stop: () => clearInterval(timer) };
}

window.startRun = async (e2ee) => {
  const tx = e2ee ? new WorkerCryptor({}) : null;
  const rx = e2ee ? new WorkerCryptor({}) : null;
  const pc1 = new RTCPeerConnection(tx ? tx.pcConfig() : {});
  const pc2 = new RTCPeerConnection(rx ? rx.pcConfig() : {});
  pc1.onicecandidate = (e) => e.candidate && pc2.addIceCandidate(e.candidate);
  pc2.onicecandidate = (e) => e.candidate && pc1.addIceCandidate(e.candidate);
  const src = canvasSource();
  const vp8 = RTCRtpReceiver.getCapabilities('video').codecs.filter((c) => c.mimeType === 'video/VP8');
  for (const [scale, bps] of [[1, 2_500_000], [2, 700_000], [4, 200_000]]) {
    const t = pc1.addTransceiver(src.track.clone(), { direction: 'sendonly', sendEncodings: [{ scaleResolutionDownBy: scale, maxBitrate: bps }] });
    t.setCodecPreferences(vp8);
  }
  if (tx) {
    tx.attach(pc1);
    const base = crypto.getRandomValues(new Uint8Array(16));
    await tx.setKey(7, base, 'bench', 1);
    await tx.setSendKey(7);
    await rx.setKey(7, base, 'bench', 1);
  }
  await pc1.setLocalDescription(await pc1.createOffer());
  await pc2.setRemoteDescription(pc1.localDescription);
  if (rx) rx.attach(pc2);
  await pc2.setLocalDescription(await pc2.createAnswer());
  await pc1.setRemoteDescription(pc2.localDescription);
  window.currentRun = { pc1, pc2, tx, rx, src };
};

/** Frames encoded, sent bytes, frames decoded so far; and the workers' counts (e2ee). */
window.counts = async () => {
  const r = window.currentRun;
  let encoded = 0, bytes = 0, decoded = 0;
  (await r.pc1.getStats()).forEach((s) => { if (s.type === 'outbound-rtp') { encoded += s.framesEncoded || 0; bytes += s.bytesSent || 0; } });
  (await r.pc2.getStats()).forEach((s) => { if (s.type === 'inbound-rtp') decoded += s.framesDecoded || 0; });
  return { encoded, bytes, decoded, tx: r.tx?.latest.stats ?? null, rx: r.rx?.latest.stats ?? null };
};

window.stopRun = () => {
  const r = window.currentRun;
  r.src.stop(); r.pc1.close(); r.pc2.close(); r.tx?.close(); r.rx?.close();
  window.currentRun = null;
};
