package dev.parley.platform.etcd;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The registry entry of an SFU with several media workers, and of an older SFU that lists none. */
class SfuEntryTest {
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void everyWorkersPortsRoundTrip() throws Exception {
        SfuEntry e = new SfuEntry("sfu-0", "r1", SfuEntry.ACTIVE, "http://127.0.0.1:1", "127.0.0.5", 7882, 7881,
                SfuEntry.SfuLoad.idle(), 1, List.of(new SfuEntry.MediaPorts(7882, 7881), new SfuEntry.MediaPorts(7883, 7882)));
        String text = json.writeValueAsString(e);
        assertThat(text).contains("\"media_workers\":[{\"udp_port\":7882,\"tcp_port\":7881},{\"udp_port\":7883,\"tcp_port\":7882}]");
        assertThat(json.readValue(text, SfuEntry.class).mediaPorts()).extracting(SfuEntry.MediaPorts::udpPort).containsExactly(7882, 7883);
    }

    @Test
    void anEntryWithoutWorkersMeansItsOnePortPair() throws Exception {
        String old = "{\"pod\":\"sfu-0\",\"region\":\"r1\",\"state\":\"ACTIVE\",\"internal_url\":\"http://127.0.0.1:1\","
                + "\"media_address\":\"127.0.0.5\",\"media_udp_port\":7882,\"media_tcp_port\":7881,\"updated_at_ms\":1}";
        assertThat(json.readValue(old, SfuEntry.class).mediaPorts()).containsExactly(new SfuEntry.MediaPorts(7882, 7881));
    }
}
