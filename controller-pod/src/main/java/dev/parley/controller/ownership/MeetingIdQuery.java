package dev.parley.controller.ownership;

import dev.parley.controller.db.Db;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/** One read that narrows a set of meeting ids: {@code sql} has one {@code ANY(?)} parameter and selects meeting ids. */
final class MeetingIdQuery {
    private MeetingIdQuery() {
    }

    static List<UUID> select(Db db, String sql, Collection<UUID> ids) {
        return db.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Array a = c.createArrayOf("uuid", ids.toArray());
                ps.setArray(1, a);
                List<UUID> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getObject(1, UUID.class));
                    }
                }
                return out;
            }
        });
    }
}
