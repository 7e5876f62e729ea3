package dev.parley.turn.peer;

/**
 * The media endpoints one SFU publishes in the registry (platform-core's {@code SfuEntry}: {@code media_address},
 * {@code media_udp_port}, {@code media_tcp_port}); a port of 0 means none.
 */
public record SfuEndpoint(String pod, String address, int udpPort, int tcpPort) {
}
