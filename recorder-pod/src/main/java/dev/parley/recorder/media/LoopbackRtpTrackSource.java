package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain (unencrypted) RTP on a loopback UDP port, e.g. from {@code ffmpeg -f rtp}. It stands in for the SFU
 * subscription in the recorder's own tests and benchmarks and in local mode; it refuses non-loopback
 * binds because plain RTP must never leave the machine.
 */
public final class LoopbackRtpTrackSource implements TrackSource {
    private static final Logger LOG = LoggerFactory.getLogger(LoopbackRtpTrackSource.class);

    private final TrackSpec track;
    private final DatagramChannel channel;
    private final int port;
    private volatile boolean closed;
    private volatile long lastPacketNanos;
    private Thread thread;

    public LoopbackRtpTrackSource(TrackSpec track, InetSocketAddress bind) throws IOException {
        if (!bind.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("plain RTP source must bind loopback, not " + bind);
        }
        this.track = track;
        this.channel = DatagramChannel.open();
        channel.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
        channel.bind(bind);
        port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
    }

    public int port() {
        return port;
    }

    @Override
    public TrackSpec track() {
        return track;
    }

    @Override
    public void start(RtpSink sink) {
        thread = Thread.ofPlatform().daemon().name("rtp-in-" + track.trackId()).start(() -> {
            ByteBuffer buf = ByteBuffer.allocate(SpscPacketRing.MAX_PACKET + 1);
            byte[] arr = buf.array();
            while (!closed) {
                try {
                    buf.clear();
                    channel.receive(buf);
                    int len = buf.position();
                    if (len > SpscPacketRing.MAX_PACKET || !RtpMedia.wellFormed(arr, 0, len)) {
                        continue; // RTCP or junk: not recorded
                    }
                    if (RtpPacket.payloadType(arr, 0) != track.payloadType()) {
                        continue;
                    }
                    lastPacketNanos = System.nanoTime();
                    sink.onRtp(arr, 0, len);
                } catch (ClosedChannelException | SocketException e) {
                    return;
                } catch (IOException e) {
                    if (!closed) {
                        LOG.warn("track {}: receive failed: {}", track.trackId(), e.toString());
                    }
                }
            }
        });
    }

    @Override
    public long lastPacketNanos() {
        return lastPacketNanos;
    }

    @Override
    public void close() {
        closed = true;
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing {}: {}", track.trackId(), e.toString());
        }
    }
}
