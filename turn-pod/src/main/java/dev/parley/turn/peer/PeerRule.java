package dev.parley.turn.peer;

/**
 * One explicit allow-list entry: an address prefix and a port range, {@code 10.42.0.0/16:40000-40100},
 * {@code 127.0.0.1:5000}, {@code [::1]:5000} or {@code [fd00::/8]:3478-3479} (IPv6 in brackets, so the port cannot be
 * mistaken for a group). It applies to UDP relays and to TCP Connect alike.
 */
public record PeerRule(Cidr cidr, int portMin, int portMax) {

    public PeerRule {
        if (portMin < 0 || portMax > 65535 || portMin > portMax) {
            throw new IllegalArgumentException("bad port range " + portMin + "-" + portMax);
        }
    }

    /** True if {@code s} carries a port part ({@code …:port} after an IPv4 prefix or a bracketed IPv6 one). */
    static boolean hasPort(String s) {
        String t = s.trim();
        if (t.startsWith("[")) {
            return true; // brackets are only needed with a port; a bracket without one is an error in parse
        }
        return t.indexOf(':') >= 0 && t.indexOf(':') == t.lastIndexOf(':') && t.indexOf('.') >= 0;
    }

    public static PeerRule parse(String s) {
        String t = s.trim();
        String host;
        String ports;
        if (t.startsWith("[")) {
            int close = t.indexOf(']');
            if (close < 0 || close + 1 >= t.length() || t.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("bad peer entry " + s + ": expected [IPv6[/prefix]]:port[-port]");
            }
            host = t.substring(1, close);
            ports = t.substring(close + 2);
        } else {
            int colon = t.lastIndexOf(':');
            if (colon < 0 || t.indexOf(':') != colon) {
                throw new IllegalArgumentException("bad peer entry " + s + ": expected IPv4[/prefix]:port[-port] or [IPv6[/prefix]]:port[-port]");
            }
            host = t.substring(0, colon);
            ports = t.substring(colon + 1);
        }
        int dash = ports.indexOf('-');
        try {
            int lo = Integer.parseInt((dash < 0 ? ports : ports.substring(0, dash)).trim());
            int hi = dash < 0 ? lo : Integer.parseInt(ports.substring(dash + 1).trim());
            return new PeerRule(Cidr.parse(host), lo, hi);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port in peer entry " + s, e);
        }
    }

    boolean matches(byte[] address, int port) {
        return port >= portMin && port <= portMax && cidr.contains(address);
    }

    boolean matchesV4(int address, int port) {
        return port >= portMin && port <= portMax && cidr.containsV4(address);
    }

    @Override
    public String toString() {
        String c = cidr.toString();
        String p = portMin == portMax ? String.valueOf(portMin) : portMin + "-" + portMax;
        return (cidr.isIpv4() ? c : "[" + c + "]") + ":" + p;
    }
}
