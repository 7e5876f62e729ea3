package dev.parley.controller.interest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;

/** The counters of area-of-interest signaling (docs/observability.md); made at start, so they are scraped at 0. */
@Context
public class InterestMetrics {
    final Counter applied;
    final Counter droppedRate;
    final Counter droppedMalformed;
    final Counter droppedDisabled;
    final Counter updates;

    public InterestMetrics(MeterRegistry meters) {
        applied = Counter.builder("parley_aoi_positions_applied")
                .description("positions applied to a meeting's area-of-interest index").register(meters);
        droppedRate = dropped(meters, "rate");
        droppedMalformed = dropped(meters, "malformed");
        droppedDisabled = dropped(meters, "not_area_of_interest");
        updates = Counter.builder("parley_aoi_interest_updates")
                .description("interest messages sent to receivers whose interest set changed").register(meters);
    }

    private static Counter dropped(MeterRegistry meters, String reason) {
        return Counter.builder("parley_aoi_positions_dropped").tag("reason", reason)
                .description("positions not applied: superseded within the rate limit, malformed, or the meeting is not in area_of_interest mode")
                .register(meters);
    }
}
