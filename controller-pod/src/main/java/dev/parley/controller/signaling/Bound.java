package dev.parley.controller.signaling;

import java.util.UUID;

/**
 * What a joined socket is bound to, as the owner's offer and subscription handling needs it ({@code epoch}: the
 * owner's). Built from a local socket or from a relayed message of a socket on another pod.
 */
record Bound(UUID meetingId, UUID participantId, long generation, String sfuPod, String deviceKey, long epoch) {

    static Bound of(Conn c, long epoch) {
        return new Bound(c.meetingId, c.participantId, c.generation, c.sfuPod, c.deviceKey, epoch);
    }
}
