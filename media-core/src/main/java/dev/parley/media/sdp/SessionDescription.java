package dev.parley.media.sdp;

import java.util.ArrayList;
import java.util.List;

/**
 * An SDP (RFC 8866) as ordered lines: session-level lines, then media sections. Parsing is strict about
 * structure (every line {@code x=value}, valid m-lines, bounded size) and lenient about unknown attributes,
 * which are kept so nothing is lost.
 */
public final class SessionDescription {
    public static final int MAX_LENGTH = 128 * 1024;
    public static final int MAX_MEDIA = 128;

    private final List<String> sessionLines;
    private final List<MediaSection> media;

    public SessionDescription(List<String> sessionLines, List<MediaSection> media) {
        this.sessionLines = sessionLines;
        this.media = media;
    }

    public static SessionDescription parse(String sdp) {
        if (sdp == null || sdp.isEmpty()) throw new SdpException("empty SDP");
        if (sdp.length() > MAX_LENGTH) throw new SdpException("SDP too large");
        List<String> session = new ArrayList<>();
        List<MediaSection> media = new ArrayList<>();
        MediaSection current = null;
        boolean first = true;
        for (String raw : sdp.split("\r?\n")) {
            String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
            if (line.isEmpty()) continue;
            if (line.length() < 2 || line.charAt(1) != '=' || line.charAt(0) < 'a' || line.charAt(0) > 'z') {
                throw new SdpException("malformed SDP line");
            }
            if (first && !line.startsWith("v=")) throw new SdpException("SDP must start with v=");
            first = false;
            if (line.startsWith("m=")) {
                if (media.size() >= MAX_MEDIA) throw new SdpException("too many media sections");
                current = MediaSection.parseMLine(line.substring(2));
                media.add(current);
            } else if (current == null) {
                session.add(line);
            } else {
                current.lines().add(line);
            }
        }
        return new SessionDescription(session, media);
    }

    public List<String> sessionLines() { return sessionLines; }
    public List<MediaSection> media() { return media; }

    /** Value of the first session-level attribute {@code a=name:value} (or "" for a flag), else null. */
    public String attribute(String name) { return MediaSection.attribute(sessionLines, name); }

    public List<String> attributes(String name) { return MediaSection.attributes(sessionLines, name); }

    /** Attribute from the media section, falling back to the session level (ice-ufrag, fingerprint, setup). */
    public String attribute(MediaSection m, String name) {
        String v = m.attribute(name);
        return v != null ? v : attribute(name);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (String l : sessionLines) sb.append(l).append("\r\n");
        for (MediaSection m : media) m.appendTo(sb);
        return sb.toString();
    }
}
