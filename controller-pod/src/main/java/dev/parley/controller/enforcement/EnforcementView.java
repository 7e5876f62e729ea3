package dev.parley.controller.enforcement;

import java.util.UUID;

/** What the grant side knows of one meeting's SFUs, as enforcement asks it. */
public interface EnforcementView {
    /**
     * Whether the participant's SFU enforces {@code version}: it acknowledged that version or newer, every older
     * grant provably expired by {@code nowNanos}, or the participant is not tracked (no SFU holds it).
     */
    boolean enforced(UUID participantId, long version, long nowNanos);
}
