package dev.parley.controller.media;

import dev.parley.platform.etcd.RegistryWatcher;
import dev.parley.platform.etcd.SfuEntry;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * SFU placement from the etcd registry (every region's SFUs; placement uses our region unless a participant names
 * its MediaRegion): a meeting stays on its SFU while that SFU is ACTIVE and fits ({@link #place}); otherwise the
 * ACTIVE SFU with the least stress. Never a DRAINING SFU.
 * An SFU that refused our connection is passed over for a while even though its registry entry lives on
 * until its lease expires (seconds): clients then move at once instead of waiting for the lease.
 */
@Singleton
public class SfuSelector {
    static final long UNREACHABLE_HOLD_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Stress (the SFU's own 0..1 load summary) from which a meeting spills to another SFU of the region. */
    static final double DEFAULT_SPILL_STRESS = 0.8;

    private final RegistryWatcher<SfuEntry> registry;
    private final String ownRegion;
    private final double spillStress;
    /** pod → System.nanoTime() until which it is passed over (it refused a connection). */
    private final Map<String, Long> unreachableUntil = new ConcurrentHashMap<>();

    public SfuSelector(RegistryWatcher<SfuEntry> registry, dev.parley.controller.config.ParleyConfig cfg) {
        this(registry, cfg.region(), spillStress(System.getenv("PARLEY_SFU_SPILL_STRESS")));
    }

    SfuSelector(RegistryWatcher<SfuEntry> registry, String ownRegion, double spillStress) {
        this.registry = registry;
        this.ownRegion = ownRegion;
        this.spillStress = spillStress;
    }

    static double spillStress(String env) {
        try {
            return env == null || env.isBlank() ? DEFAULT_SPILL_STRESS : Double.parseDouble(env.trim());
        } catch (NumberFormatException e) {
            return DEFAULT_SPILL_STRESS;
        }
    }

    /**
     * Where a new transport may go: {@code fallback}, the least stressed usable SFU of the participant's MediaRegion
     * (our region when it names none or none there is usable) among those under the spill stress (all of them when
     * none is); {@code excluded}, every other ACTIVE SFU. The meeting keeps its SFU when that is not excluded.
     */
    public record Placement(SfuEntry fallback, Set<String> excluded) {
    }

    public Placement place(String mediaRegion) {
        Map<String, SfuEntry> all = registry.entries();
        String region = mediaRegion != null && all.values().stream()
                .anyMatch(e -> e.isActive() && mediaRegion.equals(e.region()) && reachable(e.pod())) ? mediaRegion : ownRegion;
        List<SfuEntry> candidates = all.values().stream()
                .filter(e -> e.isActive() && reachable(e.pod()) && region.equals(e.region())).toList();
        List<SfuEntry> roomy = candidates.stream().filter(e -> stress(e) < spillStress).toList();
        if (!roomy.isEmpty()) candidates = roomy; // capacity spill: a loaded SFU takes no new transports while one has room
        SfuEntry fallback = candidates.stream().min(LEAST_STRESSED).orElse(null);
        if (fallback == null) return new Placement(choose(null).orElse(null), Set.of());
        Set<String> keep = candidates.stream().map(SfuEntry::pod).collect(Collectors.toSet());
        Set<String> excluded = all.values().stream().filter(e -> e.isActive() && !keep.contains(e.pod()))
                .map(SfuEntry::pod).collect(Collectors.toUnmodifiableSet());
        return new Placement(fallback, excluded);
    }

    private static double stress(SfuEntry e) {
        return e.load() == null ? 0 : e.load().stress();
    }

    private static final Comparator<SfuEntry> LEAST_STRESSED =
            Comparator.comparingDouble(SfuSelector::stress).thenComparing(SfuEntry::pod);

    public Optional<SfuEntry> choose(String currentPod) {
        if (currentPod != null) {
            SfuEntry cur = registry.get(currentPod);
            if (cur != null && cur.isActive() && reachable(currentPod)) {
                return Optional.of(cur);
            }
        }
        Optional<SfuEntry> reachable = registry.entries().values().stream()
                .filter(e -> e.isActive() && ownRegion.equals(e.region()) && reachable(e.pod())).min(LEAST_STRESSED);
        // every ACTIVE SFU refused lately: try them anyway rather than place nobody
        return reachable.isPresent() ? reachable
                : registry.entries().values().stream().filter(e -> e.isActive() && ownRegion.equals(e.region()))
                .min(LEAST_STRESSED);
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
