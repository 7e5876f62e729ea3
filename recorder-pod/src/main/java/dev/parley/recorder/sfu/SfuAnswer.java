package dev.parley.recorder.sfu;

import dev.parley.media.sdp.MediaSection;
import dev.parley.media.sdp.SdpException;
import dev.parley.media.sdp.SessionDescription;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * What the recorder needs from the SFU's SDP answer: ICE credentials, the DTLS fingerprint, the UDP host
 * candidate (the SFU is ICE-lite) and, per accepted m= section, the SSRC the SFU sends on it.
 */
public record SfuAnswer(String iceUfrag, String icePwd, String fingerprint, InetSocketAddress udpCandidate,
                        List<SlotSsrc> slots) {

    /** A recvonly section the SFU accepted: its mid, kind (audio/video) and the SFU's sending SSRC. */
    public record SlotSsrc(String mid, boolean video, int ssrc) {
    }

    public static SfuAnswer parse(String sdp) {
        SessionDescription a = SessionDescription.parse(sdp);
        String ufrag = null;
        String pwd = null;
        String fp = null;
        InetSocketAddress udp = null;
        List<SlotSsrc> slots = new ArrayList<>();
        for (MediaSection m : a.media()) {
            if (m.port() == 0) {
                continue; // rejected section
            }
            ufrag = ufrag != null ? ufrag : a.attribute(m, "ice-ufrag");
            pwd = pwd != null ? pwd : a.attribute(m, "ice-pwd");
            String f = a.attribute(m, "fingerprint");
            if (fp == null && f != null && f.toLowerCase(java.util.Locale.ROOT).startsWith("sha-256 ")) {
                fp = f.substring(8).trim();
            }
            for (String c : m.attributes("candidate")) {
                String[] p = c.split(" ");
                if (udp == null && p.length >= 6 && p[2].equalsIgnoreCase("udp")) {
                    udp = new InetSocketAddress(p[4], Integer.parseInt(p[5]));
                }
            }
            List<Long> ssrcs = m.ssrcs();
            if (m.mid() != null && !ssrcs.isEmpty()) {
                slots.add(new SlotSsrc(m.mid(), m.kind().equals("video"), (int) (long) ssrcs.get(0)));
            }
        }
        if (ufrag == null || pwd == null || fp == null || udp == null) {
            throw new SdpException("SFU answer lacks ICE credentials, a sha-256 fingerprint or a UDP candidate");
        }
        return new SfuAnswer(ufrag, pwd, fp, udp, List.copyOf(slots));
    }
}
