package dev.parley.recorder.lease;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Value of {@code /parley/v1/recordings/{job}/runner}: which pod runs which generation. */
public record RunnerRecord(String pod, long generation) {
    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    public byte[] toJson() {
        try {
            return JSON.writeValueAsBytes(this);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static RunnerRecord fromJson(byte[] json) {
        try {
            return JSON.readValue(json, RunnerRecord.class);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable runner record", e);
        }
    }
}
