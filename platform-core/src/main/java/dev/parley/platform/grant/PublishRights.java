package dev.parley.platform.grant;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** Which kinds of media a participant may send right now (server permission, not the user's choice). */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PublishRights(boolean audio, boolean video, boolean screen) {
    public static final PublishRights NONE = new PublishRights(false, false, false);
}
