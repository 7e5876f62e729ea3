package dev.parley.media.sdp;

import java.util.List;

/** A payload type offered in an m= section (a=rtpmap, a=fmtp, a=rtcp-fb). */
public record Codec(int payloadType, String name, int clockRate, int channels, String fmtp, List<String> feedback) {
    /** fmtp parameter value (e.g. "apt", "profile-level-id"), or null. */
    public String param(String key) {
        if (fmtp == null) return null;
        for (String kv : fmtp.split(";")) {
            String[] p = kv.trim().split("=", 2);
            if (p.length == 2 && p[0].trim().equalsIgnoreCase(key)) return p[1].trim();
        }
        return null;
    }

    /** H.264 constrained baseline (profile_idc 0x42, constraint_set1) with packetization-mode=1. */
    public boolean isH264ConstrainedBaseline() {
        String pli = param("profile-level-id");
        return name.equalsIgnoreCase("H264") && pli != null && pli.length() == 6
                && pli.substring(0, 4).equalsIgnoreCase("42e0") && "1".equals(param("packetization-mode"));
    }
}
