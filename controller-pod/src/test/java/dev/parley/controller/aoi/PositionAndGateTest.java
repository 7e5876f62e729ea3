package dev.parley.controller.aoi;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Parsing of position messages and creation settings, and the per-participant rate limit. */
class PositionAndGateTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private static ObjectNode obj(String s) throws Exception {
        return (ObjectNode) JSON.readTree(s);
    }

    @Test
    void positionsOutsideTheRulesAreRefused() throws Exception {
        assertThat(Position.parse(obj("{\"x\":1.5,\"y\":-100000}"))).isEqualTo(new Position(1.5, -100000));
        for (String bad : List.of("{}", "{\"x\":1}", "{\"y\":1}", "{\"x\":\"1\",\"y\":2}", "{\"x\":null,\"y\":2}",
                "{\"x\":[1],\"y\":2}", "{\"x\":true,\"y\":2}", "{\"x\":100000.001,\"y\":0}", "{\"x\":0,\"y\":-1e6}",
                "{\"x\":1e400,\"y\":0}", "{\"x\":0,\"y\":-1e400}")) {
            assertThat(Position.parse(obj(bad))).as(bad).isNull();
        }
    }

    @Test
    void creationSettingsAreValidated() throws Exception {
        assertThat(AoiSettings.fromCreation(obj("{}"))).isNull();
        assertThat(AoiSettings.fromCreation(obj("{\"subscription_mode\":\"all\"}"))).isNull();
        assertThat(AoiSettings.fromCreation(obj("{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":250.5,\"max_participants\":25}}")))
                .isEqualTo(new AoiSettings(250.5, 25));
        for (String[] bad : List.of(
                new String[]{"{\"subscription_mode\":\"nearby\"}", "subscription_mode"},
                new String[]{"{\"subscription_mode\":1}", "subscription_mode"},
                new String[]{"{\"area_of_interest\":{\"radius\":5,\"max_participants\":5}}", "area_of_interest"},
                new String[]{"{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":5}", "area_of_interest"},
                new String[]{"{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":0.5,\"max_participants\":5}}", "area_of_interest.radius"},
                new String[]{"{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":\"5\",\"max_participants\":5}}", "area_of_interest.radius"},
                new String[]{"{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":100001,\"max_participants\":5}}", "area_of_interest.radius"},
                new String[]{"{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":5,\"max_participants\":0}}", "area_of_interest.max_participants"},
                new String[]{"{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":5,\"max_participants\":101}}", "area_of_interest.max_participants"},
                new String[]{"{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":5,\"max_participants\":2.5}}", "area_of_interest.max_participants"},
                new String[]{"{\"subscription_mode\":\"area_of_interest\",\"area_of_interest\":{\"radius\":5}}", "area_of_interest.max_participants"})) {
            assertThatThrownBy(() -> AoiSettings.fromCreation(obj(bad[0]))).as(bad[0])
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.code()).isEqualTo("invalid_field");
                        assertThat(e.extra()).containsEntry("field", bad[1]);
                    });
        }
        assertThatThrownBy(() -> AoiSettings.fromCreation(obj("{\"subscription_mode\":\"area_of_interest\"}")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("missing_field"));
    }

    @Test
    void theGateAppliesOnePerIntervalAndTheLatestHeldOneWins() {
        PositionGate g = new PositionGate(100 * MS);
        long t = 1_000 * MS;
        assertThat(g.offer(t, new Position(1, 1))).isEqualTo(PositionGate.Decision.APPLY);
        assertThat(g.offer(t + 10 * MS, new Position(2, 2))).isEqualTo(PositionGate.Decision.HELD);
        assertThat(g.releaseAtNanos()).isEqualTo(t + 100 * MS);
        assertThat(g.offer(t + 20 * MS, new Position(3, 3))).isEqualTo(PositionGate.Decision.REPLACED);
        assertThat(g.release(t + 100 * MS)).isEqualTo(new Position(3, 3));
        assertThat(g.release(t + 101 * MS)).isNull();
        assertThat(g.offer(t + 150 * MS, new Position(4, 4))).as("within the interval after the release").isEqualTo(PositionGate.Decision.HELD);
        assertThat(g.release(t + 200 * MS)).isEqualTo(new Position(4, 4));
        assertThat(g.offer(t + 400 * MS, new Position(5, 5))).isEqualTo(PositionGate.Decision.APPLY);
    }
}
