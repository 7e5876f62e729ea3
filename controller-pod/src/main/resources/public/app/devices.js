// Camera and microphone: open, list, switch. Errors become sentences, never silent.

/** @returns {Promise<{cameras:MediaDeviceInfo[], microphones:MediaDeviceInfo[]}>} */
export async function listDevices() {
  const all = await navigator.mediaDevices.enumerateDevices();
  return { cameras: all.filter((d) => d.kind === 'videoinput'), microphones: all.filter((d) => d.kind === 'audioinput') };
}

/**
 * @param {{cameraId?:string, microphoneId?:string, video?:boolean, audio?:boolean}} o
 * @returns {Promise<{stream:MediaStream|null, error:string|null}>}
 */
export async function openDevices(o = {}) {
  const want = {
    audio: o.audio === false ? false : (o.microphoneId ? { deviceId: { exact: o.microphoneId } } : true),
    video: o.video === false ? false : { ...(o.cameraId ? { deviceId: { exact: o.cameraId } } : {}), width: { ideal: 640 }, height: { ideal: 360 }, frameRate: { ideal: 24 } },
  };
  if (!want.audio && !want.video) return { stream: new MediaStream(), error: null };
  try {
    return { stream: await navigator.mediaDevices.getUserMedia(want), error: null };
  } catch (e) {
    const name = e && e.name;
    const msg = name === 'NotAllowedError' ? 'The browser blocked the camera and microphone. Allow them in the address bar to be seen and heard.'
      : name === 'NotFoundError' ? 'No camera or microphone was found. You can still join and listen.'
      : name === 'NotReadableError' ? 'The camera or microphone is used by another application.'
      : 'The camera or microphone could not be opened.';
    return { stream: null, error: msg };
  }
}

/** Live input level 0..1 of an audio track (device preview meter). Returns a stop function. */
export function levelMeter(track, onLevel) {
  let ctx;
  try { ctx = new AudioContext(); } catch { return () => {}; }
  const src = ctx.createMediaStreamSource(new MediaStream([track]));
  const an = ctx.createAnalyser();
  an.fftSize = 512;
  src.connect(an);
  const buf = new Uint8Array(an.fftSize);
  let raf = 0;
  const tick = () => {
    an.getByteTimeDomainData(buf);
    let peak = 0;
    for (const v of buf) peak = Math.max(peak, Math.abs(v - 128));
    onLevel(Math.min(1, peak / 64));
    raf = requestAnimationFrame(tick);
  };
  tick();
  return () => { cancelAnimationFrame(raf); ctx.close().catch(() => {}); };
}
