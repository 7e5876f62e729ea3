package dev.parley.bench.large;

import dev.parley.bench.media.ClientTransport;
import dev.parley.media.rtp.RtpPacket;

import java.util.ArrayList;
import java.util.List;

/**
 * A participant's subscribe side: offers {@code audioSlots} recvonly audio and {@code videoSlots} recvonly video
 * m-sections (the SDK's shape), learns each slot's SSRC from the SFU's answer ({@code a=ssrc} per m-section) and
 * counts, per slot, the packets that arrive and the highest extended sequence number (loss = gaps), from the clear
 * RTP header only (no decryption: the load client must not eat the CPU the SFUs are measured on). Packets on an SSRC
 * the answer did not declare are counted apart. Counters are written by the transport's receive thread only and read
 * by the driver between windows.
 */
final class SlotReceiver implements ClientTransport.MediaSink {
    final int audioSlots, videoSlots;
    ClientTransport transport;
    private int[] ssrc = new int[0];
    private boolean[] audio = new boolean[0];
    private String[] mid = new String[0];
    volatile long[] received = new long[0];
    volatile long[] highest = new long[0];
    volatile long unknown, rtx;
    private int[] rtxSsrc = new int[0];

    SlotReceiver(int audioSlots, int videoSlots) {
        this.audioSlots = audioSlots;
        this.videoSlots = videoSlots;
    }

    /** Audio slots get mids 0..a-1, video slots a..a+v-1; one BUNDLE group. */
    String offer(ClientTransport t) {
        String tl = t.transportLines();
        int n = audioSlots + videoSlots;
        StringBuilder sb = new StringBuilder("v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE");
        for (int i = 0; i < n; i++) sb.append(' ').append(i);
        sb.append("\r\n");
        for (int i = 0; i < n; i++) {
            if (i < audioSlots) {
                sb.append("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n").append(tl).append("a=mid:").append(i)
                        .append("\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=recvonly\r\na=rtpmap:111 opus/48000/2\r\n");
            } else {
                sb.append("m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 0.0.0.0\r\n").append(tl).append("a=mid:").append(i)
                        .append("\r\na=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r\n")
                        .append("a=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\na=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n");
            }
        }
        return sb.toString();
    }

    /** Reads the slots' SSRCs from the answer, before the transport connects. */
    void answer(String sdp) {
        List<Integer> ssrcs = new ArrayList<>();
        List<Boolean> kinds = new ArrayList<>();
        List<String> mids = new ArrayList<>();
        List<Integer> repairs = new ArrayList<>();
        boolean isAudio = false;
        String m = null;
        Integer first = null;
        for (String line : sdp.split("\r?\n")) {
            if (line.startsWith("m=")) {
                if (m != null && first != null) {
                    ssrcs.add(first);
                    kinds.add(isAudio);
                    mids.add(m);
                }
                isAudio = line.startsWith("m=audio");
                m = null;
                first = null;
            } else if (line.startsWith("a=mid:")) {
                m = line.substring(6).trim();
            } else if (line.startsWith("a=ssrc-group:FID ")) {
                String[] f = line.trim().split(" ");
                if (f.length == 3) repairs.add((int) Long.parseLong(f[2]));   // the slot's RTX SSRC (padding probes)
            } else if (line.startsWith("a=ssrc:") && first == null) {
                first = (int) Long.parseLong(line.substring(7, line.indexOf(' ')));
            }
        }
        if (m != null && first != null) {
            ssrcs.add(first);
            kinds.add(isAudio);
            mids.add(m);
        }
        int n = ssrcs.size();
        int[] s = new int[n];
        boolean[] a = new boolean[n];
        String[] md = new String[n];
        for (int i = 0; i < n; i++) {
            s[i] = ssrcs.get(i);
            a[i] = kinds.get(i);
            md[i] = mids.get(i);
        }
        rtxSsrc = repairs.stream().mapToInt(Integer::intValue).toArray();
        ssrc = s;
        audio = a;
        mid = md;
        highest = filled(n, -1);
        received = new long[n];
    }

    private static long[] filled(int n, long v) {
        long[] r = new long[n];
        java.util.Arrays.fill(r, v);
        return r;
    }

    int slots() {
        return ssrc.length;
    }

    boolean isAudio(int slot) {
        return audio[slot];
    }

    String mid(int slot) {
        return mid[slot];
    }

    @Override
    public void onSrtp(ClientTransport t, byte[] b, int len, long now) {
        if (len < 12 || RtpPacket.isRtcp(b, 0, len)) return;
        int s = RtpPacket.ssrc(b, 0);
        int[] ss = ssrc;
        for (int i = 0; i < ss.length; i++) {
            if (ss[i] == s) {
                int seq = RtpPacket.sequence(b, 0);
                long[] h = highest;
                long ext = h[i] < 0 ? seq : h[i] + RtpPacket.seqDelta(seq, (int) (h[i] & 0xFFFF));
                if (ext > h[i]) h[i] = ext;
                received[i]++;
                return;
            }
        }
        for (int r : rtxSsrc) {
            if (r == s) {
                rtx++;
                return;
            }
        }
        unknown++;
    }

    /** Counters now: received per slot, then highest per slot. */
    long[][] snapshot() {
        return new long[][]{received.clone(), highest.clone()};
    }
}
