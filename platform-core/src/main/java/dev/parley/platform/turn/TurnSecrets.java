package dev.parley.platform.turn;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared TURN REST secrets, current first. New credentials are signed with the first; verification accepts any,
 * so a secret can be rotated by prepending the new one, waiting out the longest credential TTL, then dropping the old.
 */
public final class TurnSecrets {
    private final List<byte[]> secrets;

    private TurnSecrets(List<byte[]> secrets) {
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("at least one TURN secret is required");
        }
        this.secrets = List.copyOf(secrets);
    }

    /** Parses {@code PARLEY_TURN_SECRETS}: comma-separated, current first, blanks ignored. */
    public static TurnSecrets parse(String commaSeparated) {
        if (commaSeparated == null) {
            throw new IllegalArgumentException("PARLEY_TURN_SECRETS is not set");
        }
        List<byte[]> out = new ArrayList<>();
        for (String s : commaSeparated.split(",")) {
            String t = s.trim();
            if (!t.isEmpty()) {
                out.add(t.getBytes(StandardCharsets.UTF_8));
            }
        }
        return new TurnSecrets(out);
    }

    public static TurnSecrets of(String... secrets) {
        return parse(String.join(",", secrets));
    }

    byte[] current() {
        return secrets.get(0);
    }

    List<byte[]> all() {
        return secrets;
    }

    public int size() {
        return secrets.size();
    }

    @Override
    public String toString() {
        return "TurnSecrets[" + secrets.size() + " secrets]"; // never the values
    }
}
