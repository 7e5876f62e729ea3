package dev.parley.platform.grant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GrantJsonTest {
    final ObjectMapper json = new ObjectMapper();

    @Test
    void grantsUseSnakeCaseOnTheWire() throws Exception {
        var req = new PutGrantsRequest("m1", 7, List.of(new Grant("p1", 4, 7, new PublishRights(true, false, true), true, 3000)));
        JsonNode n = json.readTree(json.writeValueAsBytes(req));
        assertThat(n.get("meeting_id").asText()).isEqualTo("m1");
        assertThat(n.get("controller_epoch").asLong()).isEqualTo(7);
        JsonNode g = n.get("grants").get(0);
        assertThat(g.get("participant_id").asText()).isEqualTo("p1");
        assertThat(g.get("ttl_ms").asLong()).isEqualTo(3000);
        assertThat(g.get("publish").get("screen").asBoolean()).isTrue();
        assertThat(json.readValue(json.writeValueAsBytes(req), PutGrantsRequest.class)).isEqualTo(req);
    }

    @Test
    void ttlAboveThreeSecondsIsNotAGrant() {
        assertThatThrownBy(() -> new Grant("p", 1, 1, PublishRights.NONE, false, 3001))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
