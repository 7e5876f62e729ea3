package dev.parley.sfu.signaling;

import dev.parley.media.ice.IceCredentials;
import dev.parley.media.rtp.ExtensionUris;
import dev.parley.media.sdp.Codec;
import dev.parley.media.sdp.MediaSection;
import dev.parley.media.sdp.SdpException;
import dev.parley.media.sdp.SessionDescription;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Answers a browser's unified-plan offer as an ICE-lite, DTLS-passive SFU with BUNDLE and rtcp-mux.
 * Publish connections: the browser's sendonly sections become recvonly (simulcast rids accepted as recv).
 * Subscribe connections: the browser's recvonly slots become sendonly with an SSRC the SFU owns.
 * Codecs: Opus for audio; VP8 preferred, else H.264 constrained baseline (packetization-mode 1) for video —
 * except that a publisher whose offer lists VP9 profile 0 first (it called {@code setCodecPreferences}, e.g. to
 * send VP9 SVC) publishes VP9. Subscribe sections accept VP9 profile 0 next to their VP8/H.264 codec when offered,
 * so a slot can carry whichever codec the publisher it is mapped to sends.
 * RTX (RFC 4588) is accepted for the chosen video codec when the browser offers it: publishers then repair
 * upstream losses with RTX, and each subscribe slot gets its own RTX SSRC ({@code a=ssrc-group:FID}) for
 * retransmissions from the SFU's cache.
 */
public final class AnswerBuilder {
    /** transport-wide-cc both ways: the SFU sends transport-cc feedback to publishers (their browser's own
     *  estimator adapts the uplink) and estimates its send rate to subscribers from theirs (bwe package).
     *  goog-remb stays negotiated as a fallback and cap. */
    private static final Set<String> PUBLISH_EXTENSIONS = Set.of(ExtensionUris.MID, ExtensionUris.RID,
            ExtensionUris.REPAIRED_RID, ExtensionUris.ABS_SEND_TIME, ExtensionUris.AUDIO_LEVEL, ExtensionUris.TRANSPORT_CC);
    private static final Set<String> SUBSCRIBE_EXTENSIONS = Set.of(ExtensionUris.MID, ExtensionUris.ABS_SEND_TIME,
            ExtensionUris.AUDIO_LEVEL, ExtensionUris.TRANSPORT_CC);
    private static final SecureRandom RANDOM = new SecureRandom();

    public record Candidates(String address, int udpPort, int tcpPort) {}

    /** SSRCs the SFU already sends on a subscribe slot: the media stream and its RTX stream (0 = none yet). */
    public record SlotSsrcs(long ssrc, long rtxSsrc) {}

    public record Result(String answer, String remoteUfrag, String remotePwd, String remoteFingerprint, List<MediaPlan> media) {}

    private AnswerBuilder() {}

    /**
     * @param publish        true for the publish connection, false for subscribe
     * @param existingSlots  mid → SSRCs already used on this subscribe transport (kept across re-offers)
     */
    public static Result answer(String offerSdp, boolean publish, IceCredentials local, String fingerprint,
                                Candidates candidates, Map<String, SlotSsrcs> existingSlots) {
        SessionDescription offer = SessionDescription.parse(offerSdp);
        if (offer.media().isEmpty()) throw new SdpException("offer has no media");
        MediaSection first = offer.media().get(0);
        String ufrag = offer.attribute(first, "ice-ufrag"), pwd = offer.attribute(first, "ice-pwd");
        String fp = offer.attribute(first, "fingerprint");
        if (ufrag == null || pwd == null || ufrag.length() > 256 || pwd.length() > 256) throw new SdpException("offer lacks ICE credentials");
        if (fp == null || !fp.toLowerCase().startsWith("sha-256 ")) throw new SdpException("offer lacks a sha-256 fingerprint");
        String remoteFp = fp.substring(8).trim();
        if (!remoteFp.matches("([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}")) throw new SdpException("malformed fingerprint");

        List<String> session = new ArrayList<>();
        session.add("v=0");
        session.add("o=- " + (RANDOM.nextLong() & Long.MAX_VALUE) + " 2 IN IP4 " + candidates.address());
        session.add("s=parley");
        session.add("t=0 0");
        session.add("a=ice-lite");
        List<MediaPlan> plans = new ArrayList<>();
        List<MediaSection> sections = new ArrayList<>();
        List<String> bundle = new ArrayList<>();
        for (MediaSection m : offer.media()) {
            String mid = m.mid();
            if (mid == null || !mid.matches("[A-Za-z0-9_.-]{1,32}")) throw new SdpException("media section without a valid mid");
            Codec codec = publish ? pickPublishCodec(m) : pickCodec(m);
            boolean rtp = m.proto().contains("RTP") && m.port() != 0;
            if (!rtp || codec == null || !(m.kind().equals("audio") || m.kind().equals("video"))) {
                MediaSection r = new MediaSection(m.kind(), 0, m.proto(), m.formats().isEmpty() ? List.of("0") : List.of(m.formats().get(0)));
                r.lines().add("c=IN IP4 0.0.0.0");
                r.lines().add("a=mid:" + mid);
                r.lines().add("a=inactive");
                sections.add(r);
                plans.add(new MediaPlan(mid, m.kind(), false, false, 0, null, 0, Map.of(), List.of(), List.of(), 0, 0, List.of(), 0, 0, 0));
                continue;
            }
            bundle.add(mid);
            String dir = m.direction();
            boolean sfuSends = !publish;
            String answerDir;
            if (publish) answerDir = dir.equals("sendonly") || dir.equals("sendrecv") ? "recvonly" : "inactive";
            else answerDir = dir.equals("recvonly") || dir.equals("sendrecv") ? "sendonly" : "inactive";

            Map<String, Integer> ext = new LinkedHashMap<>();
            Set<String> allowed = publish ? PUBLISH_EXTENSIONS : SUBSCRIBE_EXTENSIONS;
            for (Map.Entry<Integer, String> e : m.extensions().entrySet()) {
                if (allowed.contains(e.getValue()) && e.getKey() <= 14) ext.put(e.getValue(), e.getKey());
            }
            List<String> rids = publish && m.kind().equals("video") ? m.sendRids() : List.of();
            Codec rtx = m.kind().equals("video") ? m.rtxFor(codec.payloadType()) : null;
            // a subscribe slot also takes VP9 (a publisher may send it), with its RTX when the primary codec has RTX
            Codec vp9 = !publish && m.kind().equals("video") && !isVp9(codec) ? vp9Profile0(m) : null;
            Codec vp9Rtx = vp9 != null && rtx != null ? m.rtxFor(vp9.payloadType()) : null;
            if (isVp9(codec)) { vp9 = codec; vp9Rtx = rtx; }
            long slotSsrc = 0, rtxSsrc = 0;
            if (sfuSends && !answerDir.equals("inactive")) {
                SlotSsrcs prev = existingSlots.get(mid);
                slotSsrc = prev != null ? prev.ssrc() : randomSsrc();
                if (rtx != null) rtxSsrc = prev != null && prev.rtxSsrc() != 0 ? prev.rtxSsrc() : randomSsrc();
            }
            List<String> formats = new ArrayList<>();
            formats.add(String.valueOf(codec.payloadType()));
            if (rtx != null) formats.add(String.valueOf(rtx.payloadType()));
            if (vp9 != null && vp9 != codec) {
                formats.add(String.valueOf(vp9.payloadType()));
                if (vp9Rtx != null) formats.add(String.valueOf(vp9Rtx.payloadType()));
            }
            MediaSection a = new MediaSection(m.kind(), 9, "UDP/TLS/RTP/SAVPF", formats);
            List<String> l = a.lines();
            l.add("c=IN IP4 " + candidates.address());
            l.add("a=rtcp:9 IN IP4 0.0.0.0");
            l.add("a=ice-ufrag:" + local.ufrag());
            l.add("a=ice-pwd:" + local.pwd());
            l.add("a=fingerprint:sha-256 " + fingerprint);
            l.add("a=setup:passive");
            l.add("a=mid:" + mid);
            for (Map.Entry<String, Integer> e : ext.entrySet()) l.add("a=extmap:" + e.getValue() + " " + e.getKey());
            l.add("a=" + answerDir);
            if (slotSsrc != 0) l.add("a=msid:parley-" + mid + " parley-track-" + mid);
            l.add("a=rtcp-mux");
            if (m.attribute("rtcp-rsize") != null) l.add("a=rtcp-rsize");
            if (codec.name().equalsIgnoreCase("opus")) {
                l.add("a=rtpmap:" + codec.payloadType() + " " + codec.name() + "/" + codec.clockRate()
                        + (codec.channels() > 1 ? "/" + codec.channels() : ""));
                String fmtp = "minptime=10;useinbandfec=1";
                if ("1".equals(codec.param("usedtx"))) fmtp += ";usedtx=1";
                if ("1".equals(codec.param("stereo"))) fmtp += ";stereo=1";
                l.add("a=fmtp:" + codec.payloadType() + " " + fmtp);
                if (ext.containsKey(ExtensionUris.TRANSPORT_CC) && codec.feedback().contains("transport-cc")) {
                    l.add("a=rtcp-fb:" + codec.payloadType() + " transport-cc");
                }
            } else {
                videoCodecLines(l, codec, rtx, ext);
                if (vp9 != null && vp9 != codec) videoCodecLines(l, vp9, vp9Rtx, ext);
            }
            if (!rids.isEmpty() && m.attribute("simulcast") != null) {
                for (String rid : rids) l.add("a=rid:" + rid + " recv");
                l.add("a=simulcast:recv " + String.join(";", rids));
            }
            if (slotSsrc != 0) {
                if (rtxSsrc != 0) l.add("a=ssrc-group:FID " + slotSsrc + " " + rtxSsrc);
                for (long s : rtxSsrc != 0 ? List.of(slotSsrc, rtxSsrc) : List.of(slotSsrc)) {
                    l.add("a=ssrc:" + s + " cname:parley-sfu");
                    l.add("a=ssrc:" + s + " msid:parley-" + mid + " parley-track-" + mid);
                }
            }
            l.add("a=candidate:1 1 udp 2130706431 " + candidates.address() + " " + candidates.udpPort() + " typ host");
            l.add("a=candidate:2 1 tcp 1518280447 " + candidates.address() + " " + candidates.tcpPort() + " typ host tcptype passive");
            l.add("a=end-of-candidates");
            sections.add(a);
            plans.add(new MediaPlan(mid, m.kind(), !answerDir.equals("inactive"), sfuSends, codec.payloadType(), codec.name(),
                    codec.clockRate(), Map.copyOf(ext), rids, primarySsrcs(m), slotSsrc,
                    rtx == null ? 0 : rtx.payloadType(), rtx == null ? List.of() : List.copyOf(m.fidGroups().values()), rtxSsrc,
                    vp9 == null ? 0 : vp9.payloadType(), vp9Rtx == null ? 0 : vp9Rtx.payloadType()));
        }
        if (!bundle.isEmpty()) session.add(4, "a=group:BUNDLE " + String.join(" ", bundle));
        session.add("a=msid-semantic: WMS *");
        return new Result(new SessionDescription(session, sections).toString(), ufrag, pwd, remoteFp, plans);
    }

    private static long randomSsrc() { return (RANDOM.nextInt() & 0xFFFFFFFFL) | 1; }

    /** rtpmap, fmtp and feedback of one video codec and its RTX. */
    private static void videoCodecLines(List<String> l, Codec codec, Codec rtx, Map<String, Integer> ext) {
        l.add("a=rtpmap:" + codec.payloadType() + " " + codec.name() + "/" + codec.clockRate());
        if (codec.fmtp() != null && codec.name().equalsIgnoreCase("H264")) l.add("a=fmtp:" + codec.payloadType() + " " + codec.fmtp());
        if (isVp9(codec)) l.add("a=fmtp:" + codec.payloadType() + " profile-id=0");
        for (String fb : List.of("nack", "nack pli", "ccm fir", "goog-remb")) {
            if (codec.feedback().contains(fb)) l.add("a=rtcp-fb:" + codec.payloadType() + " " + fb);
        }
        if (ext.containsKey(ExtensionUris.TRANSPORT_CC) && codec.feedback().contains("transport-cc")) {
            l.add("a=rtcp-fb:" + codec.payloadType() + " transport-cc");
        }
        if (rtx != null) {
            l.add("a=rtpmap:" + rtx.payloadType() + " rtx/" + codec.clockRate());
            l.add("a=fmtp:" + rtx.payloadType() + " apt=" + codec.payloadType());
        }
    }

    static boolean isVp9(Codec c) { return c != null && c.name().equalsIgnoreCase("VP9"); }

    /** VP9 profile 0 (8-bit 4:2:0; no profile-id means 0, RFC 9628 §6), or null. */
    static Codec vp9Profile0(MediaSection m) {
        for (Codec c : m.codecs().values()) {
            if (isVp9(c) && c.clockRate() == 90000 && (c.param("profile-id") == null || "0".equals(c.param("profile-id")))) return c;
        }
        return null;
    }

    /**
     * A publisher's video codec: VP9 profile 0 when the offer lists it before any other media codec (the
     * browser was asked to prefer it), else as {@link #pickCodec}. Chromium lists VP8 first by default.
     */
    static Codec pickPublishCodec(MediaSection m) {
        if (m.kind().equals("video")) {
            for (Codec c : m.codecs().values()) {
                String n = c.name().toLowerCase(java.util.Locale.ROOT);
                if (n.equals("rtx") || n.equals("red") || n.equals("ulpfec") || n.equals("flexfec-03")) continue;
                if (isVp9(c) && c.equals(vp9Profile0(m))) return c;
                break;
            }
        }
        return pickCodec(m);
    }

    /** Opus for audio; VP8, else H.264 constrained baseline with packetization-mode 1, for video. */
    static Codec pickCodec(MediaSection m) {
        Map<Integer, Codec> codecs = m.codecs();
        if (m.kind().equals("audio")) {
            for (Codec c : codecs.values()) if (c.name().equalsIgnoreCase("opus") && c.clockRate() == 48000) return c;
            return null;
        }
        for (Codec c : codecs.values()) if (c.name().equalsIgnoreCase("VP8")) return c;
        for (Codec c : codecs.values()) if (c.isH264ConstrainedBaseline()) return c;
        return null;
    }

    private static List<Long> primarySsrcs(MediaSection m) {
        List<Long> all = new ArrayList<>(m.ssrcs());
        all.removeAll(m.fidGroups().values());
        return all;
    }
}
