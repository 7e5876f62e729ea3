package dev.parley.turn.peer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * Decides whether the relay may talk to a peer <em>endpoint</em> — address, port and protocol. Deny by default; what
 * is permitted:
 * <ol>
 *   <li>the SFUs' media ports as they publish them in the registry ({@link #registered}): the UDP media port for UDP
 *       relays, the ICE-TCP port for TCP Connect — no other port of their addresses;</li>
 *   <li>the explicit allow list: {@code CIDR:port[-port]} entries of {@code PARLEY_TURN_ALLOWED_PEERS}.</li>
 * </ol>
 * Bare CIDRs in {@code PARLEY_TURN_ALLOWED_PEERS} open nothing by themselves: they are the <em>SFU scope</em>, the
 * addresses registry entries must have to count (none given: any).
 *
 * <p>Never permitted, whatever the lists say: unspecified ({@code 0.0.0.0/8}, which Linux routes to loopback, and
 * {@code ::}), multicast, reserved/broadcast and link-local (incl. the metadata address 169.254.169.254). IPv6
 * spellings that embed IPv4 are decoded first: IPv4-mapped {@code ::ffff:a.b.c.d} is that IPv4 endpoint; the
 * translator spellings (IPv4-compatible, 6to4, NAT64) are judged as the IPv6 address they are, and refused outright
 * when the embedded IPv4 address is internal (an allowed internal host must not be reachable through a translator);
 * local-use NAT64 {@code 64:ff9b:1::/48} is refused whole. This closes the bypass classes of coturn's CVE-2020-26262.
 *
 * <p>Checks allocate nothing: registry endpoints are a sorted array searched by binary search, replaced whole (one
 * volatile read) when the registry changes.
 */
public final class PeerPolicy {
    public enum Protocol { UDP, TCP }

    private static final Logger LOG = LoggerFactory.getLogger(PeerPolicy.class);

    /** Never a peer, whatever the lists say. */
    private static final Cidr[] NEVER = cidrs(
            "0.0.0.0/8", // "this network", incl. 0.0.0.0 which Linux routes to loopback
            "169.254.0.0/16", // link-local, incl. cloud metadata 169.254.169.254
            "224.0.0.0/4", // multicast
            "240.0.0.0/4", // reserved, incl. broadcast 255.255.255.255
            "::/128", // unspecified
            "64:ff9b:1::/48", // local-use NAT64, see embeddedIpv4Offset
            "fe80::/10", // link-local
            "fd00:ec2::254/128", // AWS metadata (IPv6)
            "ff00::/8" // multicast
    );

    /** Internal IPv4 ranges no translator spelling (compatible, 6to4, NAT64) may lead to. */
    private static final Cidr[] INTERNAL_V4 = cidrs(
            "0.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8",
            "169.254.0.0/16", "192.0.0.0/24", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "198.18.0.0/15",
            "224.0.0.0/4", "240.0.0.0/4");

    private final PeerRule[] rules;
    private final Cidr[] sfuScope;
    private volatile PeerSet registered = PeerSet.EMPTY;
    private String registeredSignature = "";
    /** Grows whenever the registry set changes: the per-loop sweep then re-checks what allocations hold. */
    private volatile int generation;

    public PeerPolicy(List<PeerRule> rules, List<Cidr> sfuScope) {
        this.rules = rules.toArray(new PeerRule[0]);
        this.sfuScope = sfuScope.toArray(new Cidr[0]);
    }

    /**
     * Parses {@code PARLEY_TURN_ALLOWED_PEERS}: comma-separated {@code CIDR:port[-port]} rules ({@code [IPv6/len]:port}
     * for IPv6) and bare CIDRs (the SFU scope); empty or null means neither.
     */
    public static PeerPolicy fromAllowList(String commaSeparated) {
        List<PeerRule> rules = new ArrayList<>();
        List<Cidr> scope = new ArrayList<>();
        if (commaSeparated != null) {
            for (String s : commaSeparated.split(",")) {
                if (s.isBlank()) {
                    continue;
                }
                try {
                    if (PeerRule.hasPort(s)) {
                        rules.add(PeerRule.parse(s));
                    } else {
                        scope.add(Cidr.parse(s));
                    }
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("PARLEY_TURN_ALLOWED_PEERS: " + e.getMessage(), e);
                }
            }
        }
        return new PeerPolicy(rules, scope);
    }

    private static Cidr[] cidrs(String... s) {
        Cidr[] out = new Cidr[s.length];
        for (int i = 0; i < s.length; i++) {
            out[i] = Cidr.parse(s[i]);
        }
        return out;
    }

    /**
     * Replaces the registry endpoints with those of {@code sfus} (every SFU of the region, ACTIVE or DRAINING: a
     * draining SFU still carries calls). Entries whose address is not an IP literal, is never a peer, is a
     * translator spelling or lies outside the SFU scope are skipped and logged. Logs only when the set changes.
     */
    public synchronized void registered(Collection<SfuEndpoint> sfus) {
        PeerSet.Builder b = new PeerSet.Builder();
        TreeSet<String> accepted = new TreeSet<>();
        TreeSet<String> skipped = new TreeSet<>();
        for (SfuEndpoint e : sfus) {
            String why = null;
            byte[] a = literal(e.address());
            if (a == null) {
                why = "not an IP literal";
            } else {
                a = fold(a);
                if (a.length == 16 && embeddedIpv4Offset(a) >= 0) {
                    why = "IPv4 embedded in IPv6";
                } else if (matchesAny(NEVER, a)) {
                    why = "never a peer";
                } else if (sfuScope.length > 0 && !matchesAny(sfuScope, a)) {
                    why = "outside the SFU scope of PARLEY_TURN_ALLOWED_PEERS";
                }
            }
            if (why != null) {
                skipped.add(e.pod() + " (" + e.address() + ": " + why + ")");
                continue;
            }
            if (validPort(e.udpPort())) {
                b.add(a, e.udpPort(), Protocol.UDP);
                accepted.add(e.address() + " udp " + e.udpPort());
            }
            if (validPort(e.tcpPort())) {
                b.add(a, e.tcpPort(), Protocol.TCP);
                accepted.add(e.address() + " tcp " + e.tcpPort());
            }
        }
        String signature = accepted + " " + skipped;
        registered = b.build();
        if (!signature.equals(registeredSignature)) {
            registeredSignature = signature;
            generation++;
            LOG.info("peer policy: {} SFU media endpoints from the registry {}{}", accepted.size(), accepted,
                    skipped.isEmpty() ? "" : "; skipped " + skipped);
        }
    }

    private static boolean validPort(int p) {
        return p > 0 && p <= 65535;
    }

    private static byte[] literal(String s) {
        if (s == null || !s.matches("[0-9a-fA-F:.]+")) {
            return null; // never resolve names: the registry must carry addresses
        }
        try {
            return InetAddress.getByName(s).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** IPv4-mapped IPv6 folded to its 4 IPv4 bytes; anything else as is. */
    private static byte[] fold(byte[] a) {
        return a.length == 16 && isMapped(a) ? java.util.Arrays.copyOfRange(a, 12, 16) : a;
    }

    /**
     * True if the relay may send to / accept from {@code address}:{@code port} over {@code protocol}.
     *
     * @param address 4 or 16 raw bytes
     * @param scratch a 4-byte array the caller owns (keeps this allocation-free for IPv6 spellings of IPv4)
     */
    public boolean permits(byte[] address, int port, Protocol protocol, byte[] scratch) {
        if (address.length == 4) {
            return permitsV4(Cidr.toInt(address), port, protocol);
        }
        if (address.length != 16) {
            return false;
        }
        int off = embeddedIpv4Offset(address);
        if (off < 0) {
            return permitsV6(address, port, protocol);
        }
        if (off == 12 && isMapped(address)) {
            return permitsV4(embedded(address, 12), port, protocol);
        }
        System.arraycopy(address, off, scratch, 0, 4);
        return !matchesAny(INTERNAL_V4, scratch) && permitsV6(address, port, protocol);
    }

    /** Convenience for tests and the control path: allocates the scratch array. */
    public boolean permits(byte[] address, int port, Protocol protocol) {
        return permits(address, port, protocol, new byte[4]);
    }

    /** The IPv4 check on the address as a big-endian int (the relay path reads it from {@code Inet4Address.hashCode()}). */
    public boolean permitsV4(int v4, int port, Protocol protocol) {
        if (registered.containsV4(v4, port, protocol)) {
            return true; // registry entries were screened when the set was built
        }
        for (PeerRule r : rules) {
            if (r.matchesV4(v4, port)) {
                return !neverV4(v4);
            }
        }
        return false;
    }

    private boolean permitsV6(byte[] a, int port, Protocol protocol) {
        if (registered.containsV6(a, port, protocol)) {
            return true;
        }
        for (PeerRule r : rules) {
            if (r.matches(a, port)) {
                return !matchesAny(NEVER, a);
            }
        }
        return false;
    }

    /**
     * True if some port of {@code address} is permitted over {@code protocol}: for what is keyed by IP alone — the
     * permissions of TCP allocations, which admit inbound connections from any source port.
     */
    public boolean permitsAddress(byte[] address, Protocol protocol, byte[] scratch) {
        byte[] a = address;
        if (address.length == 16) {
            int off = embeddedIpv4Offset(address);
            if (off == 12 && isMapped(address)) {
                System.arraycopy(address, 12, scratch, 0, 4);
                a = scratch;
            } else if (off >= 0) {
                System.arraycopy(address, off, scratch, 0, 4);
                if (matchesAny(INTERNAL_V4, scratch)) {
                    return false;
                }
            }
        } else if (address.length != 4) {
            return false;
        }
        if (matchesAny(NEVER, a)) {
            return false;
        }
        PeerSet r = registered;
        if (a.length == 4 ? r.hasAddressV4(Cidr.toInt(a), protocol) : r.hasAddressV6(a, protocol)) {
            return true;
        }
        for (PeerRule rule : rules) {
            if (rule.cidr().contains(a)) {
                return true;
            }
        }
        return false;
    }

    private static boolean neverV4(int v4) {
        for (Cidr c : NEVER) {
            if (c.containsV4(v4)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matchesAny(Cidr[] list, byte[] a) {
        for (Cidr c : list) {
            if (c.contains(a)) {
                return true;
            }
        }
        return false;
    }

    private static int embedded(byte[] a, int off) {
        return ((a[off] & 0xFF) << 24) | ((a[off + 1] & 0xFF) << 16) | ((a[off + 2] & 0xFF) << 8) | (a[off + 3] & 0xFF);
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
        // decoded reliably: it stays IPv6 and NEVER refuses the whole /48.
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

    /** Changes whenever the registry endpoints change (see {@link #registered}). */
    public int generation() {
        return generation;
    }

    public int ruleCount() {
        return rules.length;
    }

    /** Registry endpoints currently permitted (UDP and TCP counted separately). */
    public int registeredCount() {
        return registered.size();
    }

    @Override
    public String toString() {
        return "PeerPolicy[rules=" + java.util.Arrays.toString(rules) + ", sfuScope=" + java.util.Arrays.toString(sfuScope) + "]";
    }
}
