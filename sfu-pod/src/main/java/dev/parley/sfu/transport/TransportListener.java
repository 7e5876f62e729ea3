package dev.parley.sfu.transport;

/** Callbacks from a transport, all on the media thread. */
public interface TransportListener {
    void onConnected(WebRtcTransport t);

    /**
     * The first valid connectivity check started the DTLS handshake: media can flow one handshake from now. A
     * subscriber's router asks publishers for keyframes here, so the keyframe is on its way while DTLS runs.
     */
    default void onHandshakeStarted(WebRtcTransport t) { }

    void onFailed(WebRtcTransport t, String reason);

    /** Decrypted RTP; {@code b} has room for SRTP overhead after {@code off+len} but belongs to the caller. */
    void onRtp(WebRtcTransport t, byte[] b, int off, int len, long receivedNanos);

    void onRtcp(WebRtcTransport t, byte[] b, int off, int len, long receivedNanos);
}
