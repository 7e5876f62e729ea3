package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a platform team may change on the pods the operator creates. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodTemplateOverrides {
    @JsonPropertyDescription("Container image; defaults to the operator's configured image for this component.")
    public String image;

    public String imagePullPolicy;

    public ResourceRequirements resources;

    public List<EnvVar> env = new ArrayList<>();

    public Map<String, String> nodeSelector = new LinkedHashMap<>();

    public List<Toleration> tolerations = new ArrayList<>();

    public Map<String, String> labels = new LinkedHashMap<>();

    public Map<String, String> annotations = new LinkedHashMap<>();

    public String priorityClassName;

    @JsonPropertyDescription("Use the node's network (typical for media pods with public UDP ports).")
    public Boolean hostNetwork;
}
