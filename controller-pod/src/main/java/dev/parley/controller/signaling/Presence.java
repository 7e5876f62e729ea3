package dev.parley.controller.signaling;

import java.util.Locale;

/** What a non-owner tells the owner about one of its sockets (see {@link OwnerPresence}). */
enum Presence {
    OPEN, CLOSED, LEFT;

    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Presence fromWire(String s) {
        for (Presence p : values()) {
            if (p.wire().equals(s)) {
                return p;
            }
        }
        return null;
    }
}
