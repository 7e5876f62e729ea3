package dev.parley.operator.registry;

import dev.parley.operator.model.PodLoad;
import dev.parley.operator.model.PoolKind;
import java.util.Map;

/** Reads the media pods' self-published registry entries (pod name → load) of one region. */
public interface LoadSource {
    Map<String, PodLoad> loads(PoolKind kind, String region);
}
