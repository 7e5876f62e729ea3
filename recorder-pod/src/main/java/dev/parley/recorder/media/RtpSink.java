package dev.parley.recorder.media;

/** Receives RTP packets of one leg of a track. Must not block: it is called on the receive thread. */
@FunctionalInterface
public interface RtpSink {
    /** The bytes are only valid during the call. */
    void onRtp(byte[] buf, int off, int len);
}
