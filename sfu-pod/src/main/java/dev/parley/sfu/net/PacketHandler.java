package dev.parley.sfu.net;

/** Receives every datagram / framed TCP packet on the media thread. The array is only valid during the call. */
public interface PacketHandler {
    void onPacket(byte[] b, int off, int len, PacketPath path, long receivedNanos);

    void onPathClosed(PacketPath path);
}
