package dev.parley.turn.tcp;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The peer data connections waiting for a ConnectionBind, by CONNECTION-ID, for the whole server: the
 * ConnectionBind arrives on a new client connection, possibly on another event loop than the allocation's. Taking an
 * entry out is the one atomic step that decides between a ConnectionBind and the bind timeout. IDs are random, so a
 * client cannot guess another allocation's pending connection (and would still need its credentials).
 */
public final class ConnectionRegistry {
    private final ConcurrentHashMap<Integer, PeerConnection> pending = new ConcurrentHashMap<>();

    /** Gives {@code pc} a fresh non-zero CONNECTION-ID and makes it claimable. */
    public int register(PeerConnection pc) {
        while (true) {
            int id = ThreadLocalRandom.current().nextInt();
            if (id != 0 && pending.putIfAbsent(id, pc) == null) {
                pc.id(id);
                return id;
            }
        }
    }

    /** The pending connection with this id, without taking it (to check who may bind it). */
    public PeerConnection peek(int id) {
        return pending.get(id);
    }

    /** Takes {@code pc} out if it is still pending under {@code id}; true for exactly one caller. */
    public boolean claim(int id, PeerConnection pc) {
        return pending.remove(id, pc);
    }

    public int size() {
        return pending.size();
    }
}
