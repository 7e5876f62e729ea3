package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunIntegrity;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMessageType;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.media.stun.StunMethod;
import dev.parley.platform.turn.TurnCredential;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.support.SelfSignedCert;
import dev.parley.turn.support.TestTurnClient;
import dev.parley.turn.support.TurnFixture;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** TURN over TLS with a PEM certificate from files, and the certificate swapped on disk without a restart. */
class TlsListenerTest {
    @TempDir
    Path dir;

    @Test
    void allocatesOverTlsAndReloadsTheCertificate() throws Exception {
        Path cert = dir.resolve("tls.crt");
        Path key = dir.resolve("tls.key");
        String first = SelfSignedCert.write(cert, key, "turn-one");
        TurnServer server = new TurnServer(TurnFixture.config(Map.of("PARLEY_TURN_TLS_PORT", "0",
                "PARLEY_TURN_TLS_CERT", cert.toString(), "PARLEY_TURN_TLS_KEY", key.toString())),
                new TurnMetrics(), System::currentTimeMillis).start();
        try {
            assertThat(server.tlsPort()).isPositive();
            try (SSLSocket s = connect(server.tlsPort())) {
                assertThat(fingerprint(s)).isEqualTo(first);
                assertThat(s.getSession().getProtocol()).isIn("TLSv1.3", "TLSv1.2");
                StunMessage challenge = transact(s, request(null, null, null, null));
                assertThat(challenge.errorCode()).isEqualTo(401);
                TurnCredential cred = TurnFixture.credential(TurnFixture.SECRET, "tls-user", Duration.ofHours(1));
                StunMessage ok = transact(s, request(cred.username(), cred.password(), challenge.string(StunAttribute.NONCE), "parley"));
                assertThat(ok.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
                assertThat(server.table().size()).isEqualTo(1);
            }
            await().atMost(Duration.ofSeconds(3)).until(() -> server.table().size() == 0); // closed connection: gone

            String second = SelfSignedCert.write(cert, key, "turn-two");
            Instant later = Instant.now().plusSeconds(5);
            Files.setLastModifiedTime(cert, FileTime.from(later));
            Files.setLastModifiedTime(key, FileTime.from(later));
            await().atMost(Duration.ofSeconds(12)).pollInterval(Duration.ofMillis(500)).until(() -> {
                try (SSLSocket s = connect(server.tlsPort())) {
                    return fingerprint(s).equals(second);
                }
            });
        } finally {
            server.stop();
        }
    }

    private static byte[] request(String user, String password, String nonce, String realm) {
        ByteBuf out = Unpooled.buffer();
        StunMessageWriter w = new StunMessageWriter().begin(out, StunMessageType.of(StunMethod.ALLOCATE, StunClass.REQUEST),
                TestTurnClient.txid()).requestedTransport(17);
        if (user != null) {
            w.string(StunAttribute.USERNAME, user).string(StunAttribute.REALM, realm).string(StunAttribute.NONCE, nonce)
                    .messageIntegrity(StunIntegrity.longTermKey(user, realm, password));
        }
        w.fingerprint();
        byte[] b = new byte[out.readableBytes()];
        out.readBytes(b);
        return b;
    }

    private static StunMessage transact(SSLSocket s, byte[] req) throws Exception {
        OutputStream o = s.getOutputStream();
        o.write(req);
        o.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] head = new byte[20];
        in.readFully(head);
        int len = ((head[2] & 0xFF) << 8) | (head[3] & 0xFF);
        byte[] all = new byte[20 + len];
        System.arraycopy(head, 0, all, 0, 20);
        in.readFully(all, 20, len);
        return StunMessage.parse(Unpooled.wrappedBuffer(all));
    }

    private static SSLSocket connect(int port) throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
                // the test pins the certificate by fingerprint instead
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(3000);
        s.startHandshake();
        return s;
    }

    private static String fingerprint(SSLSocket s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(s.getSession().getPeerCertificates()[0].getEncoded()));
    }
}
