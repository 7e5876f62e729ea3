package dev.parley.media.ice;

import dev.parley.media.stun.Stun;
import dev.parley.media.stun.StunMessage;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class IceChecksTest {
    private final IceChecks ice = new IceChecks();

    @Test
    void bindingRequestVerifiesAndResponseCarriesXorMappedAddress() {
        byte[] key = "abcdefghijklmnopqrstuvwx".getBytes(StandardCharsets.UTF_8);
        byte[] tid = new byte[12];
        tid[0] = 7;
        byte[] b = new byte[512];
        int n = ice.writeBindingRequest(b, 0, tid, "sfu1:peer", 12345, true, 99, true, key);
        assertThat(Stun.isStun(Unpooled.wrappedBuffer(b, 0, n))).isTrue();
        StunMessage m = ice.parse(b, 0, n);
        assertThat(m).isNotNull();
        assertThat(m.messageType()).isEqualTo(IceChecks.BINDING_REQUEST);
        assertThat(IceChecks.username(m)).isEqualTo("sfu1:peer");
        assertThat(IceChecks.useCandidate(m)).isTrue();
        assertThat(IceChecks.controlling(m)).isTrue();
        assertThat(IceChecks.priority(m)).isEqualTo(12345);
        assertThat(IceChecks.verify(m, key)).isTrue();
        assertThat(IceChecks.verify(m, "wrong".getBytes(StandardCharsets.UTF_8))).isFalse();
        b[30] ^= 1;  // corrupt username: fingerprint no longer matches
        assertThat(IceChecks.verify(ice.parse(b, 0, n), key)).isFalse();

        byte[] r = new byte[512];
        InetSocketAddress addr = new InetSocketAddress("127.0.0.1", 50000);
        int rn = ice.writeBindingSuccess(r, 0, tid, addr, key);
        StunMessage resp = ice.parse(r, 0, rn);
        assertThat(resp.messageType()).isEqualTo(IceChecks.BINDING_SUCCESS);
        assertThat(IceChecks.xorMapped(resp)).isEqualTo(addr);
        assertThat(IceChecks.verify(resp, key)).isTrue();
    }

    @Test
    void responseEchoesTheRequestsTransactionIdAndWritesAtAnOffset() {
        byte[] key = "abcdefghijklmnopqrstuvwx".getBytes(StandardCharsets.UTF_8);
        byte[] tid = "0123456789ab".getBytes(StandardCharsets.US_ASCII);
        byte[] b = new byte[512];
        int n = ice.writeBindingRequest(b, 8, tid, "a:b", 1, false, 2, false, key);
        StunMessage req = ice.parse(b, 8, n);
        assertThat(IceChecks.controlled(req)).isTrue();
        assertThat(IceChecks.useCandidate(req)).isFalse();
        byte[] r = new byte[512];
        int rn = ice.writeBindingSuccess(r, 4, req, new InetSocketAddress("::1", 9), key);
        StunMessage resp = ice.parse(r, 4, rn);
        assertThat(resp.transactionIdEquals(tid)).isTrue();
        assertThat(IceChecks.xorMapped(resp)).isEqualTo(new InetSocketAddress("::1", 9));
        assertThat(IceChecks.verify(resp, key)).isTrue();
    }

    @Test
    void garbageIsNotStun() {
        assertThat(ice.parse(new byte[]{0, 1, 0, 4, 0x21, 0x12, (byte) 0xA4, 0x42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, 20)).isNull();
        assertThat(Stun.isStun(Unpooled.wrappedBuffer(new byte[]{(byte) 0x80, 0}))).isFalse();
    }

    @Test
    void iceAttributesOfTheWrongSizeOrAnOverlongUsernameAreRefused() {
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        byte[] b = new byte[1024];
        int n = ice.writeBindingRequest(b, 0, new byte[12], "x".repeat(IceChecks.MAX_USERNAME_BYTES), 1, true, 1, false, key);
        assertThat(ice.parse(b, 0, n)).isNotNull();
        n = ice.writeBindingRequest(b, 0, new byte[12], "x".repeat(IceChecks.MAX_USERNAME_BYTES + 1), 1, true, 1, false, key);
        assertThat(ice.parse(b, 0, n)).isNull();
    }

    @Test
    void aTrailingByteAfterTheMessageIsRefused() {
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        byte[] b = new byte[512];
        int n = ice.writeBindingRequest(b, 0, new byte[12], "a:b", 1, true, 1, false, key);
        assertThat(ice.parse(b, 0, n)).isNotNull();
        assertThat(ice.parse(b, 0, n + 4)).isNull(); // the old ICE codec ignored bytes past the length field
    }
}
