package dev.parley.turn.peer;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** An address prefix over raw address bytes (4 or 16). Immutable; {@link #contains} does not allocate. */
public final class Cidr {
    private final byte[] network;
    private final int prefix;
    /** IPv4 only: the network and mask as ints, for the allocation-free {@link #containsV4}. */
    private final int network4;
    private final int mask4;

    private Cidr(byte[] network, int prefix) {
        this.network = network;
        this.prefix = prefix;
        this.mask4 = network.length == 4 && prefix > 0 ? -1 << (32 - prefix) : 0;
        this.network4 = network.length == 4 ? toInt(network) & mask4 : 0;
    }

    static int toInt(byte[] a) {
        return ((a[0] & 0xFF) << 24) | ((a[1] & 0xFF) << 16) | ((a[2] & 0xFF) << 8) | (a[3] & 0xFF);
    }

    /** Parses {@code 10.0.0.0/8}, {@code fc00::/7} or a bare address (a /32 or /128). */
    public static Cidr parse(String s) {
        String t = s.trim();
        int slash = t.indexOf('/');
        String host = slash < 0 ? t : t.substring(0, slash);
        byte[] addr;
        try {
            if (!host.matches("[0-9a-fA-F:.]+")) {
                throw new IllegalArgumentException("not an IP literal: " + s);
            }
            addr = InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bad CIDR " + s, e);
        }
        int bits = addr.length * 8;
        int prefix = slash < 0 ? bits : Integer.parseInt(t.substring(slash + 1));
        if (prefix < 0 || prefix > bits) {
            throw new IllegalArgumentException("bad prefix length in " + s);
        }
        return new Cidr(mask(addr, prefix), prefix);
    }

    private static byte[] mask(byte[] addr, int prefix) {
        byte[] n = addr.clone();
        for (int i = 0; i < n.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - 8 * i));
            n[i] &= (byte) (0xFF << (8 - keep));
        }
        return n;
    }

    public boolean contains(byte[] addr) {
        if (addr.length != network.length) {
            return false;
        }
        int full = prefix / 8;
        for (int i = 0; i < full; i++) {
            if (addr[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int m = (0xFF << (8 - rest)) & 0xFF;
        return (addr[full] & m) == (network[full] & 0xFF);
    }

    /** True if this is an IPv4 prefix containing {@code v4} (the address as a big-endian int). */
    public boolean containsV4(int v4) {
        return network.length == 4 && (v4 & mask4) == network4;
    }

    public boolean isIpv4() {
        return network.length == 4;
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefix;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
