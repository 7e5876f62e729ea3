package dev.parley.controller.meeting;

import dev.parley.controller.db.Db;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-meeting media settings that travel to the SFU with each transport request ({@code audio_top_n}). They are
 * fixed at creation, so a copy read once per meeting is never stale (this is no authorization decision).
 */
@Singleton
public class MeetingSettings {
    /** Speakers per receiver when the creator names none; the SFU's own default is the same. */
    public static final int AUDIO_TOP_N_DEFAULT = 3;
    /** Upper bound of {@code audio_top_n} (the SFU refuses more; the column's CHECK says the same). */
    public static final int AUDIO_TOP_N_MAX = 16;
    /** A socket's roster is paged above this many admitted participants when the creator names no value. */
    public static final int ROSTER_PAGE_ABOVE_DEFAULT = 100;
    /** Upper bound of {@code roster_page_above} (the column's CHECK says the same). */
    public static final int ROSTER_PAGE_ABOVE_MAX = 10_000;
    private static final int KEEP = 10_000;
    private final Map<UUID, Integer> rosterPageAbove = new ConcurrentHashMap<>();
    private final Db db;
    private final Map<UUID, Integer> audioTopN = new ConcurrentHashMap<>();

    public MeetingSettings(Db db) {
        this.db = db;
    }

    /** The meeting's {@code audio_top_n}. */
    public int audioTopN(UUID meetingId) {
        Integer n = audioTopN.get(meetingId);
        if (n != null) {
            return n;
        }
        int read = db.read(c -> audioTopN(c, meetingId));
        remember(meetingId, read);
        return read;
    }

    /** What {@link #rosterPageAbove} answers for a meeting whose roster is never paged. */
    public static final int NEVER_PAGED = Integer.MAX_VALUE;

    /**
     * The meeting's {@code roster_page_above} (paged roster; fixed at creation, read once per meeting), or
     * {@link #NEVER_PAGED} for an end-to-end encrypted meeting: every member's client must know every other member
     * to send it the media keys and to rotate them on each departure, so its sockets always get the full roster.
     */
    public int rosterPageAbove(UUID meetingId) {
        Integer n = rosterPageAbove.get(meetingId);
        if (n != null) {
            return n;
        }
        int read = db.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT CASE WHEN encryption_mode = 'e2ee' THEN NULL ELSE roster_page_above END FROM meetings WHERE meeting_id = ?")) {
                ps.setObject(1, meetingId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return ROSTER_PAGE_ABOVE_DEFAULT;
                    }
                    int above = rs.getInt(1);
                    return rs.wasNull() ? NEVER_PAGED : above;
                }
            }
        });
        if (rosterPageAbove.size() >= KEEP) {
            rosterPageAbove.clear();
        }
        rosterPageAbove.put(meetingId, read);
        return read;
    }

    /** Keeps a value known without reading it (the creating pod knows it; its first transport then needs no read). */
    public void remember(UUID meetingId, int n) {
        if (audioTopN.size() >= KEEP) {
            audioTopN.clear();       // ended meetings are never asked again; a bound instead of an expiry
        }
        audioTopN.put(meetingId, n);
    }

    /** The meeting's {@code audio_top_n} within {@code c} (the default for an unknown meeting). */
    public static int audioTopN(Connection c, UUID meetingId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT audio_top_n FROM meetings WHERE meeting_id = ?")) {
            ps.setObject(1, meetingId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : AUDIO_TOP_N_DEFAULT;
            }
        }
    }
}
