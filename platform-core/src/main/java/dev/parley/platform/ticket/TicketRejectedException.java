package dev.parley.platform.ticket;

/** A connect ticket that must not be honoured; {@link #code()} is stable and safe to show to clients. */
public final class TicketRejectedException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a ticket was refused. */
    public enum Reason { MALFORMED, BAD_SIGNATURE, EXPIRED, WRONG_SFU, REPLAYED, LIFETIME_TOO_LONG }

    private final Reason reason;

    public TicketRejectedException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    public String code() {
        return "ticket_" + reason.name().toLowerCase(java.util.Locale.ROOT);
    }
}
