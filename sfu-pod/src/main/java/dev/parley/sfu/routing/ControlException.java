package dev.parley.sfu.routing;

/**
 * Why the control facade refused a request, in the SFU's own terms; the API layer chooses the HTTP status. Thrown
 * before anything changed (the request can be retried or corrected).
 */
public abstract sealed class ControlException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private ControlException(String detail) { super(detail); }

    /** The request's controller epoch is below one the meeting has seen; carries that highest epoch. */
    public static final class StaleEpoch extends ControlException {
        private static final long serialVersionUID = 1L;
        public final long highestEpoch;

        public StaleEpoch(long highestEpoch) {
            super("lower controller epoch");
            this.highestEpoch = highestEpoch;
        }
    }

    /** An offer for an older transport generation than the one the participant holds. */
    public static final class StaleGeneration extends ControlException {
        private static final long serialVersionUID = 1L;

        public StaleGeneration(String detail) { super(detail); }
    }

    /** The meeting or participant is not on this SFU. */
    public static final class NotFound extends ControlException {
        private static final long serialVersionUID = 1L;

        public NotFound(String detail) { super(detail); }
    }

    /** The request contradicts itself (a grant for another participant, a grant of another epoch). */
    public static final class Invalid extends ControlException {
        private static final long serialVersionUID = 1L;

        public Invalid(String detail) { super(detail); }
    }
}
