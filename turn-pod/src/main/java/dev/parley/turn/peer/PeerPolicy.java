package dev.parley.turn.peer;

import java.util.ArrayList;
import java.util.List;

/**
 * Decides whether the relay may talk to a peer address. Applied on every path: CreatePermission, ChannelBind, Send
 * and packets arriving from peers.
 *
 * <p>IPv6 spellings that embed an IPv4 address are decoded first (IPv4-mapped {@code ::ffff:a.b.c.d},
 * IPv4-compatible {@code ::a.b.c.d}, 6to4 {@code 2002:AABB:CCDD::/48}, NAT64 {@code 64:ff9b::/96}); local-use NAT64
 * {@code 64:ff9b:1::/48} is denied whole. Then the explicit allow list, then the deny list (see
 * {@link #permits(byte[], byte[])}). This closes the class of bypasses behind coturn's CVE-2020-26262 (0.0.0.0 and
 * {@code ::} reaching loopback) and the IPv4-in-IPv6 spellings of loopback and metadata addresses.
 */
public final class PeerPolicy {
    /** Ranges nobody should reach through a public relay unless explicitly allowed. */
    private static final Cidr[] DENIED = cidrs(
            // IPv4
            "0.0.0.0/8", // "this network", incl. 0.0.0.0 which Linux routes to loopback
            "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", // RFC 1918
            "100.64.0.0/10", // CGNAT
            "127.0.0.0/8", // loopback
            "169.254.0.0/16", // link-local, incl. cloud metadata 169.254.169.254
            "192.0.0.0/24", // IETF protocol assignments
            "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", // documentation
            "198.18.0.0/15", // benchmarking
            "224.0.0.0/4", // multicast
            "240.0.0.0/4", // reserved, incl. broadcast 255.255.255.255
            // IPv6
            "::/128", "::1/128", // unspecified, loopback
            "64:ff9b:1::/48", // local-use NAT64, see embeddedIpv4Offset
            "::/96", // IPv4-compatible (deprecated): the embedded address is judged too, then this refuses the form
            "100::/64", // discard-only
            "2001:db8::/32", // documentation
            "3fff::/20", // documentation (RFC 9637)
            "2001::/23", // IETF protocol assignments (Teredo, benchmarking 2001:2::/48, ORCHID)
            "fc00::/7", // unique local, incl. AWS metadata fd00:ec2::254
            "fe80::/10", // link-local
            "fec0::/10", // deprecated site-local
            "ff00::/8" // multicast
    );

    private final Cidr[] allowed;

    public PeerPolicy(List<Cidr> allowed) {
        this.allowed = allowed.toArray(new Cidr[0]);
    }

    /** Parses {@code PARLEY_TURN_ALLOWED_PEERS}: comma-separated CIDRs; empty or null means none. */
    public static PeerPolicy fromAllowList(String commaSeparated) {
        List<Cidr> list = new ArrayList<>();
        if (commaSeparated != null) {
            for (String s : commaSeparated.split(",")) {
                if (!s.isBlank()) {
                    list.add(Cidr.parse(s));
                }
            }
        }
        return new PeerPolicy(list);
    }

    private static Cidr[] cidrs(String... s) {
        Cidr[] out = new Cidr[s.length];
        for (int i = 0; i < s.length; i++) {
            out[i] = Cidr.parse(s[i]);
        }
        return out;
    }

    /**
     * True if the relay may send to / accept from {@code address} (4 or 16 raw bytes).
     *
     * <p>IPv4 and IPv4-mapped addresses are judged as IPv4: allow list first, then deny list. The translation
     * spellings (IPv4-compatible, 6to4, NAT64) are judged twice and must pass both: the embedded IPv4 address against
     * the deny list <em>without</em> the allow-list exemption (an allowed internal host must not be reachable
     * through a translator spelling), and the IPv6 address itself.
     *
     * @param scratch a 4-byte array the caller owns, used for the embedded IPv4 address (keeps this allocation-free)
     */
    public boolean permits(byte[] address, byte[] scratch) {
        if (address.length == 4) {
            return judge(address, true);
        }
        if (address.length != 16) {
            return false;
        }
        int off = embeddedIpv4Offset(address);
        if (off < 0) {
            return judge(address, true);
        }
        System.arraycopy(address, off, scratch, 0, 4);
        if (off == 12 && isMapped(address)) {
            return judge(scratch, true);
        }
        return judge(scratch, false) && judge(address, true);
    }

    private boolean judge(byte[] a, boolean allowListApplies) {
        if (allowListApplies) {
            for (Cidr c : allowed) {
                if (c.contains(a)) {
                    return true;
                }
            }
        }
        for (Cidr c : DENIED) {
            if (c.contains(a)) {
                return false;
            }
        }
        return true;
    }

    public boolean permits(byte[] address) {
        return permits(address, new byte[4]);
    }

    private static boolean isMapped(byte[] a) {
        return zero(a, 0, 10) && (a[10] & 0xFF) == 0xFF && (a[11] & 0xFF) == 0xFF;
    }

    /**
     * Where an IPv6 address embeds an IPv4 address: 12 for IPv4-mapped {@code ::ffff:a.b.c.d}, IPv4-compatible
     * {@code ::a.b.c.d} (but not {@code ::} or {@code ::1}, which are themselves) and NAT64 {@code 64:ff9b::/96};
     * 2 for 6to4 {@code 2002:AABB:CCDD::/48}; -1 otherwise.
     */
    static int embeddedIpv4Offset(byte[] a) {
        if (isMapped(a)) {
            return 12;
        }
        if (zero(a, 0, 12) && !(a[12] == 0 && a[13] == 0 && a[14] == 0 && (a[15] == 0 || a[15] == 1))) {
            return 12;
        }
        if ((a[0] & 0xFF) == 0x20 && (a[1] & 0xFF) == 0x02) {
            return 2;
        }
        if (a[0] == 0 && (a[1] & 0xFF) == 0x64 && (a[2] & 0xFF) == 0xFF && (a[3] & 0xFF) == 0x9B && zero(a, 4, 12)) {
            return 12;
        }
        // 64:ff9b:1::/48 (RFC 8215 local-use NAT64) can embed IPv4 at several prefix lengths, so it cannot be
        // decoded reliably: it stays IPv6 and the deny list refuses the whole /48.
        return -1;
    }

    private static boolean zero(byte[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return true;
    }

    public int allowListSize() {
        return allowed.length;
    }
}
