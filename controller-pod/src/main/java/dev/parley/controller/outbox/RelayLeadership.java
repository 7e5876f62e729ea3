package dev.parley.controller.outbox;

/**
 * Told by the {@link OutboxRelay} after each leadership check, for work that only the relay leader runs (the
 * cross-pod control fan-out). An interface here so that the outbox does not depend on the packages above it.
 */
public interface RelayLeadership {
    void leading(boolean isLeader);
}
