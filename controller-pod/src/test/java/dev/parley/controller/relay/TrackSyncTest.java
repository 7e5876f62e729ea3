package dev.parley.controller.relay;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The merge of one SFU's track list into the owner's table (pure; the reads are in RelayTakeoverIT). */
class TrackSyncTest {
    private static final Map<String, String> PLACEMENT = Map.of("a", "sfu-1", "b", "sfu-2");

    @Test
    void tracksListedByTheirPublishersSfuAreLearnt() throws Exception {
        MeetingRelays m = new MeetingRelays(7);
        var listed = TrackSync.parse(RelayTestKit.JSON.readTree("[{\"track_id\":\"a:0\",\"participant_id\":\"a\",\"kind\":\"audio\","
                + "\"simulcast_layers\":1},{\"track_id\":\"a:1\",\"participant_id\":\"a\",\"kind\":\"video\",\"simulcast_layers\":3},"
                + "{\"track_id\":\"b:1\",\"participant_id\":\"b\",\"kind\":\"video\",\"simulcast_layers\":1},{\"kind\":\"video\"}]"));
        assertThat(listed).hasSize(3);
        assertThat(TrackSync.merge(m, "sfu-1", listed, PLACEMENT, System.nanoTime())).isEqualTo(2);
        // b is placed on sfu-2: sfu-1's word on b's track does not count
        assertThat(m.tracks).containsOnlyKeys("a:0", "a:1");
        assertThat(m.tracks.get("a:1")).isEqualTo(new TrackInfo("a:1", "a", "video", 3));
        assertThat(TrackSync.merge(m, "sfu-1", listed, PLACEMENT, System.nanoTime())).as("nothing new the second time").isZero();
    }

    @Test
    void aTrackItsSfuNoLongerListsIsForgottenUnlessAnEventTaughtItDuringTheRead() {
        MeetingRelays m = new MeetingRelays(7);
        m.learnt(new TrackInfo("a:0", "a", "audio", 1));
        m.learnt(new TrackInfo("b:0", "b", "audio", 1));
        long started = Math.max(m.learnedAt.get("a:0"), m.learnedAt.get("b:0")) + 1;
        m.learnt(new TrackInfo("a:1", "a", "video", 3)); // its event came while the read was out
        m.learnedAt.put("a:1", started + 1);
        TrackSync.merge(m, "sfu-1", List.of(), PLACEMENT, started);
        assertThat(m.tracks).as("a:0 gone at sfu-1; a:1 newer than the read; b:0 is sfu-2's").containsOnlyKeys("a:1", "b:0");
        assertThat(m.learnedAt).containsOnlyKeys("a:1", "b:0");
    }

    @Test
    void aNewEpochReadsAgain() {
        MeetingRelays m = new MeetingRelays(7);
        m.synced = true;
        m.grantsHeld = true;
        m.syncedAt = System.nanoTime();
        TrackSync sync = new TrackSync(new RelayCalls(null));
        assertThat(sync.due(m, System.nanoTime())).isFalse();
        assertThat(sync.due(m, m.syncedAt + TrackSync.INTERVAL_NANOS + 1)).isTrue();
        m.newEpoch(8);
        assertThat(m.synced).isFalse();
        assertThat(m.grantsHeld).isFalse();
        assertThat(sync.due(m, System.nanoTime())).isTrue();
    }
}
