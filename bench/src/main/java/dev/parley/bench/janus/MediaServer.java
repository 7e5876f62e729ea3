package dev.parley.bench.janus;

import dev.parley.bench.media.Publisher;
import dev.parley.bench.media.Subscriber;

import java.util.List;

/**
 * A server under test as the side-by-side bench drives it: the same load-client participants are connected through
 * each server's own signaling, then the bench only sends media and reads the server process's CPU.
 */
interface MediaServer extends AutoCloseable {
    String name();

    /** The process whose utime + stime is measured. */
    long pid();

    /** Prepares a meeting (a VideoRoom room for Janus) for up to {@code publishers} publishers. */
    void addMeeting(String meeting, int publishers) throws Exception;

    /** Connects a publisher (ICE, DTLS, SRTP keys); returns once media can flow. */
    void publish(String meeting, Publisher p) throws Exception;

    /** Connects a subscriber receiving every stream of {@code feeds}; returns once media can flow. */
    void subscribe(String meeting, Subscriber s, List<Publisher> feeds) throws Exception;

    /** Packets the server counted as dropped so far, by reason (a starved run shows why it forwarded less), or "-". */
    default String drops() { return "-"; }

    @Override
    void close();
}
