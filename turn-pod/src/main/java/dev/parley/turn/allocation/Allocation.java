package dev.parley.turn.allocation;

import dev.parley.turn.link.ClientLink;
import dev.parley.turn.tcp.TcpAllocation;
import dev.parley.turn.tcp.TcpRelay;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One TURN allocation: the client link, its relay socket, permissions, channel bindings and bandwidth budget.
 *
 * <p>Confined to one event loop ({@link #loop()}): the client listener socket that received the Allocate and the
 * relay socket are served by the same thread, so the relay path reads and updates this state without locks.
 * Permissions and channels are small arrays scanned linearly: a call has a handful of peers, and scanning a few
 * entries beats hashing (and allocates nothing).
 */
public final class Allocation implements TcpAllocation {
    private static final int MAX_PERMISSIONS = 32;
    private static final int MAX_CHANNELS = 32;

    private final ClientLink client;
    private final String username;
    private final String participant;
    private final byte[] key;
    private final long credentialExpiryMillis;
    private final int relayPort;
    private final InetSocketAddress relayedAddress;
    private final byte[] allocateTransactionId;
    private final AtomicLong permissionGauge;
    private final AtomicLong channelGauge;
    private Channel relay;
    private volatile long expiresAtMillis;
    private boolean closed;
    /** The relay socket sets DF on what it sends (the Allocate carried DONT-FRAGMENT). */
    private boolean dontFragment;
    /** RFC 6062 TCP allocation: its peer data connections (the relay channel is then a listening TCP socket). */
    private TcpRelay tcp;

    private final InetAddress[] permPeers = new InetAddress[MAX_PERMISSIONS];
    private final long[] permExpires = new long[MAX_PERMISSIONS];
    private int permCount;

    /** No permission or channel expires before this: the per-second sweep skips the allocation until then. */
    private long nextExpiryMillis = Long.MAX_VALUE;

    private final int[] chanNumbers = new int[MAX_CHANNELS];
    private final InetSocketAddress[] chanPeers = new InetSocketAddress[MAX_CHANNELS];
    private final long[] chanExpires = new long[MAX_CHANNELS];
    private int chanCount;

    private final long bytesPerSecond;
    private long tokens;
    private long lastRefillNanos;

    Allocation(ClientLink client, String username, String participant, byte[] key, long credentialExpiryMillis,
               int relayPort, InetSocketAddress relayedAddress, byte[] allocateTransactionId, long expiresAtMillis,
               long bitsPerSecond, AtomicLong permissionGauge, AtomicLong channelGauge) {
        this.client = client;
        this.username = username;
        this.participant = participant;
        this.key = key;
        this.credentialExpiryMillis = credentialExpiryMillis;
        this.relayPort = relayPort;
        this.relayedAddress = relayedAddress;
        this.allocateTransactionId = allocateTransactionId;
        this.expiresAtMillis = expiresAtMillis;
        this.bytesPerSecond = Math.max(1, bitsPerSecond / 8);
        this.tokens = this.bytesPerSecond; // one second of burst
        this.lastRefillNanos = System.nanoTime();
        this.permissionGauge = permissionGauge;
        this.channelGauge = channelGauge;
    }

    void attachRelay(Channel relay) {
        this.relay = relay;
    }

    /** Makes this a TCP allocation (RFC 6062); before {@code register}. */
    public void makeTcp(TcpRelay tcp) {
        this.tcp = tcp;
    }

    /** The TCP relay state of a TCP allocation, null for a UDP one. */
    @Override
    public TcpRelay tcp() {
        return tcp;
    }

    public ClientLink client() {
        return client;
    }

    @Override
    public EventLoop loop() {
        return client.eventLoop();
    }

    public Channel relay() {
        return relay;
    }

    @Override
    public String username() {
        return username;
    }

    public String participant() {
        return participant;
    }

    /** The long-term key (MD5(user:realm:pass)) the client proved; responses are signed with it. */
    public byte[] key() {
        return key;
    }

    public long credentialExpiryMillis() {
        return credentialExpiryMillis;
    }

    public int relayPort() {
        return relayPort;
    }

    public InetSocketAddress relayedAddress() {
        return relayedAddress;
    }

    /** True for an IPv6 relayed address (REQUESTED-ADDRESS-FAMILY IPv6): its peers must be IPv6 too. */
    public boolean ipv6() {
        return relayedAddress.getAddress() instanceof java.net.Inet6Address;
    }

    public boolean isAllocateRetransmit(byte[] txid) {
        return java.util.Arrays.equals(allocateTransactionId, txid);
    }

    public long expiresAtMillis() {
        return expiresAtMillis;
    }

    public void expiresAtMillis(long t) {
        this.expiresAtMillis = t;
    }

    @Override
    public boolean closed() {
        return closed;
    }

    /** Records that the relay socket was opened with DF set (RFC 8656 DONT-FRAGMENT); before {@code register}. */
    public void markDontFragment() {
        dontFragment = true;
    }

    public boolean dontFragment() {
        return dontFragment;
    }

    void markClosed() {
        closed = true;
        permissionGauge.addAndGet(-permCount);
        channelGauge.addAndGet(-chanCount);
        permCount = 0;
        chanCount = 0;
    }

    // ---- permissions (keyed by IP only, RFC 8656 §9) ----

    public boolean hasPermission(InetAddress peer, long nowMillis) {
        for (int i = 0; i < permCount; i++) {
            if (permExpires[i] > nowMillis && permPeers[i].equals(peer)) {
                return true;
            }
        }
        return false;
    }

    /** Installs or refreshes; false if the per-allocation table is full. */
    public boolean installPermission(InetAddress peer, long expiresAt) {
        for (int i = 0; i < permCount; i++) {
            if (permPeers[i].equals(peer)) {
                permExpires[i] = expiresAt;
                return true;
            }
        }
        if (permCount == MAX_PERMISSIONS) {
            return false;
        }
        permPeers[permCount] = peer;
        permExpires[permCount] = expiresAt;
        permCount++;
        permissionGauge.incrementAndGet();
        nextExpiryMillis = Math.min(nextExpiryMillis, expiresAt);
        return true;
    }

    public boolean hasPermissionCapacity(InetAddress peer) {
        for (int i = 0; i < permCount; i++) {
            if (permPeers[i].equals(peer)) {
                return true;
            }
        }
        return permCount < MAX_PERMISSIONS;
    }

    public int permissionCount() {
        return permCount;
    }

    // ---- channels ----

    /** The peer bound to {@code channel}, or null if unbound or expired. */
    public InetSocketAddress channelPeer(int channel, long nowMillis) {
        for (int i = 0; i < chanCount; i++) {
            if (chanNumbers[i] == channel) {
                return chanExpires[i] > nowMillis ? chanPeers[i] : null;
            }
        }
        return null;
    }

    /** The channel bound to {@code peer}, or -1. */
    public int channelFor(InetSocketAddress peer, long nowMillis) {
        for (int i = 0; i < chanCount; i++) {
            if (chanExpires[i] > nowMillis && chanPeers[i].equals(peer)) {
                return chanNumbers[i];
            }
        }
        return -1;
    }

    /** Binding check per RFC 8656 §11.2: a channel can't move to another peer, nor a peer to another channel. */
    public boolean bindingConflicts(int channel, InetSocketAddress peer) {
        for (int i = 0; i < chanCount; i++) {
            boolean sameChannel = chanNumbers[i] == channel;
            boolean samePeer = chanPeers[i].equals(peer);
            if (sameChannel != samePeer) {
                return true;
            }
        }
        return false;
    }

    public boolean bindChannel(int channel, InetSocketAddress peer, long expiresAt) {
        for (int i = 0; i < chanCount; i++) {
            if (chanNumbers[i] == channel) {
                chanExpires[i] = expiresAt;
                return true;
            }
        }
        if (chanCount == MAX_CHANNELS) {
            return false;
        }
        chanNumbers[chanCount] = channel;
        chanPeers[chanCount] = peer;
        chanExpires[chanCount] = expiresAt;
        chanCount++;
        channelGauge.incrementAndGet();
        nextExpiryMillis = Math.min(nextExpiryMillis, expiresAt);
        return true;
    }

    public int channelCount() {
        return chanCount;
    }

    /**
     * Drops expired permissions and channels. A channel stays reserved for 5 minutes after expiry in the RFC; we
     * keep the simpler rule of freeing it at expiry (a client re-binding gets a fresh binding).
     */
    void sweep(long nowMillis) {
        // Nothing can have expired yet (refreshes only move expiries later): a relay holding thousands of allocations
        // then pays one comparison per allocation per second, not a pass over its tables.
        if (nowMillis < nextExpiryMillis) {
            return;
        }
        long next = Long.MAX_VALUE;
        int w = 0;
        for (int i = 0; i < permCount; i++) {
            if (permExpires[i] > nowMillis) {
                permPeers[w] = permPeers[i];
                permExpires[w] = permExpires[i];
                next = Math.min(next, permExpires[i]);
                w++;
            }
        }
        if (w != permCount) {
            permissionGauge.addAndGet(w - permCount);
        }
        for (int i = w; i < permCount; i++) {
            permPeers[i] = null;
        }
        permCount = w;
        w = 0;
        for (int i = 0; i < chanCount; i++) {
            if (chanExpires[i] > nowMillis) {
                chanNumbers[w] = chanNumbers[i];
                chanPeers[w] = chanPeers[i];
                chanExpires[w] = chanExpires[i];
                next = Math.min(next, chanExpires[i]);
                w++;
            }
        }
        if (w != chanCount) {
            channelGauge.addAndGet(w - chanCount);
        }
        for (int i = w; i < chanCount; i++) {
            chanPeers[i] = null;
        }
        chanCount = w;
        nextExpiryMillis = next;
    }

    /**
     * Drops the channels and permissions whose peer is no longer acceptable (the peer policy changed: an SFU left
     * the registry). Returns how many were dropped.
     */
    public int dropPeers(java.util.function.Predicate<InetSocketAddress> channelOk,
                         java.util.function.Predicate<InetAddress> permissionOk) {
        int w = 0;
        for (int i = 0; i < chanCount; i++) {
            if (channelOk.test(chanPeers[i])) {
                chanNumbers[w] = chanNumbers[i];
                chanPeers[w] = chanPeers[i];
                chanExpires[w] = chanExpires[i];
                w++;
            }
        }
        int dropped = chanCount - w;
        channelGauge.addAndGet(w - chanCount);
        for (int i = w; i < chanCount; i++) {
            chanPeers[i] = null;
        }
        chanCount = w;
        w = 0;
        for (int i = 0; i < permCount; i++) {
            if (permissionOk.test(permPeers[i])) {
                permPeers[w] = permPeers[i];
                permExpires[w] = permExpires[i];
                w++;
            }
        }
        dropped += permCount - w;
        permissionGauge.addAndGet(w - permCount);
        for (int i = w; i < permCount; i++) {
            permPeers[i] = null;
        }
        permCount = w;
        return dropped;
    }

    // ---- bandwidth (token bucket in bytes, one second of burst) ----

    @Override
    public boolean consume(int bytes) {
        long now = System.nanoTime();
        long elapsed = Math.min(now - lastRefillNanos, 1_000_000_000L); // cap: no overflow, burst stays 1 s
        if (elapsed > 1_000_000) { // refill at most every millisecond: cheap and precise enough
            tokens = Math.min(bytesPerSecond, tokens + elapsed * bytesPerSecond / 1_000_000_000L);
            lastRefillNanos = now;
        }
        if (tokens < bytes) {
            return false;
        }
        tokens -= bytes;
        return true;
    }
}
