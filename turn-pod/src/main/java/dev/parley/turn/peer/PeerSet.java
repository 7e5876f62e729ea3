package dev.parley.turn.peer;

import dev.parley.turn.peer.PeerPolicy.Protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An immutable set of exact peer endpoints (address, port, protocol): the SFUs' media ports from the registry.
 * IPv4 endpoints are sorted {@code address << 16 | port} longs, found by binary search without allocating; IPv6
 * ones (rare) are scanned. Replaced whole when the registry changes, so readers need no lock.
 */
final class PeerSet {
    static final PeerSet EMPTY = new Builder().build();

    private final long[] udp4;
    private final long[] tcp4;
    private final byte[][] udp6;
    private final int[] udp6Ports;
    private final byte[][] tcp6;
    private final int[] tcp6Ports;

    private PeerSet(long[] udp4, long[] tcp4, byte[][] udp6, int[] udp6Ports, byte[][] tcp6, int[] tcp6Ports) {
        this.udp4 = udp4;
        this.tcp4 = tcp4;
        this.udp6 = udp6;
        this.udp6Ports = udp6Ports;
        this.tcp6 = tcp6;
        this.tcp6Ports = tcp6Ports;
    }

    private static long key(int v4, int port) {
        return ((v4 & 0xFFFFFFFFL) << 16) | port;
    }

    boolean containsV4(int v4, int port, Protocol p) {
        return Arrays.binarySearch(p == Protocol.UDP ? udp4 : tcp4, key(v4, port)) >= 0;
    }

    /** True if some port of {@code v4} is in the set for {@code p}. */
    boolean hasAddressV4(int v4, Protocol p) {
        long[] a = p == Protocol.UDP ? udp4 : tcp4;
        int i = Arrays.binarySearch(a, key(v4, 0));
        int at = i >= 0 ? i : -i - 1;
        return at < a.length && (a[at] >>> 16) == (v4 & 0xFFFFFFFFL);
    }

    boolean containsV6(byte[] a, int port, Protocol p) {
        byte[][] addrs = p == Protocol.UDP ? udp6 : tcp6;
        int[] ports = p == Protocol.UDP ? udp6Ports : tcp6Ports;
        for (int i = 0; i < addrs.length; i++) {
            if (ports[i] == port && Arrays.equals(addrs[i], a)) {
                return true;
            }
        }
        return false;
    }

    boolean hasAddressV6(byte[] a, Protocol p) {
        for (byte[] e : p == Protocol.UDP ? udp6 : tcp6) {
            if (Arrays.equals(e, a)) {
                return true;
            }
        }
        return false;
    }

    int size() {
        return udp4.length + tcp4.length + udp6.length + tcp6.length;
    }

    static final class Builder {
        private final List<Long> udp4 = new ArrayList<>();
        private final List<Long> tcp4 = new ArrayList<>();
        private final List<byte[]> udp6 = new ArrayList<>();
        private final List<Integer> udp6Ports = new ArrayList<>();
        private final List<byte[]> tcp6 = new ArrayList<>();
        private final List<Integer> tcp6Ports = new ArrayList<>();

        /** Adds {@code address} (4 or 16 bytes; IPv4-mapped already folded to 4) : {@code port} for {@code p}. */
        Builder add(byte[] address, int port, Protocol p) {
            if (address.length == 4) {
                (p == Protocol.UDP ? udp4 : tcp4).add(key(Cidr.toInt(address), port));
            } else {
                (p == Protocol.UDP ? udp6 : tcp6).add(address.clone());
                (p == Protocol.UDP ? udp6Ports : tcp6Ports).add(port);
            }
            return this;
        }

        PeerSet build() {
            return new PeerSet(sorted(udp4), sorted(tcp4), udp6.toArray(new byte[0][]),
                    udp6Ports.stream().mapToInt(Integer::intValue).toArray(), tcp6.toArray(new byte[0][]),
                    tcp6Ports.stream().mapToInt(Integer::intValue).toArray());
        }

        private static long[] sorted(List<Long> l) {
            return l.stream().mapToLong(Long::longValue).sorted().distinct().toArray();
        }
    }
}
