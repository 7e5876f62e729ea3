package dev.parley.operator.config;

/**
 * What the pods the operator creates are given: default images, the etcd endpoints they register in, and the names
 * of the Secrets they read (by reference; no secret value is held here).
 */
public record PodSettings(String sfuImage, String turnImage, String recorderImage, String podEtcdEndpoints,
                          String internalSecretName, String turnSecretName, String ticketKeySecretName) {
}
