package dev.parley.operator.registry;

import dev.parley.operator.crd.MissingRange;
import java.util.List;

/** What a recorder publishes about its job: which generation it runs, its phase, segments, and gaps. */
public record RecorderProgress(String pod, int generation, String phase, long segments, List<MissingRange> missingRanges) {
}
