package dev.parley.recorder.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.platform.grant.PublishRights;
import dev.parley.platform.internal.TransportKind;
import dev.parley.recorder.media.RtpMedia;
import dev.parley.recorder.sfu.ClientPeerConnection;
import dev.parley.recorder.sfu.SfuAnswer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A meeting participant publishing real media into the real SFU: ffmpeg encodes a VP8 test pattern and an Opus
 * sine ({@link RtpPublisher}) to two loopback ports, and this class forwards them over a publish peer connection
 * (media-core: ICE controlling, DTLS client, SRTP) with the SSRCs its offer declared. The SFU forwards only what
 * the publisher's grant allows, to every subscriber slot.
 */
public final class SfuMediaPublisher implements AutoCloseable {
    public static final String AUDIO_MID = "0";
    public static final String VIDEO_MID = "1";
    private final java.util.List<ClientPeerConnection> connections = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final DatagramChannel video;
    private final DatagramChannel audio;
    private final int videoSsrc = ThreadLocalRandom.current().nextInt() | 1;
    private final int audioSsrc = ThreadLocalRandom.current().nextInt() | 1;
    private final AtomicLong sent = new AtomicLong();
    private volatile boolean closed;
    private RtpPublisher ffmpeg;

    private SfuMediaPublisher() throws IOException {
        InetSocketAddress lo = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        video = DatagramChannel.open().bind(lo);
        audio = DatagramChannel.open().bind(lo);
    }

    /** Joins as {@code pid} (publish transport, generation 1) on the control plane's meeting SFU. */
    public static SfuMediaPublisher join(SfuControlPlane control, String pid) throws IOException {
        SfuMediaPublisher p = new SfuMediaPublisher();
        p.connectTo(control, pid);
        Thread.ofPlatform().daemon().name("pub-video").start(() -> forward(p, p.video, p.videoSsrc));
        Thread.ofPlatform().daemon().name("pub-audio").start(() -> forward(p, p.audio, p.audioSsrc));
        return p;
    }

    /**
     * Also publishes the same packets to the control plane's current meeting SFU (a migrating client's
     * make-before-break); returns the new connection so the old one can be {@link #leave left}.
     */
    public ClientPeerConnection connectTo(SfuControlPlane control, String pid) throws IOException {
        ClientPeerConnection pc = new ClientPeerConnection(DtlsCertificate.generate(), InetAddress.getLoopbackAddress());
        SfuMediaPublisher p = this;
        String tl = pc.transportLines();
        String offer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n"
                + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n" + tl + "a=mid:" + AUDIO_MID + "\r\na=sendonly\r\n"
                + "a=rtpmap:111 opus/48000/2\r\na=ssrc:" + (p.audioSsrc & 0xFFFFFFFFL) + " cname:pub\r\n"
                + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\n" + tl + "a=mid:" + VIDEO_MID + "\r\na=sendonly\r\n"
                + "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack pli\r\na=ssrc:" + (p.videoSsrc & 0xFFFFFFFFL) + " cname:pub\r\n";
        JsonNode answer = control.createTransport(pid, 1, TransportKind.PUBLISH, offer, new PublishRights(true, true, false),
                true);
        pc.connect(SfuAnswer.parse(answer.path("sdp_answer").asText()), (b, len) -> { }, 15_000);
        connections.add(pc);
        return pc;
    }

    public java.util.List<ClientPeerConnection> connections() {
        return java.util.List.copyOf(connections);
    }

    /** Stops publishing on one connection (the drained SFU). */
    public void leave(ClientPeerConnection pc) {
        connections.remove(pc);
        pc.close();
    }

    /** Starts ffmpeg publishing {@code seconds} of media (keyframe every second). */
    public void publish(double seconds, Path log) throws IOException {
        ffmpeg = RtpPublisher.start(port(video), port(audio), seconds, log);
    }

    public boolean waitForMediaEnd(long seconds) throws InterruptedException {
        return ffmpeg.waitFor(seconds);
    }

    public long packetsSent() {
        return sent.get();
    }

    private static int port(DatagramChannel ch) throws IOException {
        return ((InetSocketAddress) ch.getLocalAddress()).getPort();
    }

    private static void forward(SfuMediaPublisher p, DatagramChannel in, int ssrc) {
        ByteBuffer buf = ByteBuffer.allocate(1600);
        byte[] copy = new byte[1600];
        while (!p.closed) {
            try {
                buf.clear();
                in.receive(buf);
                int len = buf.position();
                if (len > 1400 || !RtpMedia.wellFormed(buf.array(), 0, len)) {
                    continue;
                }
                RtpPacket.setSsrc(buf.array(), 0, ssrc);
                boolean any = false;
                for (ClientPeerConnection pc : p.connections) {
                    System.arraycopy(buf.array(), 0, copy, 0, len); // SRTP encrypts in place
                    any |= pc.sendRtp(copy, len);
                }
                if (any) {
                    p.sent.incrementAndGet();
                }
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        if (ffmpeg != null) {
            ffmpeg.close();
        }
        connections.forEach(ClientPeerConnection::close);
        video.close();
        audio.close();
    }
}
