package dev.parley.platform.etcd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * A controller pod at {@code /parley/v1/controllers/{pod}} and, as value of a meeting owner key, the owner.
 *
 * @param internalUrl where other controllers forward requests and where SFUs post events
 * @param publicUrl   the pod's public HTTP base (signaling endpoint host)
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ControllerEntry(String pod, String region, String internalUrl, String publicUrl, long leaseId) {
}
