package dev.parley.controller.media;

import dev.parley.controller.db.Db;
import dev.parley.controller.media.GrantLedger.MeetingGrants;
import dev.parley.platform.grant.PublishRights;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The SQL behind the grant ledger: what PostgreSQL says a meeting's participants with a transport hold. */
final class GrantStore {
    /** A command a previous owner left pending (for enforcement to re-track). */
    record InheritedCommand(UUID commandId, boolean endsMeeting) {
    }

    private static final String TRANSPORT_ROWS = "SELECT participant_id, version, admission_state, "
            + "audio_publish_allowed, video_publish_allowed, screen_publish_allowed, sfu_pod "
            + "FROM meeting_participants WHERE meeting_id = ? AND sfu_pod IS NOT NULL";
    /**
     * On acquisition, in ONE statement (it runs on the first request of every meeting): the participants with a
     * transport, then the commands left pending (command_id set). It reads {@code commands} too, so that taking
     * a meeting over costs one round trip.
     */
    private static final String ON_ACQUIRE = "SELECT participant_id, version, admission_state, "
            + "audio_publish_allowed, video_publish_allowed, screen_publish_allowed, sfu_pod, NULL::uuid, NULL "
            + "FROM meeting_participants WHERE meeting_id = ? AND sfu_pod IS NOT NULL UNION ALL "
            + "SELECT NULL, 0, NULL, false, false, false, NULL, command_id, command_type FROM commands "
            + "WHERE meeting_id = ? AND media_enforcement = 'pending'";

    private final Db db;

    GrantStore(Db db) {
        this.db = db;
    }

    /** Loads the meeting's transport rows into {@code g}; returns the commands left pending (one autocommit SELECT). */
    List<InheritedCommand> loadOnAcquire(UUID meetingId, MeetingGrants g) {
        List<InheritedCommand> pending = new ArrayList<>();
        db.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(ON_ACQUIRE)) {
                ps.setObject(1, meetingId);
                ps.setObject(2, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        UUID command = rs.getObject(8, UUID.class);
                        if (command != null) {
                            pending.add(new InheritedCommand(command, "end_meeting".equals(rs.getString(9))));
                        } else {
                            applyRow(g, rs);
                        }
                    }
                }
            }
            return null;
        });
        return pending;
    }

    /** Re-reads the participants that have (or had) a transport into {@code g} (one autocommit SELECT). */
    void reload(UUID meetingId, MeetingGrants g) {
        db.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(TRANSPORT_ROWS)) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        applyRow(g, rs);
                    }
                }
            }
            return null;
        });
    }

    private static void applyRow(MeetingGrants g, ResultSet rs) throws SQLException {
        boolean admitted = "admitted".equals(rs.getString(3));
        GrantLedger.apply(g, rs.getObject(1, UUID.class), rs.getLong(2), admitted,
                admitted ? new PublishRights(rs.getBoolean(4), rs.getBoolean(5), rs.getBoolean(6)) : PublishRights.NONE,
                rs.getString(7));
    }
}
