package dev.parley.turn.admin;

import dev.parley.turn.metrics.TurnMetrics;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The pod's internal port: {@code GET /healthz}, {@code GET /readyz}, {@code GET /metrics} (Prometheus text; these
 * three are open for probes and scrapes), {@code GET /state} (JSON) and {@code POST /drain[?grace_seconds=N]}. The
 * last two need {@code Authorization: Bearer <PARLEY_INTERNAL_SECRET>} (docs/internal-api.md), compared in constant
 * time; without a configured secret they accept nobody (as the controller's internal endpoints). A missing or wrong
 * secret gets 401 problem+json.
 */
public final class InternalHttpServer {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final TurnMetrics metrics;
    private final BooleanSupplier ready;
    private final Supplier<String> state;
    private final DrainController drain;
    private final Duration defaultGrace;
    private final byte[] secret;
    private Channel channel;

    public InternalHttpServer(TurnMetrics metrics, BooleanSupplier ready, Supplier<String> state, DrainController drain,
                              Duration defaultGrace, String secret) {
        this.metrics = metrics;
        this.ready = ready;
        this.state = state;
        this.drain = drain;
        this.defaultGrace = defaultGrace;
        this.secret = secret == null || secret.isBlank() ? null : ("Bearer " + secret).getBytes(StandardCharsets.UTF_8);
    }

    public InternalHttpServer start(InetSocketAddress bind) throws InterruptedException {
        channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024), new Handler());
                    }
                }).bind(bind).sync().channel();
        return this;
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    public void stop() {
        if (channel != null) {
            channel.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            QueryStringDecoder q = new QueryStringDecoder(req.uri());
            String path = q.path();
            boolean get = req.method().equals(HttpMethod.GET);
            FullHttpResponse resp;
            if (get && path.equals("/healthz")) {
                resp = text(HttpResponseStatus.OK, "ok\n", "text/plain");
            } else if (get && path.equals("/readyz")) {
                boolean r = ready.getAsBoolean();
                resp = text(r ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, r ? "ready\n" : "not ready\n", "text/plain");
            } else if (get && path.equals("/metrics")) {
                resp = text(HttpResponseStatus.OK, metrics.prometheusText(), "text/plain; version=0.0.4");
            } else if (get && path.equals("/state")) {
                resp = authorised(req) ? text(HttpResponseStatus.OK, state.get(), "application/json") : unauthorised();
            } else if (req.method().equals(HttpMethod.POST) && path.equals("/drain")) {
                if (!authorised(req)) {
                    resp = unauthorised();
                } else {
                    Duration grace = defaultGrace;
                    var g = q.parameters().get("grace_seconds");
                    try {
                        if (g != null && !g.isEmpty()) {
                            grace = Duration.ofSeconds(Long.parseLong(g.get(0)));
                        }
                        drain.drain(grace);
                        resp = text(HttpResponseStatus.ACCEPTED, "{\"state\":\"DRAINING\",\"allocations\":" + drain.remaining() + "}",
                                "application/json");
                    } catch (NumberFormatException | ArithmeticException e) {
                        resp = problem(HttpResponseStatus.BAD_REQUEST, "grace_seconds must be a number");
                    }
                }
            } else {
                resp = problem(HttpResponseStatus.NOT_FOUND, "no such endpoint");
            }
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            HttpUtil.setKeepAlive(resp, keepAlive);
            var f = ctx.writeAndFlush(resp);
            if (!keepAlive) {
                f.addListener(ChannelFutureListener.CLOSE);
            }
        }

        /** Constant-time bearer check; no configured secret means nobody is authorised (fail closed). */
        private boolean authorised(FullHttpRequest req) {
            if (secret == null) {
                return false;
            }
            String h = req.headers().get(HttpHeaderNames.AUTHORIZATION);
            return h != null && MessageDigest.isEqual(secret, h.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static FullHttpResponse unauthorised() {
        FullHttpResponse r = problem(HttpResponseStatus.UNAUTHORIZED, "missing or wrong bearer secret");
        r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        return r;
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body, String type) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
        return r;
    }

    private static FullHttpResponse problem(HttpResponseStatus status, String detail) {
        return text(status, "{\"type\":\"about:blank\",\"title\":\"" + status.reasonPhrase() + "\",\"status\":"
                + status.code() + ",\"detail\":\"" + detail + "\"}", "application/problem+json");
    }
}
