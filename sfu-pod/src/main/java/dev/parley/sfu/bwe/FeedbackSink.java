package dev.parley.sfu.bwe;

/**
 * Receives the entries of one transport-cc report: a start, one call per reported packet in report order,
 * an end. Implemented by {@link SendSideBandwidthEstimator}; the indirection lets
 * {@link TransportFeedbackReader} be tested on its own.
 */
public interface FeedbackSink {

    void onFeedbackStart(long nowMicros);

    /** {@code arrivalTimeMicros} is on the receiver's clock and meaningless when {@code received} is false. */
    void onPacketFeedback(int transportSeq, boolean received, long arrivalTimeMicros);

    /** Returns the sink's new estimate in bits per second (or any value the sink finds useful). */
    long onFeedbackEnd(long nowMicros);
}
