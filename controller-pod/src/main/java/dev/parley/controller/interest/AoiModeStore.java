package dev.parley.controller.interest;

import dev.parley.controller.aoi.AoiSettings;
import dev.parley.controller.db.Db;
import jakarta.inject.Singleton;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import java.util.UUID;

/** A meeting's subscription mode from PostgreSQL (set once at creation, so the caller may keep it). */
@Singleton
public class AoiModeStore {
    private final Db db;

    public AoiModeStore(Db db) {
        this.db = db;
    }

    /**
     * Empty optional: mode {@code all}; the setting for mode {@code area_of_interest}; null: no such meeting.
     */
    Optional<AoiSettings> load(UUID meetingId) {
        return db.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT subscription_mode, aoi_radius, aoi_max_participants FROM meetings WHERE meeting_id = ?")) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    if (!AoiSettings.MODE_AOI.equals(rs.getString(1))) {
                        return Optional.empty();
                    }
                    return Optional.of(new AoiSettings(rs.getDouble(2), rs.getInt(3)));
                }
            }
        });
    }
}
