package dev.parley.e2e.chaos;

/**
 * One fault: {@link #inject} starts it, {@link #heal} ends it ({@code durationMs} later; 0 for a kill, whose heal
 * does nothing: the platform must repair itself), {@link #restore} puts the platform back to full strength after
 * the measurement (e.g. restarts a killed etcd member) so the next fault starts from the same place.
 */
interface Fault {
    String name();

    /** What it does, for the README table. */
    String description();

    long durationMs();

    void inject(ChaosRun run) throws Exception;

    default void heal(ChaosRun run) throws Exception {
    }

    default void restore(ChaosRun run) throws Exception {
    }
}
