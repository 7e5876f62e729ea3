package dev.parley.controller.media;

import dev.parley.platform.etcd.RegistryWatcher;
import dev.parley.platform.etcd.SfuEntry;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * SFU placement from the etcd registry of our region: a meeting stays on its SFU while that SFU is
 * ACTIVE (meeting-per-SFU); otherwise the ACTIVE SFU with the least stress. Never a DRAINING SFU.
 */
@Singleton
public class SfuSelector {
    private final RegistryWatcher<SfuEntry> registry;

    public SfuSelector(RegistryWatcher<SfuEntry> registry) {
        this.registry = registry;
    }

    public Optional<SfuEntry> choose(String currentPod) {
        if (currentPod != null) {
            SfuEntry cur = registry.get(currentPod);
            if (cur != null && cur.isActive()) {
                return Optional.of(cur);
            }
        }
        return registry.entries().values().stream()
                .filter(SfuEntry::isActive)
                .min(Comparator.comparingDouble((SfuEntry e) -> e.load() == null ? 0 : e.load().stress())
                        .thenComparing(SfuEntry::pod));
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
        return e != null && e.isActive();
    }
}
