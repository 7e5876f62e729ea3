package dev.parley.recorder.media;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounded single-producer/single-consumer packet queue with preallocated slots: the receive thread never
 * blocks or allocates. When full, {@link #offer} refuses and the caller counts the packet as recorder-side
 * loss (the meeting is never slowed by the recorder).
 */
public final class SpscPacketRing {
    public static final int MAX_PACKET = 1500;

    private final byte[][] slots;
    private final int[] lengths;
    private final int mask;
    private final AtomicLong head = new AtomicLong(); // next to read (consumer)
    private final AtomicLong tail = new AtomicLong(); // next to write (producer)

    public SpscPacketRing(int capacityPowerOfTwo) {
        if (Integer.bitCount(capacityPowerOfTwo) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two");
        }
        slots = new byte[capacityPowerOfTwo][MAX_PACKET];
        lengths = new int[capacityPowerOfTwo];
        mask = capacityPowerOfTwo - 1;
    }

    /** Producer side. False if the ring is full or the packet too large. */
    public boolean offer(byte[] b, int off, int len) {
        long t = tail.get();
        if (len > MAX_PACKET || t - head.get() > mask) {
            return false;
        }
        int i = (int) (t & mask);
        System.arraycopy(b, off, slots[i], 0, len);
        lengths[i] = len;
        tail.lazySet(t + 1);
        return true;
    }

    /** Consumer side: copies the next packet into {@code into}; returns its length or -1 if empty. */
    public int poll(byte[] into) {
        long h = head.get();
        if (h == tail.get()) {
            return -1;
        }
        int i = (int) (h & mask);
        int len = lengths[i];
        System.arraycopy(slots[i], 0, into, 0, len);
        head.lazySet(h + 1);
        return len;
    }

    public int size() {
        return (int) (tail.get() - head.get());
    }
}
