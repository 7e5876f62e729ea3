package dev.parley.controller.e2ee;

/**
 * A key message refused as a whole (nothing of it is relayed). {@code reason} is one word for the socket error and
 * the metric tag; the detail names no key bytes.
 */
public final class Refusal extends RuntimeException {
    private final String reason;

    public Refusal(String reason, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}
