package dev.parley.media.sdp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One m= section: the m-line fields plus its other lines in order. */
public final class MediaSection {
    private final String kind;
    private final int port;
    private final String proto;
    private final List<String> formats;
    private final List<String> lines = new ArrayList<>();

    public MediaSection(String kind, int port, String proto, List<String> formats) {
        this.kind = kind;
        this.port = port;
        this.proto = proto;
        this.formats = formats;
    }

    static MediaSection parseMLine(String v) {
        String[] f = v.trim().split(" +");
        if (f.length < 3) throw new SdpException("malformed m-line");
        int port;
        try {
            String p = f[1].contains("/") ? f[1].substring(0, f[1].indexOf('/')) : f[1];
            port = Integer.parseInt(p);
        } catch (NumberFormatException e) {
            throw new SdpException("malformed m-line port");
        }
        if (port < 0 || port > 65535) throw new SdpException("m-line port out of range");
        List<String> fmts = new ArrayList<>();
        for (int i = 3; i < f.length; i++) {
            if (f[2].contains("RTP") && !f[i].matches("\\d{1,3}")) throw new SdpException("malformed payload type");
            fmts.add(f[i]);
        }
        return new MediaSection(f[0], port, f[2], fmts);
    }

    public String kind() { return kind; }
    public int port() { return port; }
    public String proto() { return proto; }
    public List<String> formats() { return formats; }
    public List<String> lines() { return lines; }

    public String attribute(String name) { return attribute(lines, name); }
    public List<String> attributes(String name) { return attributes(lines, name); }

    public String mid() { return attribute("mid"); }

    /** sendrecv / sendonly / recvonly / inactive (default sendrecv). */
    public String direction() {
        for (String d : new String[]{"sendonly", "recvonly", "inactive", "sendrecv"}) if (attribute(d) != null) return d;
        return "sendrecv";
    }

    /** Codecs from a=rtpmap, keyed by payload type, in m-line order. */
    public Map<Integer, Codec> codecs() {
        Map<Integer, Codec> r = new LinkedHashMap<>();
        for (String f : formats) {
            int pt;
            try { pt = Integer.parseInt(f); } catch (NumberFormatException e) { continue; }
            String map = null;
            for (String a : attributes("rtpmap")) if (a.startsWith(pt + " ")) { map = a.substring(a.indexOf(' ') + 1); break; }
            if (map == null) continue;
            String[] p = map.split("/");
            if (p.length < 2) throw new SdpException("malformed rtpmap");
            int clock;
            try { clock = Integer.parseInt(p[1].trim()); } catch (NumberFormatException e) { throw new SdpException("malformed rtpmap clock"); }
            int channels = 1;
            if (p.length > 2) {
                try { channels = Integer.parseInt(p[2].trim()); } catch (NumberFormatException e) { throw new SdpException("malformed rtpmap channels"); }
            }
            String fmtp = null;
            for (String a : attributes("fmtp")) if (a.startsWith(pt + " ")) { fmtp = a.substring(a.indexOf(' ') + 1); break; }
            List<String> fb = new ArrayList<>();
            for (String a : attributes("rtcp-fb")) if (a.startsWith(pt + " ")) fb.add(a.substring(a.indexOf(' ') + 1));
            r.put(pt, new Codec(pt, p[0].trim(), clock, channels, fmtp, fb));
        }
        return r;
    }

    /** The offered {@code rtx} payload type whose {@code apt} is {@code payloadType} (RFC 4588 §8.1), or null. */
    public Codec rtxFor(int payloadType) {
        for (Codec c : codecs().values()) {
            if (c.name().equalsIgnoreCase("rtx") && String.valueOf(payloadType).equals(c.param("apt"))) return c;
        }
        return null;
    }

    /** Header extensions: id → URI (a=extmap:id[/direction] uri). */
    public Map<Integer, String> extensions() {
        Map<Integer, String> r = new LinkedHashMap<>();
        for (String a : attributes("extmap")) {
            String[] p = a.split(" ");
            if (p.length < 2) throw new SdpException("malformed extmap");
            String id = p[0].contains("/") ? p[0].substring(0, p[0].indexOf('/')) : p[0];
            try {
                int i = Integer.parseInt(id);
                if (i < 1 || i > 255) throw new SdpException("extmap id out of range");
                r.put(i, p[1]);
            } catch (NumberFormatException e) {
                throw new SdpException("malformed extmap id");
            }
        }
        return r;
    }

    /** Id negotiated for an extension URI, or 0. */
    public int extensionId(String uri) {
        for (Map.Entry<Integer, String> e : extensions().entrySet()) if (e.getValue().equals(uri)) return e.getKey();
        return 0;
    }

    /** rids declared with direction send (a=rid:h send ...), in order. */
    public List<String> sendRids() {
        List<String> r = new ArrayList<>();
        for (String a : attributes("rid")) {
            String[] p = a.split(" ");
            if (p.length >= 2 && p[1].equals("send")) {
                if (!p[0].matches("[A-Za-z0-9_-]{1,16}")) throw new SdpException("malformed rid");
                r.add(p[0]);
            }
        }
        return r;
    }

    /** SSRCs from a=ssrc lines, in order, de-duplicated. */
    public List<Long> ssrcs() {
        List<Long> r = new ArrayList<>();
        for (String a : attributes("ssrc")) {
            String s = a.contains(" ") ? a.substring(0, a.indexOf(' ')) : a;
            try {
                long v = Long.parseLong(s);
                if (v < 0 || v > 0xFFFFFFFFL) throw new SdpException("ssrc out of range");
                if (!r.contains(v)) r.add(v);
            } catch (NumberFormatException e) {
                throw new SdpException("malformed ssrc");
            }
        }
        return r;
    }

    /** a=ssrc-group:FID primary rtx pairs (primary → rtx). */
    public Map<Long, Long> fidGroups() {
        Map<Long, Long> r = new LinkedHashMap<>();
        for (String a : attributes("ssrc-group")) {
            String[] p = a.split(" ");
            if (p.length == 3 && p[0].equals("FID")) {
                try { r.put(Long.parseLong(p[1]), Long.parseLong(p[2])); } catch (NumberFormatException e) { throw new SdpException("malformed ssrc-group"); }
            }
        }
        return r;
    }

    void appendTo(StringBuilder sb) {
        sb.append("m=").append(kind).append(' ').append(port).append(' ').append(proto);
        for (String f : formats) sb.append(' ').append(f);
        sb.append("\r\n");
        for (String l : lines) sb.append(l).append("\r\n");
    }

    static String attribute(List<String> lines, String name) {
        String prefix = "a=" + name;
        for (String l : lines) {
            if (l.equals(prefix)) return "";
            if (l.startsWith(prefix + ":")) return l.substring(prefix.length() + 1);
        }
        return null;
    }

    static List<String> attributes(List<String> lines, String name) {
        String prefix = "a=" + name + ":";
        List<String> r = new ArrayList<>();
        for (String l : lines) if (l.startsWith(prefix)) r.add(l.substring(prefix.length()));
        return r;
    }
}
