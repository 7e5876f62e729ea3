package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.jobId == oldSelf.jobId && self.meetingId == oldSelf.meetingId",
        message = "jobId and meetingId are immutable")
public class RecordingJobSpec {
    @Required
    @Size(min = 1, max = 128)
    @PrinterColumn(name = "Meeting")
    public String meetingId;

    @Required
    @Size(min = 1, max = 128)
    public String jobId;

    @JsonPropertyDescription("Region whose SFUs the recorder subscribes on.")
    public String region;

    @Required
    public RecordingOutput output;

    @Min(0)
    @Max(20)
    @Default("3")
    @JsonPropertyDescription("How many times a failed recorder is replaced by a new generation.")
    public Integer retryLimit = 3;

    @JsonPropertyDescription("Set to true to stop the recording (the recorder finalizes).")
    public Boolean stopRequested;

    public PodTemplateOverrides template = new PodTemplateOverrides();
}
