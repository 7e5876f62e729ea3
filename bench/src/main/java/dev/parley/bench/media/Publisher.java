package dev.parley.bench.media;

import dev.parley.media.rtp.RtpPacket;

import java.security.SecureRandom;

/**
 * A publishing participant's packet pattern, close to Chrome's: Opus 20 ms frames (~100 B) and VP8 with three
 * simulcast layers (q: 15 fps × 1 packet, h: 30 fps × 2, f: 30 fps × 4 of ~1000 B; keyframes on PLI and every
 * 5 s). Each packet's payload ends with its send time (System.nanoTime, same clock for every process here).
 * Without simulcast ({@link #Publisher(String, boolean)}) only the f layer is sent, as one plain VP8 stream: the
 * pattern of the side-by-side comparison with other servers (bench.janus), whose subscribers get the same packets.
 */
public final class Publisher implements ClientTransport.MediaSink {
    static final int MID_EXT = 4, RID_EXT = 10;
    private static final SecureRandom RANDOM = new SecureRandom();
    public final String pid;
    public ClientTransport transport;
    private final boolean simulcast;
    private final int audioSsrc = RANDOM.nextInt() | 1;
    private final int[] videoSsrc = {RANDOM.nextInt() | 1, RANDOM.nextInt() | 1, RANDOM.nextInt() | 1};
    private final int[] seq = new int[4];
    private final int[] pictureId = new int[3];
    private final boolean[] keyframeWanted = {true, true, true};
    private final byte[] buf = new byte[1600];
    private long frames;
    private static final String[] RIDS = {"q", "h", "f"};
    private static final int[] WIDTH = {320, 640, 1280}, HEIGHT = {180, 360, 720};
    private static final int[] PACKETS = {1, 2, 4}, SIZE = {400, 700, 1000};
    public long sent;
    /**
     * Payloads shaped as an end-to-end encrypted meeting's (docs/e2ee.md): after the bytes the SFU reads, which stay
     * clear (VP8 payload header: 10 bytes of a keyframe, 3 of a delta frame; the Opus TOC byte), an SFrame header
     * ({@link #SFRAME_HEADER} bytes), ciphertext (random bytes: the SFU cannot tell them from media) and the 16-byte
     * AES-GCM tag at the end of each frame. Set per run by {@link E2eeComparison}.
     */
    static volatile boolean e2eeShape;
    static final int SFRAME_HEADER = 3, SFRAME_TAG = 16;
    private final java.util.SplittableRandom noise = new java.util.SplittableRandom(RANDOM.nextLong());

    Publisher(String pid) { this(pid, true); }

    /** @param simulcast false: one VP8 stream (the f layer's pattern), no rid extension, its SSRC in the offer */
    public Publisher(String pid, boolean simulcast) {
        this.pid = pid;
        this.simulcast = simulcast;
    }

    public String offer(ClientTransport t) {
        String tl = t.transportLines();
        String video = simulcast
                ? "a=extmap:" + RID_EXT + " urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r\na=sendonly\r\n"
                  + "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\na=rtcp-fb:96 goog-remb\r\n"
                  + "a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\na=simulcast:send q;h;f\r\n"
                : "a=sendonly\r\na=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\na=rtcp-fb:96 goog-remb\r\n"
                  + "a=ssrc:" + (videoSsrc[2] & 0xFFFFFFFFL) + " cname:bench\r\n";
        return "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n"
                + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n" + tl + "a=mid:0\r\n"
                + "a=extmap:" + MID_EXT + " urn:ietf:params:rtp-hdrext:sdes:mid\r\na=sendonly\r\n"
                + "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\na=ssrc:" + (audioSsrc & 0xFFFFFFFFL) + " cname:bench\r\n"
                + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\n" + tl + "a=mid:1\r\n"
                + "a=extmap:" + MID_EXT + " urn:ietf:params:rtp-hdrext:sdes:mid\r\n" + video;
    }

    /** Called every 10 ms by the load driver; tick counts 10 ms steps. */
    public void tick(long tick) {
        if (tick % 2 == 0) sendAudio();
        if (tick % 3 == 0) {                      // ~30 fps
            frames++;
            if (frames % 150 == 0) { keyframeWanted[0] = keyframeWanted[1] = keyframeWanted[2] = true; }
            for (int l = simulcast ? 0 : 2; l < 3; l++) if (l > 0 || frames % 2 == 0) sendFrame(l);
        }
    }

    private int header(int ssrc, int stream, int pt, long ts, boolean marker, char mid, String rid) {
        byte[] b = buf;
        b[0] = (byte) 0x90;
        b[1] = (byte) ((marker ? 0x80 : 0) | pt);
        RtpPacket.setSequence(b, 0, seq[stream]++ & 0xFFFF);
        RtpPacket.setTimestamp(b, 0, ts);
        RtpPacket.setSsrc(b, 0, ssrc);
        int p = 12;
        b[p] = (byte) 0xBE; b[p + 1] = (byte) 0xDE;
        int words = rid == null ? 1 : 2;
        RtpPacket.writeUint16(b, p + 2, words);
        p += 4;
        int start = p;
        b[p++] = (byte) ((MID_EXT << 4)); b[p++] = (byte) mid;
        if (rid != null) { b[p++] = (byte) (RID_EXT << 4); b[p++] = (byte) rid.charAt(0); }
        while (p - start < words * 4) b[p++] = 0;
        return p;
    }

    private void sendAudio() {
        long now = System.nanoTime();
        int p = header(audioSsrc, 3, 111, now / 20_833, false, '0', null);   // 48 kHz clock
        boolean e2ee = e2eeShape;
        for (int i = 0; i < 92; i++) buf[p + i] = (byte) i;
        if (e2ee) fillNoise(p + 1, 91 + SFRAME_HEADER + SFRAME_TAG);         // TOC byte clear, the rest sealed
        p += e2ee ? 92 + SFRAME_HEADER + SFRAME_TAG : 92;
        p = stamp(p, now);
        send(p);
    }

    private void sendFrame(int layer) {
        long now = System.nanoTime();
        boolean key = keyframeWanted[layer];
        keyframeWanted[layer] = false;
        int packets = key ? PACKETS[layer] * 3 : PACKETS[layer];
        int pid = pictureId[layer]++ & 0x7FFF;
        for (int i = 0; i < packets; i++) {
            int p = header(videoSsrc[layer], layer, 96, now / 11_111, i == packets - 1, '1', simulcast ? RIDS[layer] : null);
            buf[p++] = (byte) (i == 0 ? 0x90 : 0x80);      // X, S on the first packet, partition 0
            buf[p++] = (byte) 0x80;                        // I: picture id present
            buf[p++] = (byte) (0x80 | (pid >>> 8));
            buf[p++] = (byte) pid;
            int body = SIZE[layer];
            boolean e2ee = e2eeShape;
            if (e2ee) {
                fillNoise(p, body);
                if (i == 0) body += SFRAME_HEADER;                 // the SFrame header follows the clear bytes
                if (i == packets - 1) body += SFRAME_TAG;          // the tag ends the frame
                if (body > SIZE[layer]) fillNoise(p, body);
            }
            if (i == 0) {
                buf[p] = (byte) (key ? 0x10 : 0x11);          // frame tag: P=0 keyframe
                buf[p + 1] = 0; buf[p + 2] = 0;
                buf[p + 3] = (byte) 0x9d; buf[p + 4] = 0x01; buf[p + 5] = 0x2a;
                buf[p + 6] = (byte) WIDTH[layer]; buf[p + 7] = (byte) (WIDTH[layer] >>> 8);
                buf[p + 8] = (byte) HEIGHT[layer]; buf[p + 9] = (byte) (HEIGHT[layer] >>> 8);
            }
            p += body;
            p = stamp(p, now);
            send(p);
        }
    }

    private void fillNoise(int from, int len) {
        for (int i = 0; i < len; i += 8) {
            long r = noise.nextLong();
            for (int k = 0; k < 8 && i + k < len; k++) buf[from + i + k] = (byte) (r >>> (8 * k));
        }
    }

    private int stamp(int p, long now) {
        for (int i = 7; i >= 0; i--) buf[p + 7 - i] = (byte) (now >>> (8 * i));
        return p + 8;
    }

    private void send(int len) {
        ClientTransport t = transport;
        int n = t.tx.protectRtp(buf, 0, len);
        if (n > 0) { t.send(buf, 0, n); sent++; }
    }

    @Override
    public void onSrtp(ClientTransport t, byte[] b, int len, long now) {
        PliRequests.read(t, b, len, videoSsrc, keyframeWanted);
    }
}
