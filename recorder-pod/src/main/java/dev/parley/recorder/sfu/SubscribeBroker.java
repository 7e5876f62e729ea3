package dev.parley.recorder.sfu;

import java.io.IOException;
import java.util.List;

/**
 * Gets the recorder a subscribe-only transport at the meeting's SFU. In production the owner controller does it
 * ({@link ControllerSubscribeBroker}): it checks the job, mints the connect ticket and the subscribe-only grant
 * with its epoch, creates the transport at the SFU and keeps renewing the grant while the job records.
 */
public interface SubscribeBroker {
    /**
     * @param transportGeneration 1 for the first transport; the same value again re-offers on the existing
     *                            transport (the answer then lists the current slot assignments); a higher value
     *                            replaces it (e.g. on another SFU after a drain)
     */
    Subscription subscribe(long transportGeneration, String sdpOffer) throws IOException;

    /** The controller's answer. */
    record Subscription(String sfuPod, String participantId, String sdpAnswer, List<Assignment> assignments) {
    }

    /** Which published track the SFU sends on which of our recvonly mids. */
    record Assignment(String mid, String participantId, String trackId, String kind) {
    }

    /** The controller refuses for good (job stopped, superseded generation, E2EE meeting...). */
    final class RefusedException extends IOException {
        private static final long serialVersionUID = 1L;
        private final String code;

        public RefusedException(String code, String detail) {
            super(code + ": " + detail);
            this.code = code;
        }

        public String code() {
            return code;
        }
    }
}
