package dev.parley.media.sdp;

/** Malformed or unsupported SDP; the message is safe to return to the caller (contains no secrets). */
public final class SdpException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public SdpException(String message) { super(message); }
}
