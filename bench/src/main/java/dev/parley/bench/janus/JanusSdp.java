package dev.parley.bench.janus;

import dev.parley.media.sdp.Codec;
import dev.parley.media.sdp.MediaSection;
import dev.parley.media.sdp.SessionDescription;

import java.util.ArrayList;
import java.util.List;

/**
 * The SDP the load client needs toward Janus beyond its publisher offer ({@code Publisher.offer}, the same one the
 * Parley SFU gets): the answer to a VideoRoom subscription offer, its trickled candidate, and the DTLS role a remote
 * description gives the client. Built and read with media-core's SDP classes.
 */
final class JanusSdp {
    static final String MID_URI = "urn:ietf:params:rtp-hdrext:sdes:mid";

    private JanusSdp() {}

    /**
     * Answers a subscription offer: every audio / video section recvonly with Opus 48000/2 or VP8 90000 at the payload
     * type Janus offered (and its RTX, as a browser would accept; the client never NACKs), only the mid header
     * extension (the one the Parley bench's subscribers negotiate), BUNDLE over the accepted sections; anything else
     * (a data channel) is refused with port 0. {@code transportLines}: the client's ICE / DTLS lines ({@code
     * setup:active}: the client is the DTLS client, as against the Parley SFU).
     *
     * @throws IllegalArgumentException when an audio or video section lacks the bench's codec
     */
    static String answer(String offerSdp, String transportLines) {
        SessionDescription offer = SessionDescription.parse(offerSdp);
        List<MediaSection> media = new ArrayList<>();
        List<String> bundle = new ArrayList<>();
        for (MediaSection m : offer.media()) {
            boolean audio = m.kind().equals("audio"), video = m.kind().equals("video");
            if ((!audio && !video) || m.port() == 0) {
                MediaSection refused = new MediaSection(m.kind(), 0, m.proto(), m.formats());
                if (m.mid() != null) refused.lines().add("a=mid:" + m.mid());
                media.add(refused);
                continue;
            }
            Codec c = pick(m, audio ? "opus" : "VP8", audio ? 48000 : 90000);
            if (c == null) {
                throw new IllegalArgumentException("subscription offer m=" + m.kind() + " mid " + m.mid() + " has no "
                        + (audio ? "opus/48000/2" : "VP8/90000"));
            }
            Codec rtx = video ? m.rtxFor(c.payloadType()) : null;
            List<String> formats = new ArrayList<>(List.of(String.valueOf(c.payloadType())));
            if (rtx != null) formats.add(String.valueOf(rtx.payloadType()));
            MediaSection a = new MediaSection(m.kind(), 9, m.proto(), formats);
            List<String> l = a.lines();
            l.add("c=IN IP4 0.0.0.0");
            for (String t : transportLines.split("\r\n")) if (!t.isEmpty()) l.add(t);
            l.add("a=mid:" + m.mid());
            int midId = m.extensionId(MID_URI);
            if (midId > 0) l.add("a=extmap:" + midId + " " + MID_URI);
            l.add("a=" + answerDirection(m.direction()));
            l.add("a=rtpmap:" + c.payloadType() + " " + c.name() + "/" + c.clockRate() + (audio ? "/" + c.channels() : ""));
            if (c.fmtp() != null) l.add("a=fmtp:" + c.payloadType() + " " + c.fmtp());
            for (String fb : c.feedback()) if (fb.equals("nack") || fb.equals("nack pli")) l.add("a=rtcp-fb:" + c.payloadType() + " " + fb);
            if (rtx != null) {
                l.add("a=rtpmap:" + rtx.payloadType() + " rtx/" + rtx.clockRate());
                l.add("a=fmtp:" + rtx.payloadType() + " apt=" + c.payloadType());
            }
            media.add(a);
            bundle.add(m.mid());
        }
        List<String> session = new ArrayList<>(List.of("v=0", "o=- " + (System.nanoTime() & 0xFFFFFFFFL) + " 2 IN IP4 127.0.0.1",
                "s=-", "t=0 0", "a=group:BUNDLE " + String.join(" ", bundle)));
        return new SessionDescription(session, media).toString();
    }

    /** The client's host candidate, as trickled to Janus. */
    static String candidate(String address, int port) {
        return "candidate:1 1 udp 2130706431 " + address + " " + port + " typ host";
    }

    /** Whether the remote description takes the DTLS client role ({@code setup:active}), making the client the server. */
    static boolean remoteIsDtlsClient(String sdp) {
        SessionDescription d = SessionDescription.parse(sdp);
        return !d.media().isEmpty() && "active".equals(d.attribute(d.media().get(0), "setup"));
    }

    private static Codec pick(MediaSection m, String name, int clock) {
        for (Codec c : m.codecs().values()) {
            if (c.name().equalsIgnoreCase(name) && c.clockRate() == clock && (!name.equals("opus") || c.channels() == 2)) return c;
        }
        return null;
    }

    private static String answerDirection(String offered) {
        return switch (offered) {
            case "sendonly", "sendrecv" -> "recvonly";
            default -> "inactive";
        };
    }
}
