package dev.parley.sfu.routing;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The NACK cache of a slot: what it answers, and that it holds memory in proportion to the packets it keeps. */
class PacketCacheTest {

    private static byte[] packet(int n, int fill) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    @Test
    void answersTheLastSizePacketsByOutgoingSequenceNumberAcrossTheWrap() {
        PacketCache c = new PacketCache();
        byte[] out = new byte[PacketCache.MAX_PACKET];
        int first = 65_000;
        for (int k = 0; k < 700; k++) {
            int s = (first + k) & 0xFFFF;
            c.put(s, packet(100 + k % 900, k), 0, 100 + k % 900);
        }
        for (int k = 700 - PacketCache.SIZE; k < 700; k++) {
            int s = (first + k) & 0xFFFF;
            assertThat(c.get(s, out)).as("seq %d", s).isEqualTo(100 + k % 900);
            assertThat(out[0]).isEqualTo((byte) k);
            assertThat(out[99 + k % 900]).isEqualTo((byte) k);
        }
        assertThat(c.get((first + 700 - PacketCache.SIZE - 1) & 0xFFFF, out)).as("overwritten").isEqualTo(-1);
        assertThat(c.get(12_345, out)).as("never sent").isEqualTo(-1);
        assertThat(c.get(first, out)).as("a slot's entry reused by a later packet").isEqualTo(-1);
    }

    @Test
    void holdsMemoryInProportionToThePacketsNotAFullMtuEach() {
        PacketCache c = new PacketCache();
        for (int s = 0; s < 2 * PacketCache.SIZE; s++) {
            c.put(s, packet(450, 1), 0, 450); // the low simulcast layer's packets
        }
        assertThat(c.retainedBytes()).as("512 entries of 450-byte packets")
                .isEqualTo(PacketCache.SIZE * 512L) // rounded up to the 128-byte grain
                .isLessThan(PacketCache.SIZE * (long) PacketCache.MAX_PACKET / 2);
        // a larger packet grows only its own entry, once; the same size again reuses it
        c.put(7, packet(1200, 2), 0, 1200);
        long grown = c.retainedBytes();
        assertThat(grown).isEqualTo(PacketCache.SIZE * 512L - 512 + 1280);
        c.put(7 + PacketCache.SIZE, packet(1100, 3), 0, 1100);
        assertThat(c.retainedBytes()).isEqualTo(grown);
        c.put(8, packet(PacketCache.MAX_PACKET + 1, 4), 0, PacketCache.MAX_PACKET + 1);
        assertThat(c.get(8, new byte[2000])).as("an oversized packet is not cached").isEqualTo(-1);
    }
}
