package dev.parley.turn.allocation;

import dev.parley.turn.link.ClientLink;
import io.netty.channel.Channel;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * All allocations of this pod, with the quotas. UDP allocations are found by the client's source address (the rest
 * of the 5-tuple is fixed: one listening address and port); stream allocations are held by their connection and
 * registered here only for counting, expiry and drain.
 */
public final class AllocationTable {
    public enum Reservation { OK, TOTAL_QUOTA, USER_QUOTA }

    private final Map<InetSocketAddress, Allocation> udp = new ConcurrentHashMap<>();
    private final Map<Allocation, Boolean> all = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> perUser = new ConcurrentHashMap<>();
    /** RESERVATION-TOKEN → reserved relay port and when the reservation lapses (RFC 8656 §7.2: ~30 s). */
    private final Map<Long, long[]> reservations = new ConcurrentHashMap<>();
    private final AtomicInteger reserved = new AtomicInteger();
    private final AtomicLong permissions = new AtomicLong();
    private final AtomicLong channels = new AtomicLong();
    private final int maxTotal;
    private final int maxPerUser;
    private final RelayPorts ports;

    public AllocationTable(int maxTotal, int maxPerUser, RelayPorts ports) {
        this.maxTotal = maxTotal;
        this.maxPerUser = maxPerUser;
        this.ports = ports;
    }

    public Allocation udp(InetSocketAddress client) {
        return udp.get(client);
    }

    /** Reserves quota for one more allocation of {@code participant}; undo with {@link #unreserve}. */
    public Reservation reserve(String participant) {
        if (reserved.incrementAndGet() > maxTotal) {
            reserved.decrementAndGet();
            return Reservation.TOTAL_QUOTA;
        }
        AtomicInteger n = perUser.computeIfAbsent(participant, p -> new AtomicInteger());
        if (n.incrementAndGet() > maxPerUser) {
            n.decrementAndGet();
            reserved.decrementAndGet();
            perUser.computeIfPresent(participant, (p, c) -> c.get() <= 0 ? null : c);
            return Reservation.USER_QUOTA;
        }
        return Reservation.OK;
    }

    public void unreserve(String participant) {
        reserved.decrementAndGet();
        perUser.computeIfPresent(participant, (p, c) -> c.decrementAndGet() <= 0 ? null : c);
    }

    public Allocation create(ClientLink client, String username, String participant, byte[] key,
                             long credentialExpiryMillis, int relayPort, InetSocketAddress relayed, byte[] txid,
                             long expiresAtMillis, long bitsPerSecond) {
        return new Allocation(client, username, participant, key, credentialExpiryMillis, relayPort, relayed, txid,
                expiresAtMillis, bitsPerSecond, permissions, channels);
    }

    /** Publishes an allocation whose relay socket is bound. */
    public void register(Allocation a, Channel relay) {
        a.attachRelay(relay);
        all.put(a, Boolean.TRUE);
        if (!a.client().stream()) {
            udp.put(a.client().remote(), a);
        }
    }

    /** Removes and closes; must run on the allocation's loop. Idempotent. */
    public void close(Allocation a) {
        if (a.closed()) {
            return;
        }
        a.markClosed();
        if (all.remove(a) != null) {
            if (!a.client().stream()) {
                udp.remove(a.client().remote(), a);
            }
            unreserve(a.participant());
        }
        if (a.tcp() != null) {
            a.tcp().closeAll();
        }
        if (a.relay() != null) {
            a.relay().close();
        }
        ports.release(a.relayPort());
    }

    /** Runs expiry for allocations on {@code loop}: called every second on each loop. Returns how many expired. */
    public int sweep(io.netty.channel.EventLoop loop, long nowMillis) {
        int expired = 0;
        for (Allocation a : all.keySet()) {
            if (a.loop() != loop) {
                continue;
            }
            if (a.expiresAtMillis() <= nowMillis) {
                close(a);
                expired++;
            } else {
                a.sweep(nowMillis);
            }
        }
        return expired;
    }

    /** Holds {@code port} (already taken in {@link RelayPorts}) for a later Allocate; returns the token. */
    public long reservePort(int port, long expiresAtMillis) {
        while (true) {
            long token = java.util.concurrent.ThreadLocalRandom.current().nextLong();
            if (token != 0 && reservations.putIfAbsent(token, new long[] {port, expiresAtMillis}) == null) {
                return token;
            }
        }
    }

    /** Takes a reservation: its port (still held in {@link RelayPorts}), or -1 if unknown or lapsed. */
    public int takeReservation(long token, long nowMillis) {
        long[] r = reservations.remove(token);
        if (r == null) {
            return -1;
        }
        if (r[1] <= nowMillis) {
            ports.release((int) r[0]);
            return -1;
        }
        return (int) r[0];
    }

    /** Releases the ports of lapsed reservations. */
    public void sweepReservations(long nowMillis) {
        reservations.entrySet().removeIf(e -> {
            if (e.getValue()[1] <= nowMillis) {
                ports.release((int) e.getValue()[0]);
                return true;
            }
            return false;
        });
    }

    public int reservationCount() {
        return reservations.size();
    }

    public Collection<Allocation> all() {
        return all.keySet();
    }

    public int size() {
        return all.size();
    }

    public int reservedCount() {
        return reserved.get();
    }

    public int userCount(String participant) {
        AtomicInteger n = perUser.get(participant);
        return n == null ? 0 : n.get();
    }

    public int trackedUsers() {
        return perUser.size();
    }

    public long permissionCount() {
        return permissions.get();
    }

    public long channelCount() {
        return channels.get();
    }

    public RelayPorts ports() {
        return ports;
    }
}
