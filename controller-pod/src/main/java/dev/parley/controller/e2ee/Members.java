package dev.parley.controller.e2ee;

import dev.parley.controller.db.Db;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/**
 * Who may hold a media key right now: the meeting's admitted participants and its controller epoch, read together
 * in one snapshot. Departures (left, removed, denied, grace ended) are committed before their control events go
 * out, so a participant that has departed is never read as a member here.
 */
@Singleton
public class Members {
    private final Db db;

    public Members(Db db) {
        this.db = db;
    }

    /** One meeting's members. */
    public record Snapshot(long epoch, String encryptionMode, Set<UUID> admitted) {
        boolean has(UUID participantId) {
            return admitted.contains(participantId);
        }
    }

    public Snapshot read(UUID meetingId) {
        return db.readSnapshot(c -> {
            long epoch;
            String mode;
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT controller_epoch, encryption_mode FROM meetings WHERE meeting_id = ?")) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return new Snapshot(-1, "", Set.of());
                    }
                    epoch = rs.getLong(1);
                    mode = rs.getString(2);
                }
            }
            Set<UUID> admitted = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT participant_id FROM meeting_participants WHERE meeting_id = ? AND admission_state = 'admitted'")) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        admitted.add(rs.getObject(1, UUID.class));
                    }
                }
            }
            return new Snapshot(epoch, mode, admitted);
        });
    }
}
