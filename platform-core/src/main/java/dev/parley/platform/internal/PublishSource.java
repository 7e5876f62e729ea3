package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import java.util.Set;

/**
 * What the publisher's client says one m-section of its publish connection carries: {@code microphone},
 * {@code camera} or {@code screen}. The SFU orders a subscriber's budget by it (a screen share before
 * cameras) and forwards a screen track only under the grant's screen permission.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PublishSource(String mid, String source) {
    public static final String MICROPHONE = "microphone", CAMERA = "camera", SCREEN = "screen";
    public static final Set<String> VALUES = Set.of(MICROPHONE, CAMERA, SCREEN);
    /** More m-sections than any client publishes; a longer list is refused as malformed. */
    public static final int MAX = 16;

    /** True for a list the SFU accepts: at most {@link #MAX} entries, each a short mid and a known source. */
    public static boolean valid(java.util.List<PublishSource> list) {
        if (list == null) return true;
        if (list.size() > MAX) return false;
        for (PublishSource s : list) {
            if (s == null || s.mid() == null || s.mid().isEmpty() || s.mid().length() > 32 || !VALUES.contains(s.source())) return false;
        }
        return true;
    }
}
