package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class RecordingJobStatus {
    @PrinterColumn(name = "Phase")
    public RecordingPhase phase;

    @PrinterColumn(name = "Generation")
    public Integer generation;

    public String recorderPod;
    public Integer failedGenerations;
    public Long segments;
    public List<MissingRange> missingRanges = new ArrayList<>();
    public Long observedGeneration;
    public List<Condition> conditions = new ArrayList<>();
    public String message;
}
