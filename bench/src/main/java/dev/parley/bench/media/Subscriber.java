package dev.parley.bench.media;

import dev.parley.media.rtp.RtpPacket;
import org.HdrHistogram.Recorder;

import java.util.Map;

/**
 * A receiving participant: counts every packet by its (cleartext) header, and authenticates + decrypts every
 * 4th to read the send time at the end of the payload (latency) without the load client eating the CPU the
 * SFU is measured on.
 */
final class Subscriber implements ClientTransport.MediaSink {
    final String pid;
    final int slots;
    ClientTransport transport;
    private final Recorder latencyMicros;
    private final Map<Integer, long[]> streams = new java.util.concurrent.ConcurrentHashMap<>();   // ssrc → {first ext seq, highest ext seq, received}
    private long counter;
    volatile long received;
    long authFailures;

    Subscriber(String pid, int slots, Recorder latencyMicros) {
        this.pid = pid;
        this.slots = slots;
        this.latencyMicros = latencyMicros;
    }

    String offer(ClientTransport t) {
        String tl = t.transportLines();
        StringBuilder sb = new StringBuilder("v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE");
        for (int i = 0; i < 2 * slots; i++) sb.append(' ').append(i);
        sb.append("\r\n");
        for (int i = 0; i < slots; i++) {
            sb.append("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n").append(tl).append("a=mid:").append(2 * i)
                    .append("\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=recvonly\r\na=rtpmap:111 opus/48000/2\r\n");
            // RTX offered as browsers do (the SFU then may pick SRTP AES-GCM for this connection); never NACKed here
            sb.append("m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 0.0.0.0\r\n").append(tl).append("a=mid:").append(2 * i + 1)
                    .append("\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r\n")
                    .append("a=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\na=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n");
        }
        return sb.toString();
    }

    @Override
    public void onSrtp(ClientTransport t, byte[] b, int len, long now) {
        if (RtpPacket.isRtcp(b, 0, len) || len < 12) return;
        int ssrc = RtpPacket.ssrc(b, 0);
        int seq = RtpPacket.sequence(b, 0);
        long[] s = streams.computeIfAbsent(ssrc, k -> new long[]{-1, -1, 0});
        long ext;
        if (s[1] < 0) { ext = seq; s[0] = seq; }
        else {
            ext = s[1] + RtpPacket.seqDelta(seq, (int) (s[1] & 0xFFFF));
        }
        if (ext > s[1]) s[1] = ext;
        s[2]++;
        received++;
        if ((counter++ & 3) == 0) {
            int n = t.rx.unprotectRtp(b, 0, len);
            if (n < 0) { authFailures++; return; }
            long sentAt = 0;
            for (int i = 0; i < 8; i++) sentAt = (sentAt << 8) | (b[n - 8 + i] & 0xFF);
            long micros = (now - sentAt) / 1000;
            if (micros >= 0 && micros < 10_000_000) latencyMicros.recordValue(micros);
        }
    }

    /** {expected, received} over every stream so far. */
    synchronized long[] totals() {
        long expected = 0, got = 0;
        for (long[] s : streams.values()) { expected += s[1] - s[0] + 1; got += s[2]; }
        return new long[]{expected, got};
    }
}
