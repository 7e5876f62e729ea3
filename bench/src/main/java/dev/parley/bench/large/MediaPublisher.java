package dev.parley.bench.large;

import dev.parley.bench.media.ClientTransport;
import dev.parley.bench.media.PliRequests;
import dev.parley.media.rtp.RtpPacket;

import java.security.SecureRandom;

/**
 * A participant's publish side as Chromium sends it, paced: a camera (VP8, three simulcast layers q/h/f: 1, 2 and 4
 * packets a frame, q at half the frame rate, keyframes on PLI and every 150 frames) or a microphone (Opus, the RFC
 * 6464 {@code ssrc-audio-level} extension the SFU's top-N reads, voice-activity bit on while talking). {@code pace}
 * divides every packet rate (1 = real time: audio 50 packets/s, video 30 fps) so a 2-core machine can carry a
 * thousand receivers; the sizes, layers and levels stay. Layers the SFU's dynacast turns off
 * ({@code publisher_layers}) are not sent, as the SDK turns those encodings off.
 */
final class MediaPublisher implements ClientTransport.MediaSink {
    static final int MID_EXT = 4, RID_EXT = 10, LEVEL_EXT = 1;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String[] RIDS = {"q", "h", "f"};
    private static final int[] WIDTH = {320, 640, 1280}, HEIGHT = {180, 360, 720};
    private static final int[] PACKETS = {1, 2, 4}, SIZE = {400, 700, 1000};

    final boolean video;
    ClientTransport transport;
    private final int pace;
    private final int audioSsrc = RANDOM.nextInt() | 1;
    private final int[] videoSsrc = {RANDOM.nextInt() | 1, RANDOM.nextInt() | 1, RANDOM.nextInt() | 1};
    private final int[] seq = new int[4];
    private final int[] pictureId = new int[3];
    private final boolean[] keyframeWanted = {true, true, true};
    /** Dynacast: layers the SFU asked for (all until told otherwise). */
    final boolean[] active = {true, true, true};
    private final byte[] buf = new byte[1600];
    private long frames;
    /** RFC 6464 level to send, 0 (loudest) … 127 (silence); set by the talk schedule. */
    volatile int level = 110;
    long sent;

    MediaPublisher(boolean video, int pace) {
        this.video = video;
        this.pace = Math.max(1, pace);
    }

    /**
     * The publish offer: only the m-section this publisher sends on (mid 0 audio or mid 1 video; a section that never
     * sends would still be a published track taking receivers' free slots), so track ids are {@code pid:0} / {@code pid:1}.
     */
    String offer(ClientTransport t) {
        String tl = t.transportLines();
        String head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE " + (video ? "1" : "0") + "\r\n";
        if (!video) {
            return head + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n" + tl + "a=mid:0\r\n"
                    + "a=extmap:" + LEVEL_EXT + " urn:ietf:params:rtp-hdrext:ssrc-audio-level\r\n"
                    + "a=extmap:" + MID_EXT + " urn:ietf:params:rtp-hdrext:sdes:mid\r\na=sendonly\r\n"
                    + "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\na=ssrc:"
                    + (audioSsrc & 0xFFFFFFFFL) + " cname:large\r\n";
        }
        return head + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\n" + tl + "a=mid:1\r\n"
                + "a=extmap:" + MID_EXT + " urn:ietf:params:rtp-hdrext:sdes:mid\r\n"
                + "a=extmap:" + RID_EXT + " urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r\na=sendonly\r\n"
                + "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\na=rtcp-fb:96 goog-remb\r\n"
                + "a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\na=simulcast:send q;h;f\r\n";
    }

    /** Called every 10 ms by the driver's clock; {@code tick} counts 10 ms steps. */
    void tick(long tick) {
        if (transport == null || transport.tx == null) return;
        if (!video) {
            if (tick % (2L * pace) == 0) sendAudio();
            return;
        }
        if (tick % (3L * pace) == 0) {                   // 30 fps / pace
            frames++;
            if (frames % 150 == 0) keyframeWanted[0] = keyframeWanted[1] = keyframeWanted[2] = true;
            for (int l = 0; l < 3; l++) if (active[l] && (l > 0 || frames % 2 == 0)) sendFrame(l);
        }
    }

    private int header(int ssrc, int stream, int pt, long ts, boolean marker, char mid, String rid, int audioLevel) {
        byte[] b = buf;
        b[0] = (byte) 0x90;
        b[1] = (byte) ((marker ? 0x80 : 0) | pt);
        RtpPacket.setSequence(b, 0, seq[stream]++ & 0xFFFF);
        RtpPacket.setTimestamp(b, 0, ts);
        RtpPacket.setSsrc(b, 0, ssrc);
        int p = 12;
        b[p] = (byte) 0xBE;
        b[p + 1] = (byte) 0xDE;
        RtpPacket.writeUint16(b, p + 2, 1);
        p += 4;
        b[p++] = (byte) (MID_EXT << 4);
        b[p++] = (byte) mid;
        if (rid != null) {
            b[p++] = (byte) (RID_EXT << 4);
            b[p++] = (byte) rid.charAt(0);
        } else {
            b[p++] = (byte) (LEVEL_EXT << 4);
            b[p++] = (byte) ((audioLevel < 67 ? 0x80 : 0) | audioLevel);   // V bit while talking
        }
        return p;
    }

    private void sendAudio() {
        long now = System.nanoTime();
        int p = header(audioSsrc, 3, 111, now / 20_833, false, '0', null, level);   // 48 kHz clock
        for (int i = 0; i < 92; i++) buf[p + i] = (byte) i;
        send(p + 92);
    }

    private void sendFrame(int layer) {
        long now = System.nanoTime();
        boolean key = keyframeWanted[layer];
        keyframeWanted[layer] = false;
        int packets = key ? PACKETS[layer] * 3 : PACKETS[layer];
        int pid = pictureId[layer]++ & 0x7FFF;
        for (int i = 0; i < packets; i++) {
            int p = header(videoSsrc[layer], layer, 96, now / 11_111, i == packets - 1, '1', RIDS[layer], 0);
            buf[p++] = (byte) (i == 0 ? 0x90 : 0x80);      // X, S on the first packet, partition 0
            buf[p++] = (byte) 0x80;                        // I: picture id present
            buf[p++] = (byte) (0x80 | (pid >>> 8));
            buf[p++] = (byte) pid;
            if (i == 0) {
                buf[p] = (byte) (key ? 0x10 : 0x11);          // frame tag: P=0 keyframe
                buf[p + 1] = 0;
                buf[p + 2] = 0;
                buf[p + 3] = (byte) 0x9d;
                buf[p + 4] = 0x01;
                buf[p + 5] = 0x2a;
                buf[p + 6] = (byte) WIDTH[layer];
                buf[p + 7] = (byte) (WIDTH[layer] >>> 8);
                buf[p + 8] = (byte) HEIGHT[layer];
                buf[p + 9] = (byte) (HEIGHT[layer] >>> 8);
            }
            send(p + SIZE[layer]);
        }
    }

    private void send(int len) {
        ClientTransport t = transport;
        int n = t.tx.protectRtp(buf, 0, len);
        if (n > 0) {
            t.send(buf, 0, n);
            sent++;
        }
    }

    @Override
    public void onSrtp(ClientTransport t, byte[] b, int len, long now) {
        PliRequests.read(t, b, len, videoSsrc, keyframeWanted);
    }
}
