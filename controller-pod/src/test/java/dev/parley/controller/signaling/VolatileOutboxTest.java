package dev.parley.controller.signaling;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class VolatileOutboxTest {
    @Test
    void aSlowReaderGetsTheNewestMessageEventually() {
        VolatileOutbox box = new VolatileOutbox();
        for (int i = 0; i < VolatileOutbox.IN_FLIGHT; i++) {
            assertEquals(VolatileOutbox.Offer.SEND_NOW, box.offer("m" + i));
        }
        // the transport writes nothing for a while: more messages than fit wait, the oldest waiting go first
        int extra = VolatileOutbox.WAITING + 10;
        int drops = 0;
        for (int i = 0; i < extra; i++) {
            if (box.offer("w" + i) == VolatileOutbox.Offer.WAITS_OLDEST_DROPPED) drops++;
        }
        assertEquals(10, drops);
        assertEquals(VolatileOutbox.WAITING, box.waiting());
        // the writes complete: every waiting message goes, in order, ending with the newest
        List<String> sent = new ArrayList<>();
        for (String next; (next = box.completed()) != null; ) sent.add(next);
        assertEquals("w10", sent.get(0), "the ten oldest waiting were the ones dropped");
        assertEquals("w" + (extra - 1), sent.get(sent.size() - 1), "the newest message is not lost");
        assertEquals(VolatileOutbox.WAITING, sent.size());
        // each waiting message took a completed write's slot; the last completion found none waiting and freed its own
        assertEquals(VolatileOutbox.IN_FLIGHT - 1, box.inFlight());
    }

    @Test
    void completionsFreeSlotsAndMessagesDoNotOvertakeWaitingOnes() {
        VolatileOutbox box = new VolatileOutbox();
        for (int i = 0; i < VolatileOutbox.IN_FLIGHT; i++) box.offer("m" + i);
        assertEquals(VolatileOutbox.Offer.WAITS, box.offer("late"));
        assertEquals("late", box.completed());
        assertNull(box.completed());
        assertEquals(VolatileOutbox.IN_FLIGHT - 1, box.inFlight());
        assertEquals(VolatileOutbox.Offer.SEND_NOW, box.offer("next"));
    }
}
