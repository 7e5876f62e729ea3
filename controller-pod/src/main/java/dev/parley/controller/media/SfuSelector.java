package dev.parley.controller.media;

import dev.parley.platform.etcd.RegistryWatcher;
import dev.parley.platform.etcd.SfuEntry;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * SFU placement from the etcd registry of our region: a meeting stays on its SFU while that SFU is
 * ACTIVE (meeting-per-SFU); otherwise the ACTIVE SFU with the least stress. Never a DRAINING SFU.
 * An SFU that refused our connection is passed over for a while even though its registry entry lives on
 * until its lease expires (seconds): clients then move at once instead of waiting for the lease.
 */
@Singleton
public class SfuSelector {
    static final long UNREACHABLE_HOLD_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final RegistryWatcher<SfuEntry> registry;
    /** pod → System.nanoTime() until which it is passed over (it refused a connection). */
    private final Map<String, Long> unreachableUntil = new ConcurrentHashMap<>();

    public SfuSelector(RegistryWatcher<SfuEntry> registry) {
        this.registry = registry;
    }

    public Optional<SfuEntry> choose(String currentPod) {
        if (currentPod != null) {
            SfuEntry cur = registry.get(currentPod);
            if (cur != null && cur.isActive() && reachable(currentPod)) {
                return Optional.of(cur);
            }
        }
        Comparator<SfuEntry> leastStressed = Comparator
                .comparingDouble((SfuEntry e) -> e.load() == null ? 0 : e.load().stress()).thenComparing(SfuEntry::pod);
        Optional<SfuEntry> reachable = registry.entries().values().stream()
                .filter(e -> e.isActive() && reachable(e.pod())).min(leastStressed);
        // every ACTIVE SFU refused lately: try them anyway rather than place nobody
        return reachable.isPresent() ? reachable
                : registry.entries().values().stream().filter(SfuEntry::isActive).min(leastStressed);
    }

    /** The pod refused a connection: pass it over until it answers again or the hold ends. */
    public void markUnreachable(String pod) {
        unreachableUntil.put(pod, System.nanoTime() + UNREACHABLE_HOLD_NANOS);
    }

    public void markReachable(String pod) {
        unreachableUntil.remove(pod);
    }

    boolean reachable(String pod) {
        Long until = unreachableUntil.get(pod);
        if (until == null) {
            return true;
        }
        if (System.nanoTime() - until >= 0) {
            unreachableUntil.remove(pod, until);
            return true;
        }
        return false;
    }

    public Optional<SfuEntry> get(String pod) {
        return pod == null ? Optional.empty() : Optional.ofNullable(registry.get(pod));
    }

    /** Pods whose registry entry says DRAINING: their meetings are to be moved (see DrainMigrator). */
    public Set<String> drainingPods() {
        return registry.entries().values().stream().filter(e -> SfuEntry.DRAINING.equals(e.state()))
                .map(SfuEntry::pod).collect(Collectors.toUnmodifiableSet());
    }

    /** Whether a participant asked to move would find an ACTIVE SFU to go to. */
    public boolean hasActive() {
        return registry.entries().values().stream().anyMatch(SfuEntry::isActive);
    }

    public boolean isUsable(String pod) {
        SfuEntry e = pod == null ? null : registry.get(pod);
        return e != null && e.isActive() && reachable(pod);
    }
}
