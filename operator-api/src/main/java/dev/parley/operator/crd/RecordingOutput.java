package dev.parley.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class RecordingOutput {
    @Required
    @Size(min = 3, max = 63)
    public String bucket;

    public String prefix;

    @io.fabric8.generator.annotation.Pattern("^https?://.+")
    public String endpoint;

    /** Secret with keys accessKey and secretKey. */
    public String credentialsSecret;
}
