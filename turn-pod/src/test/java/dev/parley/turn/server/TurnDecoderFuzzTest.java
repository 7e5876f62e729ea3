package dev.parley.turn.server;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.parley.media.stun.ChannelData;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.support.TurnFixture;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Arbitrary bytes into the server's decoders: the TCP/TLS stream framer followed by the TURN request handler, and
 * the request handler as a UDP datagram. Any exception (they would surface from the EmbeddedChannel) or a leaked
 * response buffer fails the test. Default build: seed corpus in {@code TurnDecoderFuzzTestInputs/}; fuzz with
 * {@code JAZZER_FUZZ=1}.
 */
class TurnDecoderFuzzTest {
    private static final TurnServer SERVER = new TurnServer(TurnFixture.config(Map.of()), new TurnMetrics(),
            System::currentTimeMillis, false); // never started: no sockets, the handler alone
    private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40000);
    private final TurnRequestHandler.Context ctx = new TurnRequestHandler.Context();

    @FuzzTest(maxDuration = "30s")
    void streamAndDatagram(byte[] data) {
        TurnRequestHandler requests = SERVER.requests();
        EmbeddedChannel stream = new EmbeddedChannel(new StreamFrameDecoder(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                ByteBuf frame = (ByteBuf) msg;
                try {
                    if (!ChannelData.isLegacyChannelData(frame)) {
                        requests.handle(new StreamClientLink(c.channel(), CLIENT), frame, ctx);
                    }
                } finally {
                    frame.release();
                }
            }
        });
        stream.writeInbound(Unpooled.wrappedBuffer(data));
        stream.checkException();
        drain(stream);
        stream.finishAndReleaseAll();

        EmbeddedChannel udp = new EmbeddedChannel();
        ByteBuf datagram = Unpooled.wrappedBuffer(data);
        requests.handle(new UdpClientLink(udp, CLIENT), datagram, ctx);
        udp.checkException();
        drain(udp);
        udp.finishAndReleaseAll();
        assertThat(SERVER.table().size()).isZero(); // nothing unauthenticated creates an allocation
    }

    private static void drain(EmbeddedChannel ch) {
        Object o;
        while ((o = ch.readOutbound()) != null) {
            ReferenceCountUtil.release(o);
        }
    }
}
