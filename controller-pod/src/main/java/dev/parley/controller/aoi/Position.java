package dev.parley.controller.aoi;

import com.fasterxml.jackson.databind.JsonNode;

/** A participant's position in a meeting's 2D room, within ±{@link AoiSettings#BOUND} on each axis. */
public record Position(double x, double y) {

    /**
     * The {@code x} and {@code y} of a {@code position} message, or null when either is missing, not a JSON number
     * (a string "1" is refused too), not finite or outside the bounds.
     */
    public static Position parse(JsonNode msg) {
        JsonNode x = msg.get("x");
        JsonNode y = msg.get("y");
        if (!coordinate(x) || !coordinate(y)) {
            return null;
        }
        return new Position(x.asDouble(), y.asDouble());
    }

    private static boolean coordinate(JsonNode n) {
        if (n == null || !n.isNumber()) {
            return false;
        }
        double v = n.asDouble(); // a literal beyond double's range reads as ±Infinity and is refused here
        return Double.isFinite(v) && Math.abs(v) <= AoiSettings.BOUND;
    }
}
