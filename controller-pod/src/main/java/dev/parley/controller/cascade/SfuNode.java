package dev.parley.controller.cascade;

/** An SFU process a meeting uses, and the MediaRegion it runs in (relays cross regions once per region). */
public record SfuNode(String pod, String region) {
}
