package dev.parley.recorder.testing;

import dev.parley.media.rtp.RtpPacket;
import dev.parley.recorder.media.RtpMedia;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Stands in for the SFU between the publisher and the recorder in tests: a stable loopback port that
 * forwards RTP to the recorder's current port(s), so a recorder can die and be replaced without the
 * publisher noticing. A target may rewrite SSRC / sequence / timestamp by fixed offsets, the way a second
 * SFU forwarding the same track would (drain tests). Not our SFU: no ICE, no SRTP, no grants.
 */
public final class UdpRelay implements AutoCloseable {
    private final DatagramChannel in;
    private final DatagramChannel out;
    private final List<Target> targets = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean closed;

    public record Target(int port, long ssrc, int seqOffset, long tsOffset, boolean rewrite) {
        public static Target plain(int port) {
            return new Target(port, 0, 0, 0, false);
        }
    }

    public UdpRelay() throws IOException {
        in = DatagramChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        out = DatagramChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        thread = Thread.ofPlatform().daemon().name("relay").start(this::run);
    }

    public int port() throws IOException {
        return ((InetSocketAddress) in.getLocalAddress()).getPort();
    }

    public void add(Target t) {
        targets.add(t);
    }

    public void remove(int port) {
        targets.removeIf(t -> t.port() == port);
    }

    private void run() {
        ByteBuffer buf = ByteBuffer.allocate(2048);
        byte[] copy = new byte[2048];
        while (!closed) {
            try {
                buf.clear();
                in.receive(buf);
                int len = buf.position();
                for (Target t : targets) {
                    System.arraycopy(buf.array(), 0, copy, 0, len);
                    if (t.rewrite() && RtpMedia.wellFormed(copy, 0, len)) {
                        RtpPacket.setSsrc(copy, 0, (int) t.ssrc());
                        RtpPacket.setSequence(copy, 0, (RtpPacket.sequence(copy, 0) + t.seqOffset()) & 0xFFFF);
                        RtpPacket.setTimestamp(copy, 0, (RtpPacket.timestamp(copy, 0) + t.tsOffset()) & 0xFFFFFFFFL);
                    }
                    try {
                        out.send(ByteBuffer.wrap(copy, 0, len),
                                new InetSocketAddress(InetAddress.getLoopbackAddress(), t.port()));
                    } catch (IOException e) {
                        // the recorder behind this port is gone: like an SFU, keep forwarding to the others
                    }
                }
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        in.close();
        out.close();
    }
}
