package dev.parley.controller.interest;

/** Why a position message was refused: the socket gets {@code error {code, detail}}. */
public record Refusal(String code, String detail) {
    static final Refusal MALFORMED = new Refusal("invalid_position",
            "position needs numbers x and y, finite and within -100000..100000");
    static final Refusal NOT_ENABLED = new Refusal("area_of_interest_disabled",
            "this meeting's subscription_mode is not area_of_interest");
    static final Refusal UNKNOWN_MEETING = new Refusal("meeting_not_found", "no such meeting");
}
