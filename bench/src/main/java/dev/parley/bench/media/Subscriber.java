package dev.parley.bench.media;

import dev.parley.media.rtp.RtpPacket;
import org.HdrHistogram.Recorder;

import java.util.Map;

/**
 * A receiving participant: counts every packet by its (cleartext) header, and authenticates + decrypts every
 * 4th to read the send time at the end of the payload (latency) without the load client eating the CPU the
 * SFU is measured on.
 */
public final class Subscriber implements ClientTransport.MediaSink {
    public final String pid;
    final int slots;
    public ClientTransport transport;
    private final Recorder latencyMicros;
    private final Map<Integer, long[]> streams = new java.util.concurrent.ConcurrentHashMap<>();   // ssrc → {first ext seq, highest ext seq, received}
    private long counter;
    public volatile long received;
    public long authFailures;

    public Subscriber(String pid, int slots, Recorder latencyMicros) {
        this.pid = pid;
        this.slots = slots;
        this.latencyMicros = latencyMicros;
    }

    /**
     * {@code -Dbench.twcc=true}: offer transport-wide-cc, so the SFU runs its per-subscriber congestion control
     * (transport seq on every packet, send history, allocator) for these subscribers; they send no feedback, so
     * the feedback-processing share is measured separately by bench.bwe.BweCpuCost.
     */
    static final boolean TWCC = Boolean.getBoolean("bench.twcc");
    private static final String TWCC_LINE = TWCC
            ? "a=extmap:5 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n" : "";

    /**
     * With {@link #TWCC}: a REMB of 10 Mbit/s (sent with each consent check) so the SFU's estimator, which gets no
     * transport-cc feedback from this client, lets the allocator forward the same layer as without congestion
     * control: the comparison is then about the per-packet and per-subscriber work only.
     */
    void remb() {
        if (!TWCC || transport == null || transport.tx == null) return;
        byte[] b = new byte[128];
        int n = dev.parley.media.rtcp.Rtcp.writeRemb(b, 0, 1, 10_000_000, new int[]{1}, 1);
        n = transport.tx.protectRtcp(b, 0, n);
        if (n > 0) transport.send(b, 0, n);
    }

    public String offer(ClientTransport t) {
        String tl = t.transportLines();
        StringBuilder sb = new StringBuilder("v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE");
        for (int i = 0; i < 2 * slots; i++) sb.append(' ').append(i);
        sb.append("\r\n");
        for (int i = 0; i < slots; i++) {
            sb.append("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n").append(tl).append("a=mid:").append(2 * i)
                    .append("\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\n").append(TWCC_LINE)
                    .append("a=recvonly\r\na=rtpmap:111 opus/48000/2\r\n");
            // RTX offered as browsers do (the SFU then may pick SRTP AES-GCM for this connection); never NACKed here
            sb.append("m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 0.0.0.0\r\n").append(tl).append("a=mid:").append(2 * i + 1)
                    .append("\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\n").append(TWCC_LINE)
                    .append("a=recvonly\r\na=rtpmap:96 VP8/90000\r\n")
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
    public synchronized long[] totals() {
        long expected = 0, got = 0;
        for (long[] s : streams.values()) { expected += s[1] - s[0] + 1; got += s[2]; }
        return new long[]{expected, got};
    }
}
