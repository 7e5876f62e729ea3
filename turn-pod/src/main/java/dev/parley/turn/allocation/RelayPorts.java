package dev.parley.turn.allocation;

import java.util.BitSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out relay ports from the configured range: random start, then linear probe, so ports are not predictable
 * (RFC 8656 §7.2 recommends randomisation) and a released port is not immediately reused. Control path only.
 */
public final class RelayPorts {
    private final int min;
    private final int max;
    private final BitSet used;
    private int inUse;

    public RelayPorts(int min, int max) {
        this.min = min;
        this.max = max;
        this.used = new BitSet(max - min + 1);
    }

    /** A free port (even if {@code even}), or -1 if the range is exhausted. */
    public synchronized int acquire(boolean even) {
        int size = max - min + 1;
        int start = ThreadLocalRandom.current().nextInt(size);
        for (int i = 0; i < size; i++) {
            int idx = (start + i) % size;
            int port = min + idx;
            if ((even && (port & 1) != 0) || used.get(idx)) {
                continue;
            }
            used.set(idx);
            inUse++;
            return port;
        }
        return -1;
    }

    /** An even port whose odd neighbour is also free; both are taken (EVEN-PORT with R=1). -1 if none. */
    public synchronized int acquirePair() {
        int size = max - min + 1;
        int start = ThreadLocalRandom.current().nextInt(size);
        for (int i = 0; i < size; i++) {
            int idx = (start + i) % size;
            int port = min + idx;
            if ((port & 1) != 0 || port + 1 > max || used.get(idx) || used.get(idx + 1)) {
                continue;
            }
            used.set(idx);
            used.set(idx + 1);
            inUse += 2;
            return port;
        }
        return -1;
    }

    public synchronized void release(int port) {
        int idx = port - min;
        if (idx >= 0 && idx <= max - min && used.get(idx)) {
            used.clear(idx);
            inUse--;
        }
    }

    public synchronized int inUse() {
        return inUse;
    }

    public boolean contains(int port) {
        return port >= min && port <= max;
    }
}
