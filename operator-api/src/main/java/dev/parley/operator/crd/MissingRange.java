package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A gap in the recording, as media time in milliseconds from the recording start. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MissingRange {
    public Long fromMs;
    public Long toMs;
    public String track;

    public MissingRange() {
    }

    public MissingRange(Long fromMs, Long toMs, String track) {
        this.fromMs = fromMs;
        this.toMs = toMs;
        this.track = track;
    }
}
