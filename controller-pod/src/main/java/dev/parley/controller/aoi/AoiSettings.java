package dev.parley.controller.aoi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.ApiException;

/**
 * A meeting's area-of-interest setting, chosen at creation (docs/api.md "Area of interest"): each receiver is
 * interested in the participants within {@code radius} of its position, the nearest {@code maxParticipants} of them.
 */
public record AoiSettings(double radius, int maxParticipants) {
    /** Positions are within ±BOUND on each axis; the radius within MIN_RADIUS..BOUND. */
    public static final double BOUND = 100_000;
    public static final double MIN_RADIUS = 1;
    public static final int MAX_PARTICIPANTS = 100;
    public static final String MODE_ALL = "all";
    public static final String MODE_AOI = "area_of_interest";

    public AoiSettings {
        if (!(radius >= MIN_RADIUS && radius <= BOUND) || maxParticipants < 1 || maxParticipants > MAX_PARTICIPANTS) {
            throw new IllegalArgumentException("radius within 1..100000, max_participants within 1..100");
        }
    }

    /**
     * The creation body's {@code subscription_mode} and {@code area_of_interest}: null for mode {@code all} (the
     * default), the setting for {@code area_of_interest}; 400 {@code invalid_field} / {@code missing_field} naming
     * the field otherwise.
     */
    public static AoiSettings fromCreation(ObjectNode body) {
        JsonNode mode = body.get("subscription_mode");
        JsonNode aoi = body.get("area_of_interest");
        boolean wanted;
        if (mode == null || mode.isNull()) {
            wanted = false;
        } else if (mode.isTextual() && (MODE_ALL.equals(mode.asText()) || MODE_AOI.equals(mode.asText()))) {
            wanted = MODE_AOI.equals(mode.asText());
        } else {
            throw invalid("subscription_mode", "one of all, area_of_interest");
        }
        if (!wanted) {
            if (aoi != null && !aoi.isNull()) {
                throw invalid("area_of_interest", "absent unless subscription_mode is area_of_interest");
            }
            return null;
        }
        if (aoi == null || aoi.isNull()) {
            throw ApiException.badRequest("missing_field", "field 'area_of_interest' is required")
                    .with("field", "area_of_interest");
        }
        if (!aoi.isObject()) {
            throw invalid("area_of_interest", "an object {radius, max_participants}");
        }
        JsonNode r = aoi.get("radius");
        if (r == null || !r.isNumber() || !(r.asDouble() >= MIN_RADIUS && r.asDouble() <= BOUND)) {
            throw invalid("area_of_interest.radius", "a number within 1..100000");
        }
        JsonNode k = aoi.get("max_participants");
        if (k == null || !k.isIntegralNumber() || !k.canConvertToInt() || k.asInt() < 1 || k.asInt() > MAX_PARTICIPANTS) {
            throw invalid("area_of_interest.max_participants", "an integer within 1..100");
        }
        return new AoiSettings(r.asDouble(), k.asInt());
    }

    private static ApiException invalid(String field, String expected) {
        return ApiException.badRequest("invalid_field", "field '" + field + "' must be " + expected).with("field", field);
    }
}
