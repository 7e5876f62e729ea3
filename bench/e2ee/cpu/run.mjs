// Encryption CPU of an e2ee sender in the browser (issue #16): headless Chromium runs page.mjs (one 720p camera's three
// layers from pc1 to pc2 in one page) with the SDK's frame encryption and decryption, and without; the browser's whole
// process tree's CPU (/proc) is read over the same window for both, alternating transport, e2ee, e2ee, transport
// (ABBA). The difference per second of media is what e2ee costs (encrypting and decrypting the three layers).
// usage: node run.mjs [rounds=2] [windowSeconds=20]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const sdkDir = path.join(root, 'controller-pod/src/main/resources/public/sdk');
const rounds = Number(process.argv[2] || 2), windowS = Number(process.argv[3] || 20);
const TICK = os.constants ? 100 : 100; // USER_HZ on Linux

const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html' };
const server = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://localhost');
  const file = u.pathname.startsWith('/sdk/') ? path.join(sdkDir, u.pathname.slice(5))
    : u.pathname.startsWith('/bench/') ? path.join(here, u.pathname.slice(7)) : null;
  if (!file || !file.startsWith(root) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;

function treeCpuTicks(rootPid) {
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      kids.set(Number(d), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch { /* gone */ }
  }
  let total = 0; const todo = [rootPid]; const seen = new Set();
  while (todo.length) {
    const p = todo.pop(); if (seen.has(p)) continue; seen.add(p);
    total += kids.get(p)?.ticks ?? 0;
    for (const [pid, k] of kids) if (k.ppid === p) todo.push(pid);
  }
  return total;
}

const browserServer = await chromium.launchServer({
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--no-first-run', '--autoplay-policy=no-user-gesture-required'],
});
const pid = browserServer.process().pid;
const browser = await chromium.connect(browserServer.wsEndpoint());
const page = await browser.newPage();
page.on('pageerror', (e) => console.error('page error:', e.message));
await page.goto(`http://localhost:${port}/bench/page.html`);
await page.waitForFunction(() => typeof window.startRun === 'function');

const results = { transport: [], e2ee: [] };
for (let r = 0; r < rounds; r++) {
  for (const e2ee of r % 2 === 0 ? [false, true] : [true, false]) {
    await page.evaluate((e) => window.startRun(e), e2ee);
    await page.waitForTimeout(8000);                                   // ICE, DTLS, the encoders ramp up
    const c0 = await page.evaluate(() => window.counts());
    const t0 = treeCpuTicks(pid), w0 = Date.now();
    await page.waitForTimeout(windowS * 1000);
    const t1 = treeCpuTicks(pid), w1 = Date.now();
    const c1 = await page.evaluate(() => window.counts());
    await page.evaluate(() => window.stopRun());
    const secs = (w1 - w0) / 1000, cores = (t1 - t0) / TICK / secs;
    const row = { cores, fps: (c1.encoded - c0.encoded) / secs, decodedFps: (c1.decoded - c0.decoded) / secs,
      kbps: (c1.bytes - c0.bytes) * 8 / 1000 / secs, encrypted: c1.tx ? (c1.tx.encrypted || 0) - (c0.tx?.encrypted || 0) : null,
      decrypted: c1.rx ? (c1.rx.decrypted || 0) - (c0.rx?.decrypted || 0) : null, load: os.loadavg()[0] };
    (e2ee ? results.e2ee : results.transport).push(row);
    console.log(`round ${r + 1}/${rounds} ${e2ee ? 'e2ee     ' : 'transport'}: browser ${cores.toFixed(3)} cores, ${row.fps.toFixed(1)} frames encoded/s`
      + ` (3 layers), ${row.decodedFps.toFixed(1)} decoded/s, ${row.kbps.toFixed(0)} kbit/s`
      + (e2ee ? `, ${(row.encrypted / secs).toFixed(1)} encrypted/s, ${(row.decrypted / secs).toFixed(1)} decrypted/s` : '')
      + `, load ${row.load.toFixed(2)}`);
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); const k = s.length; return k % 2 ? s[(k - 1) / 2] : (s[k / 2 - 1] + s[k / 2]) / 2; };
const t = med(results.transport.map((x) => x.cores)), e = med(results.e2ee.map((x) => x.cores));
const perRound = results.e2ee.map((x, i) => (x.cores - results.transport[i].cores).toFixed(3)).join(', ');
console.log(`e2ee encryption CPU: ${(e - t).toFixed(3)} cores per second of 720p three-layer video, encrypt + decrypt `
  + `(browser ${t.toFixed(3)} → ${e.toFixed(3)} cores, +${(100 * (e - t) / t).toFixed(1)} %; median of ${rounds} rounds; per round ${perRound})`);
await browser.close(); await browserServer.close(); server.close();
